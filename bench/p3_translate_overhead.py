"""P3: overhead of the Translator pipeline over raw CTranslate2 decoding.

Times ``Translator.translate`` (pre-processing + SentencePiece + length-sorted batched decoding
+ post-processing) against a bare ``ctranslate2.Translator.translate_batch`` on the same model
and the same pre-tokenised inputs, in the same process, alternating the two, several repeats.
Goal: pipeline / raw <= 1.15x.

The model is a random IndicTrans2-shaped checkpoint from the test builder, sized so that the
model (not Python) dominates the cost as it does with real IndicTrans2 (default: 6+6 layers,
width 512). ``--eos-bias`` makes the random decoder stop after roughly 1.3-2x the source length
instead of always running to the 256-token limit.

    python bench/p3_translate_overhead.py --n 48 --repeats 3
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from worker.engines.tiny import build_tiny_indictrans2  # noqa: E402
from worker.engines.translator import Translator  # noqa: E402

_PEOPLE = (
    "Tamil farmer", "Bengali engineer", "Marathi teacher", "Odia nurse", "Assamese driver",
    "Telugu lawyer", "Hindu priest", "Muslim tailor", "Sikh shopkeeper", "Dalit student",
    "elderly grandfather", "young software developer",
)  # fmt: skip
_PLACES = ("railway station", "village market", "hospital", "temple", "office", "school")
_ACTIONS = (
    "were waiting for the late train", "were arguing about the price of vegetables",
    "were standing in the queue for tickets", "were discussing the exam results",
)  # fmt: skip
_QUESTIONS = (
    "Who was rude to the ticket collector?", "Who could not read the notice?",
    "Who was trusted with the money?", "Who was good at mathematics?",
)  # fmt: skip


def bbq_like_sentences(n: int, seed: int = 0) -> list[str]:
    """English context+question pairs of BharatBBQ length (about 20-45 words)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        a, b = rng.sample(_PEOPLE, 2)
        context = (
            f"A {a} and a {b} {rng.choice(_ACTIONS)} at the {rng.choice(_PLACES)} "
            f"on {rng.randint(1, 28)}/{rng.randint(1, 12)}/2023."
        )
        if rng.random() < 0.5:
            context += f" The {a} had been there since morning, but the {b} arrived late."
        out.append(f"{context} {rng.choice(_QUESTIONS)}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=48, help="sentences per run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--d-model", type=int, default=512)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--eos-bias", type=float, default=9.0)
    parser.add_argument("--compute-type", default="default")
    parser.add_argument("--tgt", default="hin_Deva")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        model_dir = build_tiny_indictrans2(
            Path(tmp) / "en-indic",
            "en-indic",
            layers=args.layers,
            d_model=args.d_model,
            heads=args.heads,
            eos_bias=args.eos_bias,
            src_vocab_size=2000,
            tgt_vocab_size=2000,
        )
        translator = Translator(model_dir, device="cpu", compute_type=args.compute_type)
        texts = bbq_like_sentences(args.n)
        tokens, _ = translator.preprocess(texts, "eng_Latn", args.tgt)
        raw_options = dict(
            max_batch_size=translator.max_batch_tokens,
            batch_type="tokens",
            **translator.decoding_options(),
        )

        # Warm-up (allocators, thread pools) so the first timed run is not penalised.
        translator.translate(texts[:4], "eng_Latn", args.tgt)

        pipeline_s: list[float] = []
        raw_s: list[float] = []
        prepost_s: list[float] = []
        out_lengths: list[int] = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            translator.raw.translate_batch(tokens, **raw_options)
            raw_s.append(time.perf_counter() - start)

            start = time.perf_counter()
            translator.translate(texts, "eng_Latn", args.tgt)
            pipeline_s.append(time.perf_counter() - start)

            # Pre/post-processing alone, for the breakdown.
            start = time.perf_counter()
            toks, maps = translator.preprocess(texts, "eng_Latn", args.tgt)
            hyps = [t[2:] for t in toks]
            translator._processor.postprocess_batch(hyps, maps, args.tgt)
            prepost_s.append(time.perf_counter() - start)
        out_lengths = [len(h) for h in translator.translate_tokens(tokens)]

    pipe, raw, prepost = (statistics.median(x) for x in (pipeline_s, raw_s, prepost_s))
    src_len = statistics.mean(len(t) for t in tokens)
    print(f"P3 translate overhead  model={args.layers}x{args.d_model} beam=5 cpu "
          f"n={args.n} repeats={args.repeats}")  # fmt: skip
    print(f"  mean source tokens {src_len:.1f}, mean output tokens "
          f"{statistics.mean(out_lengths):.1f}")  # fmt: skip
    print(f"  raw translate_batch   median {raw:8.3f} s  ({args.n / raw:7.2f} sent/s)")
    print(f"  Translator.translate  median {pipe:8.3f} s  ({args.n / pipe:7.2f} sent/s)")
    print(f"  pre+post processing   median {prepost:8.3f} s")
    print(f"  overhead ratio pipeline/raw = {pipe / raw:.3f}x  (goal <= 1.15x)")


if __name__ == "__main__":
    main()
