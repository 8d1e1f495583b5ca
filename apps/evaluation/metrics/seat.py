"""SEAT: effect size and one-sided permutation test (IndiBias §5, Appendix B; May et al. 2019).

Plain Python + numpy: no Django, no ``apps`` imports. Inputs are sentence encodings as numpy
arrays of shape (n, dim): X and Y the two target sets (equal size), A and B the two attribute
sets.

Definitions (May et al. 2019, the reference implementation W4ngatang/sent-bias):

* s(w, A, B) = mean_a cos(w, a) − mean_b cos(w, b);
* s(X, Y, A, B) = Σ_x s(x, A, B) − Σ_y s(y, A, B);
* d = [mean_x s(x, A, B) − mean_y s(y, A, B)] / std_{w ∈ X∪Y} s(w, A, B), with the sample
  standard deviation (n − 1), as the reference code does;
* p = Pr[s(X_i, Y_i, A, B) ≥ s(X, Y, A, B)] over the equal-size partitions (X_i, Y_i) of X ∪ Y.

IndiBias Appendix B prints eqs. (1)–(2) as ratios (difference over sum); that is a typesetting
slip: the paper cites and follows May et al., whose statistic is the plain difference above,
and its Tables 3, 4, 9 (effect sizes around ±1) are only reachable with it. The paper writes
">" for the p-value; like the reference code we count equal statistics as well (the conservative
test), so the observed partition itself is always counted and p is never 0.

Since Σ_{X∪Y} s(w) is the same for every partition, s(X_i, Y_i) ≥ s(X, Y) iff
Σ_{x ∈ X_i} s(x) ≥ Σ_{x ∈ X} s(x); that sum is the statistic actually enumerated.

When C(2n, n) ≤ ``max_exact`` (default 100,000) every partition is enumerated; otherwise
``n_samples`` random partitions are drawn with a seeded generator, counting the observed
partition once more (as the reference code does: "we only have as much precision as the
number of samples drawn").
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass

import numpy as np

MAX_EXACT_PARTITIONS = 100_000
DEFAULT_SAMPLES = 100_000
# Relative tolerance when comparing partition sums with the observed one: the same set of
# numbers summed in another order may differ in the last bits.
_REL_TOL = 1e-12


@dataclass(frozen=True)
class SeatResult:
    effect_size: float | None  # None when every s(w, A, B) is equal (std 0): undefined
    p_value: float
    statistic: float  # s(X, Y, A, B)
    exact: bool
    n_partitions: int  # C(2n, n)
    n_evaluated: int  # partitions enumerated, or samples counted (incl. the observed one)
    n_targets: int
    n_attributes: tuple[int, int]

    def as_dict(self) -> dict:
        data = asdict(self)
        data["n_attributes"] = list(self.n_attributes)
        return data


def _unit_rows(matrix: np.ndarray, name: str) -> np.ndarray:
    array = np.asarray(matrix, dtype=np.float64)
    if array.ndim != 2 or array.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array (n, dim), got shape {array.shape}")
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise ValueError(f"{name} has a zero vector: cosine similarity is undefined")
    return array / norms


def association(W: np.ndarray, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """s(w, A, B) for every row w of W."""
    w, a, b = _unit_rows(W, "W"), _unit_rows(A, "A"), _unit_rows(B, "B")
    return (w @ a.T).mean(axis=1) - (w @ b.T).mean(axis=1)


def seat_test(
    X: np.ndarray,
    Y: np.ndarray,
    A: np.ndarray,
    B: np.ndarray,
    *,
    max_exact: int = MAX_EXACT_PARTITIONS,
    n_samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
) -> SeatResult:
    X = _unit_rows(X, "X")
    Y = _unit_rows(Y, "Y")
    A = _unit_rows(A, "A")
    B = _unit_rows(B, "B")
    if len(X) != len(Y):
        raise ValueError(f"X and Y must have the same size, got {len(X)} and {len(Y)}")
    if not X.shape[1] == Y.shape[1] == A.shape[1] == B.shape[1]:
        raise ValueError("X, Y, A and B must have the same dimension")
    n = len(X)
    s_w = association(np.vstack([X, Y]), A, B)
    s_x, s_y = s_w[:n], s_w[n:]
    statistic = float(s_x.sum() - s_y.sum())
    std = float(np.std(s_w, ddof=1)) if len(s_w) > 1 else 0.0
    effect = float((s_x.mean() - s_y.mean()) / std) if std > 0 else None

    observed = float(s_x.sum())
    threshold = observed - _REL_TOL * max(1.0, abs(observed))
    n_partitions = math.comb(2 * n, n)
    if n_partitions <= max_exact:
        hits = 0
        total = 0
        for chunk in _chunks(itertools.combinations(range(2 * n), n), 8192):
            sums = s_w[np.asarray(chunk)].sum(axis=1)
            hits += int(np.count_nonzero(sums >= threshold))
            total += len(chunk)
        return SeatResult(
            effect, hits / total, statistic, True, n_partitions, total, n, _sizes(A, B)
        )
    if n_samples < 2:
        raise ValueError(f"n_samples must be at least 2, got {n_samples}")
    rng = np.random.default_rng(seed)
    hits = 1  # the observed partition, counted once (reference implementation)
    total = 1
    remaining = n_samples - 1
    while remaining:
        batch = min(remaining, 8192)
        order = rng.random((batch, 2 * n)).argsort(axis=1)[:, :n]
        sums = s_w[order].sum(axis=1)
        hits += int(np.count_nonzero(sums >= threshold))
        total += batch
        remaining -= batch
    return SeatResult(effect, hits / total, statistic, False, n_partitions, total, n, _sizes(A, B))


def _sizes(A: np.ndarray, B: np.ndarray) -> tuple[int, int]:
    return (len(A), len(B))


def _chunks(iterator, size: int):
    while True:
        chunk = list(itertools.islice(iterator, size))
        if not chunk:
            return
        yield chunk
