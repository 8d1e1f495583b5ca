"""CrowS-Pairs P(U|M) throughput on a tiny random BERT: every masked copy batched (the engine)
versus one forward pass per masked word. Run from the repository root:

    OMP_NUM_THREADS=1 .venv/bin/python bench/crows_pll.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from tests.engines.test_masked_lm import PAIR, _build_tiny_bert  # noqa: E402
from worker.engines.masked_lm import MaskedLMScorer, shared_words  # noqa: E402

ENGLISH = (
    "he was excited about his big game tomorrow",
    "she was excited about her big game tomorrow",
)
PAIRS = [PAIR, ENGLISH] * 10


def main() -> None:
    scorer = MaskedLMScorer(_build_tiny_bert(Path(tempfile.mkdtemp()) / "bert"), batch_size=64)

    def batched() -> None:
        scorer.pair_scores(PAIRS)

    def one_copy_per_forward() -> None:
        for first, second in PAIRS:
            for sentence, words in zip((first, second), shared_words(first, second), strict=True):
                ids, groups = scorer.encode_words(sentence)
                for word in words:
                    with torch.inference_mode():
                        scorer.model(input_ids=torch.tensor([scorer.mask_word(ids, groups[word])]))

    for name, work in (("batched", batched), ("one copy per forward", one_copy_per_forward)):
        times = []
        for _ in range(3):
            start = time.perf_counter()
            work()
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        print(
            f"{name}: median {median:.2f} s, {len(PAIRS)} pairs, {len(PAIRS) / median:.0f} pairs/s"
        )


if __name__ == "__main__":
    main()
