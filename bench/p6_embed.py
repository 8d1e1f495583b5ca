"""P6: Embedder throughput versus raw SentenceTransformer.encode on the same texts.

Measures the back-translation similarity stage: ``Embedder.cosine_pairs(a, b)`` (dedup + encode
+ row-wise cosine) and ``Embedder.encode`` against ``SentenceTransformer.encode`` of all 2N
texts (normalised, same batch size), same process, alternating, several repeats.
Goal: Embedder throughput >= 0.9x raw.

    python bench/p6_embed.py --n 1000 --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.p3_translate_overhead import bbq_like_sentences  # noqa: E402
from worker.engines.embedder import Embedder  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="sentence pairs")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()

    originals = bbq_like_sentences(args.n, seed=1)
    # Back-translations: perturbed copies, all distinct, so de-duplication does not help us.
    back = [f"{text[:-1]} then?" for text in originals]
    embedder = Embedder(device="cpu", batch_size=args.batch_size)
    raw_model = embedder.raw
    everything = originals + back

    def raw_encode() -> np.ndarray:
        return raw_model.encode(
            everything,
            batch_size=args.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )

    raw_encode()  # warm-up
    raw_s, pairs_s, encode_s = [], [], []
    for _ in range(args.repeats):
        start = time.perf_counter()
        raw_encode()
        raw_s.append(time.perf_counter() - start)

        start = time.perf_counter()
        embedder.cosine_pairs(originals, back)
        pairs_s.append(time.perf_counter() - start)

        start = time.perf_counter()
        embedder.encode(everything)
        encode_s.append(time.perf_counter() - start)

    raw, pairs, enc = (statistics.median(x) for x in (raw_s, pairs_s, encode_s))
    texts = len(everything)
    print(f"P6 embed  model=all-MiniLM-L6-v2 cpu texts={texts} batch={args.batch_size} "
          f"repeats={args.repeats}")  # fmt: skip
    print(f"  raw ST.encode         median {raw:7.3f} s  ({texts / raw:8.1f} texts/s)")
    print(f"  Embedder.encode      median {enc:7.3f} s  ({texts / enc:8.1f} texts/s)")
    print(f"  Embedder.cosine_pairs median {pairs:7.3f} s  ({texts / pairs:8.1f} texts/s)")
    print(f"  throughput ratio encode/raw = {raw / enc:.3f}x, cosine_pairs/raw = "
          f"{raw / pairs:.3f}x  (goal >= 0.9x)")  # fmt: skip


if __name__ == "__main__":
    main()
