"""Batches that back off on GPU out-of-memory instead of failing a run.

``map_batches`` runs a batch function over items in order, ``batch_size`` at a time. When a
batch raises ``torch.cuda.OutOfMemoryError`` the batch size halves (after the exception and
its frames are released, ``torch.cuda.empty_cache()`` returns the cached blocks when CUDA is
available) and the same items are tried again in smaller batches; the smaller size is kept for
every later batch (a size that ran out of memory once will do so again on the next long
prompts). When even one item does not fit, ``BatchOutOfMemoryError`` names the sizes tried.

On a CPU nothing raises that error: the function is then a plain loop over batches.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from worker.engines.errors import ModelConfigurationError

T = TypeVar("T")
R = TypeVar("R")


class BatchOutOfMemoryError(ModelConfigurationError):
    """Out of GPU memory at batch size 1: a retry cannot help (the model, its dtype or the
    prompt length must change), so the run fails at once with this message."""


def _release_cuda_memory() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def map_batches(
    function: Callable[[list[T]], list[R]],
    items: Sequence[T],
    *,
    batch_size: int,
) -> tuple[list[R], int]:
    """``function`` applied to consecutive batches of ``items`` (one result per item, in
    order) and the batch size that was used last (smaller than ``batch_size`` after an
    out-of-memory back-off; callers keep it for their next call)."""
    import torch

    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    results: list[R] = []
    size, tried = batch_size, [batch_size]
    start = 0
    while start < len(items):
        chunk = list(items[start : start + size])
        out_of_memory = False
        try:
            out = function(chunk)
        except torch.cuda.OutOfMemoryError:
            # Leave the except block first: the exception's traceback holds the frames (and
            # their tensors) of the failed batch until then.
            out_of_memory = True
        if out_of_memory:
            _release_cuda_memory()
            if size == 1:
                raise BatchOutOfMemoryError(
                    "out of GPU memory even with batch size 1 (tried batch sizes "
                    f"{', '.join(map(str, tried))}): use a smaller dtype (bfloat16), a larger "
                    "GPU or shorter prompts"
                )
            size = max(1, size // 2)
            tried.append(size)
            continue
        if len(out) != len(chunk):
            raise ValueError(f"batch function returned {len(out)} results for {len(chunk)} items")
        results.extend(out)
        start += len(chunk)
    return results, size
