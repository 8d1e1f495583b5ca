"""The batch size halves on torch.cuda.OutOfMemoryError, stays small, and fails clearly at 1."""

from __future__ import annotations

import pytest
import torch

from worker.engines.backoff import BatchOutOfMemoryError, map_batches
from worker.engines.errors import ModelConfigurationError
from worker.engines.lm_scorer import load_causal_lm

from .test_lm_scorer import ITEMS


class Squares:
    """A batch function that squares numbers, out of memory above `fits` items per batch."""

    def __init__(self, fits: int) -> None:
        self.fits = fits
        self.sizes: list[int] = []

    def __call__(self, batch: list[int]) -> list[int]:
        self.sizes.append(len(batch))
        if len(batch) > self.fits:
            raise torch.cuda.OutOfMemoryError(f"CUDA out of memory with {len(batch)} items")
        return [x * x for x in batch]


def test_batches_halve_until_they_fit_and_stay_small():
    squares = Squares(fits=3)
    results, used = map_batches(squares, list(range(20)), batch_size=16)
    assert results == [x * x for x in range(20)]
    assert used == 2
    # 16 and 4 ran out of memory, then every later batch is 2 items (never 16 again).
    assert squares.sizes[:3] == [16, 8, 4] and set(squares.sizes[3:]) == {2}
    assert sum(squares.sizes[3:]) == 20


def test_no_back_off_when_everything_fits():
    squares = Squares(fits=100)
    results, used = map_batches(squares, list(range(10)), batch_size=4)
    assert results == [x * x for x in range(10)] and used == 4
    assert squares.sizes == [4, 4, 2]


def test_a_batch_of_one_that_does_not_fit_is_a_clear_configuration_error():
    squares = Squares(fits=0)
    with pytest.raises(BatchOutOfMemoryError, match="batch size 1") as err:
        map_batches(squares, [1, 2, 3], batch_size=4)
    assert "tried batch sizes 4, 2, 1" in str(err.value)
    assert isinstance(err.value, ModelConfigurationError)  # the run fails, no retry


def test_other_errors_are_not_swallowed():
    def broken(batch):
        raise RuntimeError("shape mismatch")

    with pytest.raises(RuntimeError, match="shape mismatch"):
        map_batches(broken, [1], batch_size=1)
    with pytest.raises(ValueError, match="batch_size"):
        map_batches(broken, [1], batch_size=0)


def test_the_real_scorer_backs_off_and_scores_the_same(tiny_gpt2_dir):
    """The tiny GPT-2's forward raises OutOfMemoryError above 4 rows (the option pass has a
    row per option): the scores equal those of an unconstrained run."""
    expected = load_causal_lm(tiny_gpt2_dir).score_options(ITEMS, batch_size=8)
    scorer = load_causal_lm(tiny_gpt2_dir)
    forward, rows_seen = scorer.model.forward, []

    def forward_with_little_memory(*args, **kwargs):
        rows = kwargs["input_ids"].shape[0]
        rows_seen.append(rows)
        if rows > 4:
            raise torch.cuda.OutOfMemoryError(f"CUDA out of memory: {rows} rows")
        return forward(*args, **kwargs)

    scorer.model.forward = forward_with_little_memory
    got = scorer.score_options(ITEMS, batch_size=8)
    for ours, theirs in zip(got, expected, strict=True):
        assert ours.sum_logprob == pytest.approx(theirs.sum_logprob, abs=1e-5)
        assert ours.n_tokens == theirs.n_tokens
    assert max(rows_seen) > 4 and scorer._batch_cap == 1  # 3 options x 2 items > 4 rows
    rows_seen.clear()
    scorer.score_options(ITEMS, batch_size=8)  # later calls start at the size that fitted
    assert max(rows_seen) <= 4


def test_the_real_scorer_fails_clearly_when_one_item_does_not_fit(tiny_gpt2_dir):
    scorer = load_causal_lm(tiny_gpt2_dir)

    def no_memory(*args, **kwargs):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory")

    scorer.model.forward = no_memory
    with pytest.raises(BatchOutOfMemoryError, match="tried batch sizes 4, 2, 1"):
        scorer.score_options(ITEMS, batch_size=4)
