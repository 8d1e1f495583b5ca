"""SEAT effect size and permutation test: a hand-computed 4 + 4 case."""

from __future__ import annotations

import math

import numpy as np
import pytest

from apps.evaluation.metrics.seat import association, seat_test

# With A = {(1, 0)} and B = {(0, 1)}, s(w, A, B) = cos θ − sin θ for a unit vector w at θ.
A = np.array([[1.0, 0.0]])
B = np.array([[0.0, 1.0]])
X = np.array([[1.0, 0.0], [0.8, 0.6], [0.6, 0.8], [1.0, 0.0]])  # s = 1, 0.2, -0.2, 1
Y = np.array([[0.0, 1.0], [0.6, 0.8], [0.8, 0.6], [0.0, 1.0]])  # s = -1, -0.2, 0.2, -1


def test_association_by_hand():
    assert association(X, A, B) == pytest.approx([1.0, 0.2, -0.2, 1.0])
    assert association(Y * 3, A, B) == pytest.approx([-1.0, -0.2, 0.2, -1.0])  # scale-free


def test_exact_permutation_test_over_4_plus_4_words():
    result = seat_test(X, Y, A, B)
    assert result.exact is True
    assert result.n_partitions == 70 == result.n_evaluated
    assert result.statistic == pytest.approx(4.0)
    # d = (0.5 - (-0.5)) / stdev([1, .2, -.2, 1, -1, -.2, .2, -1]) with n - 1 = 7.
    assert result.effect_size == pytest.approx(1.0 / math.sqrt(4.16 / 7))
    # Subsets of four with sum >= 2.0: {1, 1, .2, .2} once and {1, 1, .2, -.2} 2 x 2 = 4 ways.
    assert result.p_value == pytest.approx(5 / 70)


def test_swapping_targets_flips_the_sign_and_the_tail():
    result = seat_test(Y, X, A, B)
    assert result.effect_size == pytest.approx(-1.0 / math.sqrt(4.16 / 7))
    # Now the observed sum is -2.0; every subset reaches it except {-1, -1, -.2, -.2}: 69 / 70.
    assert result.p_value == pytest.approx(69 / 70)


def test_sampled_permutation_test_is_seeded_and_close_to_exact():
    a = seat_test(X, Y, A, B, max_exact=10, n_samples=20_000, seed=1)
    b = seat_test(X, Y, A, B, max_exact=10, n_samples=20_000, seed=1)
    assert a.exact is False and a.n_evaluated == 20_000
    assert a.p_value == b.p_value
    assert a.p_value == pytest.approx(5 / 70, abs=0.01)
    assert a.effect_size == pytest.approx(seat_test(X, Y, A, B).effect_size)


def test_large_target_sets_switch_to_sampling():
    rng = np.random.default_rng(0)
    X14, Y14 = rng.normal(size=(14, 8)), rng.normal(size=(14, 8))
    A5, B5 = rng.normal(size=(5, 8)), rng.normal(size=(5, 8))
    result = seat_test(X14, Y14, A5, B5, n_samples=5_000)
    assert result.exact is False and result.n_partitions == math.comb(28, 14)
    assert 0 < result.p_value <= 1


def test_unequal_target_sizes_are_rejected():
    with pytest.raises(ValueError, match="same size"):
        seat_test(X, Y[:3], A, B)


def test_constant_associations_give_undefined_effect_size():
    result = seat_test(X[:1].repeat(2, 0), X[:1].repeat(2, 0), A, B)
    assert result.effect_size is None
    assert result.p_value == 1.0
