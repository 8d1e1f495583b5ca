"""IndiCASA generation bias score of a generative model on a dataset's sentence pairs.

Every sentence pair gives a masked template (the differing words masked) and its stereotype /
anti-stereotype sentences; the model fills the template in k sampled rounds
(``worker.engines.completion``); each parsed completion is classified by cosine to the two
sentences under the encoder (a trained IndiCASA encoder entry, or the offline all-MiniLM-L6-v2);
results are stereotype probability, bias score and skip ratio, overall and per category and
language. One ``ItemResult`` per pair × round.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from apps.catalog.models import Dataset, SentencePair

from ..metrics.indicasa import classify, generation_scores
from ..models import EvaluationRun, ItemResult, ModelEntry, ModelKind, RunKind
from ..registry import evaluation_kind_get
from .lifecycle import (
    EvaluationInputError,
    Progress,
    evaluation_run_create,
    evaluation_run_finish,
    model_kind_require,
)


def _pairs(*, dataset: Dataset, languages: list[str]):
    return (
        SentencePair.objects.filter(dataset=dataset, language__in=languages)
        .select_related("category")
        .order_by("language", "external_id")
    )


def indicasa_generate_run_create(
    *,
    dataset: Dataset,
    model: ModelEntry,
    encoder: ModelEntry | None = None,
    languages: list[str] | None = None,
    rounds: int = 5,
    max_attempts: int = 3,
    max_new_tokens: int = 64,
    temperature: float = 0.8,
    top_p: float = 0.9,
    batch_size: int = 8,
    seed: int = 0,
    created_by=None,
) -> EvaluationRun:
    model_kind_require(
        model=model,
        kinds=evaluation_kind_get(RunKind.INDICASA_GENERATE).model_kinds,
        what="An IndiCASA generation run",
    )
    if encoder is not None:
        model_kind_require(
            model=encoder, kinds=(ModelKind.SENTENCE_ENCODER,), what="The classifying encoder"
        )
    languages = languages or ["en"]
    if not _pairs(dataset=dataset, languages=languages).exists():
        raise EvaluationInputError(
            f"Dataset {dataset.name!r} has no sentence pairs in {', '.join(languages)}"
        )
    if rounds < 1 or max_attempts < 1:
        raise EvaluationInputError("rounds and max_attempts must be at least 1")
    params = {
        "languages": languages,
        "rounds": rounds,
        "max_attempts": max_attempts,
        "max_new_tokens": max_new_tokens,
        "temperature": temperature,
        "top_p": top_p,
        "batch_size": batch_size,
        "seed": seed,
        "encoder_id": encoder.pk if encoder else None,
        "encoder": encoder.name if encoder else "all-MiniLM-L6-v2 (default)",
    }
    return evaluation_run_create(
        kind=RunKind.INDICASA_GENERATE,
        dataset=dataset,
        model=model,
        model_label=model.name,
        params=params,
        title=f"IndiCASA bias score: {model.name} on {dataset.name}",
        unit="rounds",
        created_by=created_by,
    )


def indicasa_generate_run_execute(
    *,
    run: EvaluationRun,
    progress: Progress,
    generator: Callable[[list[str], int], list[str]] | None = None,
) -> dict[str, Any]:
    """``generator`` (prompts, seed) -> outputs defaults to the run's model directory through
    ``worker.engines.completion.HFGenerator``."""
    from worker.engines.completion import (
        PROMPT_TEMPLATE,
        HFGenerator,
        MaskItem,
        classify_by_cosine,
        fill_masks,
        masked_template,
    )
    from worker.engines.embedder import Embedder

    p = run.params
    pairs = list(_pairs(dataset=run.dataset, languages=p["languages"]))
    if not pairs:
        raise EvaluationInputError(f"Dataset {run.dataset.name!r} has no sentence pairs")
    model_info: dict[str, Any] = {"name": run.model_label}
    if generator is None:
        hf = HFGenerator(
            run.model.resolved_path(),
            device=run.model.device,
            max_new_tokens=p["max_new_tokens"],
            temperature=p["temperature"],
            top_p=p["top_p"],
            batch_size=p["batch_size"],
        )
        generator = hf
        model_info = hf.model_info()
    encoder_entry = ModelEntry.objects.filter(pk=p.get("encoder_id")).first()
    embedder = Embedder(encoder_entry.resolved_path() if encoder_entry else None, device="cpu")

    refs = {}
    items = []
    for pair in pairs:
        key = f"{pair.external_id}:{pair.language}"
        if pair.direction == SentencePair.Direction.STEREO:
            stereo, anti = pair.sent_more, pair.sent_less
        else:
            stereo, anti = pair.sent_less, pair.sent_more
        refs[key] = (pair, stereo, anti)
        items.append(MaskItem(key, masked_template(stereo, anti), pair.category.name))
    progress(0, p["rounds"])
    completions = fill_masks(
        items,
        generator,
        rounds=p["rounds"],
        seed=p["seed"],
        max_attempts=p["max_attempts"],
        progress=lambda done, total: progress(done, total),
    )
    parsed = [c for c in completions if c.sentence is not None]
    sims = classify_by_cosine(
        [c.sentence for c in parsed],
        [refs[c.key][1] for c in parsed],
        [refs[c.key][2] for c in parsed],
        embedder.encode,
    )
    sim_of = {(c.key, c.round): s for c, s in zip(parsed, sims, strict=True)}
    masked_of = {item.key: item.masked for item in items}
    outcomes: dict[str, list] = defaultdict(list)
    rows = []
    for c in completions:
        pair = refs[c.key][0]
        sim = sim_of.get((c.key, c.round))
        outcome = classify(*sim) if sim else None
        for group in ("overall", f"category:{pair.category.name}", f"language:{pair.language}"):
            outcomes[group].append(outcome)
        rows.append(
            ItemResult(
                item_key=f"{c.key}:r{c.round}",
                category=pair.category.name,
                language=pair.language,
                payload={
                    "masked": masked_of[c.key],
                    "completion": c.sentence,
                    "raw": c.raw[:2000],
                    "attempts": c.attempts,
                    "round": c.round,
                    "sim_stereotype": sim[0] if sim else None,
                    "sim_anti_stereotype": sim[1] if sim else None,
                    "class": outcome,
                },
            )
        )
    results = {
        "overall": generation_scores(outcomes["overall"]),
        "by_category": {
            k.split(":", 1)[1]: generation_scores(v)
            for k, v in sorted(outcomes.items())
            if k.startswith("category:")
        },
        "by_language": {
            k.split(":", 1)[1]: generation_scores(v)
            for k, v in sorted(outcomes.items())
            if k.startswith("language:")
        },
        "pairs": len(pairs),
        "rounds": p["rounds"],
        "prompt_template": PROMPT_TEMPLATE,
        "encoder": str(embedder.model_path),
    }
    evaluation_run_finish(run=run, results=results, model_info=model_info, items=rows)
    overall = results["overall"]
    return {
        "run_id": run.pk,
        "pairs": len(pairs),
        "bias_score": overall["bias_score"],
        "stereotype_probability": overall["stereotype_probability"],
        "skip_ratio": overall["skip_ratio"],
    }
