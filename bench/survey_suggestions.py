"""Survey suggestions: the top-5 closest concepts for 10,000 answers against 1,000 concepts,
with the configured sentence-transformers model (all-MiniLM-L6-v2), on CPU with 2 torch
threads, cold: every one of the 11,000 texts is embedded in the run (nothing cached).

Data (a bench PostgreSQL database, built in bulk): one open survey, 10,000 answers by 5,000
respondents and 1,000 concepts of its dataset; short sentences of varied length (3 to 30
words) in English, Spanish, Hindi, Bengali and Tamil, made from groups, attributes and
connectives, so that hardly any two are the same.

Measured in one run, each at least 3 times, median reported:
  * ours: apps.surveys.services.suggestions.suggestions_compute (load the rows, embed, top-k,
    replace the suggestion rows with COPY), the model already loaded as in a worker;
  * the named baseline "raw encode": SentenceTransformer.encode of every 10th of the same texts
    (normalised, the same batch size), once, scaled to all 11,000: what ours cannot beat, the
    rest being overhead (--baseline-every 1 encodes them all);
  * the machine's floor: the model's multiply-adds over every token at the float32 matrix
    product speed measured in the same run (2 threads).
Goal: ours <= 10 s. Printed: medians, ratio to the goal and to the baseline, the breakdown.

Run: python bench/survey_suggestions.py [--answers 10000] [--concepts 1000] [--runs 3]
     [--batch-size 64] [--threads 2] [--keep] [--quantized]
--quantized also measures int8 dynamic quantisation of the model's Linear layers (not what
Kasauti ships; printed with its top-1 agreement with the float model, as information).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from _db import bench_database

DB = "kasauti_bench_survey_suggestions"
GOAL_SECONDS = 10.0

GROUPS = {
    "en": [
        "women",
        "men",
        "Muslims",
        "Hindus",
        "old people",
        "young people",
        "poor people",
        "rich people",
        "Andalusians",
        "Catalans",
        "migrants",
        "gay men",
        "farmers",
        "Biharis",
        "South Indians",
        "northerners",
        "students",
        "single mothers",
    ],
    "es": [
        "las mujeres",
        "los hombres",
        "los musulmanes",
        "los gitanos",
        "los andaluces",
        "los catalanes",
        "los gallegos",
        "los inmigrantes",
        "los ancianos",
        "los jóvenes",
        "los pobres",
        "los ricos",
        "los gays",
        "las madres solteras",
    ],
    "hi": [
        "महिलाएँ",
        "पुरुष",
        "मुसलमान",
        "हिंदू",
        "बिहारी",
        "दक्षिण भारतीय",
        "गरीब लोग",
        "अमीर लोग",
        "बुज़ुर्ग",
        "किसान",
        "दलित",
        "पहाड़ी लोग",
    ],
    "bn": ["মহিলারা", "পুরুষরা", "মুসলমানরা", "হিন্দুরা", "গরিব মানুষ", "বাঙালিরা", "বিহারিরা"],
    "ta": ["பெண்கள்", "ஆண்கள்", "முஸ்லிம்கள்", "இந்துக்கள்", "ஏழைகள்", "தமிழர்கள்"],
}
ATTRIBUTES = {
    "en": [
        "are lazy",
        "are bad drivers",
        "are greedy",
        "are violent",
        "cannot use computers",
        "are dirty",
        "are too emotional",
        "are good at business",
        "do not like to work",
        "are loud",
        "are stingy",
        "are bad at maths",
        "are criminals",
        "are uneducated",
        "only care about money",
        "are always late",
        "cannot be trusted",
    ],
    "es": [
        "son vagos",
        "conducen mal",
        "son tacaños",
        "son violentos",
        "no saben de tecnología",
        "son sucios",
        "son muy emocionales",
        "no quieren trabajar",
        "son ruidosos",
        "son ladrones",
        "no tienen estudios",
        "siempre llegan tarde",
    ],
    "hi": [
        "आलसी होते हैं",
        "ख़राब गाड़ी चलाते हैं",
        "लालची होते हैं",
        "हिंसक होते हैं",
        "गंदे रहते हैं",
        "काम नहीं करना चाहते",
        "पैसों के पीछे भागते हैं",
        "अनपढ़ होते हैं",
        "भरोसे लायक नहीं होते",
        "हमेशा देर से आते हैं",
    ],
    "bn": ["অলস", "লোভী", "হিংস্র", "নোংরা", "অশিক্ষিত", "সবসময় দেরি করে"],
    "ta": ["சோம்பேறிகள்", "பேராசைக்காரர்கள்", "வன்முறையாளர்கள்", "படிக்காதவர்கள்"],
}
LEADS = {
    "en": [
        "",
        "I have heard that",
        "People say",
        "My colleagues always joke that",
        "Everyone in my town thinks",
        "On TV they keep saying",
    ],
    "es": ["", "He oído que", "Dicen que", "En mi pueblo piensan que", "Mi jefe decía que"],
    "hi": ["", "मैंने सुना है कि", "लोग कहते हैं कि", "मेरे दफ़्तर में सब मानते हैं कि"],
    "bn": ["", "লোকে বলে", "আমি শুনেছি"],
    "ta": ["", "மக்கள் சொல்கிறார்கள்", "நான் கேள்விப்பட்டேன்"],
}
TAILS = {
    "en": [
        "",
        "and that is why they never get good jobs",
        "even when they try hard",
        "which is what my grandmother told me when I was a child in the village",
        "at school, at work and on the bus, every single day",
    ],
    "es": [
        "",
        "y por eso no encuentran trabajo",
        "aunque se esfuercen mucho",
        "según lo que me contaba mi abuela cuando era pequeña en el pueblo",
    ],
    "hi": [
        "",
        "इसलिए उन्हें अच्छी नौकरी नहीं मिलती",
        "चाहे वे कितनी भी मेहनत करें",
        "यह बात मेरी दादी बचपन में गाँव में कहा करती थीं",
    ],
    "bn": ["", "তাই তারা ভালো চাকরি পায় না"],
    "ta": ["", "அதனால் அவர்களுக்கு நல்ல வேலை கிடைக்காது"],
}
LANG_WEIGHTS = [("en", 0.35), ("es", 0.3), ("hi", 0.2), ("bn", 0.08), ("ta", 0.07)]


def sentence(rng: random.Random, lang: str) -> str:
    parts = [rng.choice(LEADS[lang]), rng.choice(GROUPS[lang]), rng.choice(ATTRIBUTES[lang])]
    if rng.random() < 0.5:
        parts.append(rng.choice(TAILS[lang]))
    if rng.random() < 0.15:  # a longer answer: a second clause
        parts += [rng.choice(GROUPS[lang]), rng.choice(ATTRIBUTES[lang])]
    return " ".join(p for p in parts if p)


def languages(rng: random.Random, n: int) -> list[str]:
    names, weights = zip(*LANG_WEIGHTS, strict=True)
    return rng.choices(names, weights=weights, k=n)


def build(n_answers: int, n_concepts: int, seed: int = 20, slug: str = "bench-coding"):
    """The survey with its answers and concepts (bulk inserts). Returns the survey."""
    import hashlib

    from django.utils import timezone

    from apps.catalog.models import Category, Dataset, StereotypeConcept
    from apps.surveys.models import Answer, Respondent, Survey
    from apps.surveys.services.surveys import survey_create, survey_open
    from tests.surveys.conftest import complete_content

    existing = Survey.objects.filter(slug=slug).first()
    if existing is not None and existing.answers.count() == n_answers:
        return existing
    rng = random.Random(seed)
    dataset = Dataset.objects.create(name=f"bench-coding-{seed}", inclusion_rule="esbbq")
    survey = survey_open(
        survey=survey_create(
            dataset=dataset,
            slug=slug,
            languages=["hi", "es"],
            content=complete_content(["hi", "es"]),
        )
    )
    categories = [Category.objects.get_or_create(name=n)[0] for n in ("Religion", "Region")]
    StereotypeConcept.objects.bulk_create(
        StereotypeConcept(
            category=categories[i % 2],
            dataset=dataset,
            statement=f"{sentence(rng, lang)} ({i})",
            target_groups=[rng.choice(GROUPS[lang])],
            attribute=rng.choice(ATTRIBUTES[lang])[:200],
            source="survey",
            validation_status="validated",
            mentions=rng.randint(0, 4),
        )
        for i, lang in enumerate(languages(rng, n_concepts))
    )
    respondents = Respondent.objects.bulk_create(
        Respondent(
            survey=survey,
            token_hash=hashlib.sha256(f"bench{i}".encode()).hexdigest(),
            language="es",
        )
        for i in range((n_answers + 1) // 2)
    )
    start = timezone.now() - timezone.timedelta(days=30)
    Answer.objects.bulk_create(
        (
            Answer(
                survey=survey,
                version=survey.current_version,
                respondent=respondents[i // 2],
                language=lang if lang in ("hi", "es") else "es",
                category_key=rng.choice(["religion", "region"]),
                group_keys=[rng.choice(["muslim", "hindu"])] if rng.random() < 0.3 else [],
                text=sentence(rng, lang),
                heard=rng.random() < 0.6,
                witnessed=rng.random() < 0.3,
                affected=rng.random() < 0.2,
                experience=sentence(rng, lang) if rng.random() < 0.2 else "",
                submitted_at=start + timezone.timedelta(seconds=i * 7),
            )
            for i, lang in enumerate(languages(rng, n_answers))
        ),
        batch_size=2000,
    )
    return survey


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=10000)
    parser.add_argument("--concepts", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep (and reuse) the bench DB")
    parser.add_argument("--quantized", action="store_true")
    parser.add_argument("--baseline-every", type=int, default=10)
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    with bench_database(DB, keep=args.keep):
        t0 = time.perf_counter()
        survey = build(args.answers, args.concepts)
        print(
            f"data: {args.answers:,} answers, {args.concepts:,} concepts "
            f"({time.perf_counter() - t0:.1f} s to build)"
        )

        from apps.catalog.models import StereotypeConcept
        from apps.surveys.models import Answer
        from apps.surveys.services.suggestions import (
            answer_embedding_text,
            concept_embedding_text,
            suggestions_compute,
        )
        from apps.translation import engines

        t0 = time.perf_counter()
        embedder = engines.embedder()
        embedder.batch_size = args.batch_size
        load = time.perf_counter() - t0
        print(
            f"model load (once per worker process, not in the figures): {load:.1f} s; "
            f"torch threads {torch.get_num_threads()}; batch size {args.batch_size}; "
            f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
        )
        texts = [
            concept_embedding_text(concept=c)
            for c in StereotypeConcept.objects.filter(dataset=survey.dataset_id)
        ] + [answer_embedding_text(answer=a) for a in Answer.objects.filter(survey=survey)]
        print(
            f"{len(texts):,} texts, {len(set(texts)):,} distinct; "
            f"mean {statistics.mean(len(t.split()) for t in texts):.1f} words"
        )

        sample = texts[:: args.baseline_every]

        def raw_encode():
            with torch.inference_mode():
                embedder.raw.encode(
                    sample,
                    batch_size=args.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )

        # The machine's floor: the model's multiply-adds over every token (6 layers x
        # (4 d^2 + 8 d^2) for d = 384) at the float32 matrix-product speed measured here now.
        tokens = sum(len(ids) for ids in embedder.raw.tokenizer(texts)["input_ids"])
        flops = tokens * 6 * 12 * 384 * 384 * 2
        m = torch.randn(384, 1536)
        x = torch.randn(2048, 384)
        t0 = time.perf_counter()
        for _ in range(20):
            x @ m
        gflops = 20 * 2 * 2048 * 384 * 1536 / (time.perf_counter() - t0) / 1e9
        print(
            f"{tokens:,} tokens, {flops / 1e12:.2f} TFLOP in the model's matrix products; "
            f"float32 matrix product here now {gflops:.1f} GFLOP/s with {args.threads} "
            f"thread(s): floor {flops / gflops / 1e9:.1f} s for the embedding alone"
        )
        ours_times, raw_times, breakdowns = [], [], []
        t0 = time.perf_counter()
        raw_encode()
        # Scaled to all the texts (a sample keeps the run short on a shared 2-core machine).
        raw_times.append((time.perf_counter() - t0) * len(texts) / len(sample))
        print(
            f"baseline raw encode of {len(sample):,} texts (every {args.baseline_every}th), "
            f"scaled to {len(texts):,}: {raw_times[-1]:.2f} s",
            flush=True,
        )
        for run in range(args.runs):
            t0 = time.perf_counter()
            result = suggestions_compute(survey=survey)
            ours_times.append(time.perf_counter() - t0)
            breakdowns.append(result["timings"])
            assert result["answers"] == args.answers and result["suggestions"] == args.answers * 5
            print(f"run {run + 1}: ours {ours_times[-1]:.2f} s {result['timings']}", flush=True)
        ours, raw = statistics.median(ours_times), statistics.median(raw_times)
        print(
            f"ours (suggestions_compute): median {ours:.2f} s over {args.runs} runs; "
            f"ratio to the {GOAL_SECONDS:.0f} s goal {ours / GOAL_SECONDS:.2f} "
            f"({'met' if ours <= GOAL_SECONDS else 'NOT met'})"
        )
        print(
            f"baseline raw encode of the {len(texts):,} texts: median {raw:.2f} s; "
            f"ours / baseline {ours / raw:.2f}; texts/s (ours) {len(texts) / ours:.0f}"
        )
        if args.quantized:
            from apps.surveys.models import AnswerSuggestion

            top1 = dict(
                AnswerSuggestion.objects.filter(rank=1).values_list("answer_id", "concept_id")
            )
            model = torch.ao.quantization.quantize_dynamic(
                embedder.raw, {torch.nn.Linear}, dtype=torch.qint8
            )

            def embed_q(batch):
                with torch.inference_mode():
                    return model.encode(
                        list(batch),
                        batch_size=args.batch_size,
                        normalize_embeddings=True,
                        convert_to_numpy=True,
                        show_progress_bar=False,
                    )

            q_times = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                suggestions_compute(survey=survey, embed=embed_q)
                q_times.append(time.perf_counter() - t0)
            top1_q = dict(
                AnswerSuggestion.objects.filter(rank=1).values_list("answer_id", "concept_id")
            )
            agree = sum(top1_q[a] == c for a, c in top1.items()) / len(top1)
            q = statistics.median(q_times)
            print(
                f"int8 dynamic quantisation (information only): median {q:.2f} s; ratio to "
                f"goal {q / GOAL_SECONDS:.2f}; top-1 agreement with float {agree:.1%}"
            )


if __name__ == "__main__":
    main()
