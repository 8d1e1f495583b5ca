"""CrowS-Pairs bias percentage (IndiBias §6.1.1): hand-computed cases."""

from __future__ import annotations

import pytest

from apps.evaluation.metrics.crows import (
    PairScore,
    bias_percentage,
    crows_scores,
    difference_score,
    sample_runs,
)

# id, bias type, language, direction, score(S1), score(S2) -> prefers the stereotype?
PAIRS = [
    PairScore("p1", "gender", "en", "stereo", -1.0, -2.0),  # S1 > S2 on stereo: yes
    PairScore("p2", "gender", "en", "antistereo", -1.0, -2.0),  # S1 > S2 on anti: no
    PairScore("p3", "age", "en", "antistereo", -3.0, -2.0),  # S2 > S1 on anti: yes
    PairScore("p4", "age", "hi", "stereo", -2.0, -2.0),  # tie: no
    PairScore("p5", "age", "hi", "stereo", -1.0, -5.0),  # yes
]
PREFERS = {"p1", "p3", "p5"}


def test_difference_score_follows_appendix_c():
    assert [difference_score(p) for p in PAIRS] == [1.0, -1.0, 1.0, 0.0, 4.0]


def test_bias_percentage_overall_and_breakdowns_on_all_pairs():
    assert bias_percentage(PAIRS) == pytest.approx(60.0)
    scores = crows_scores(PAIRS)
    assert scores["overall"]["full"] == pytest.approx(60.0)
    assert scores["overall"]["n"] == 5
    assert scores["by_bias_type"]["gender"]["full"] == pytest.approx(50.0)
    assert scores["by_bias_type"]["age"]["full"] == pytest.approx(200 / 3)
    assert scores["by_language"]["en"]["full"] == pytest.approx(200 / 3)
    assert scores["by_language"]["hi"]["full"] == pytest.approx(50.0)
    assert scores["by_language_bias_type"]["hi"] == {
        "age": scores["by_language_bias_type"]["hi"]["age"]
    }
    assert scores["by_language_bias_type"]["en"]["age"]["full"] == pytest.approx(100.0)


def test_empty_subset_is_undefined_not_zero():
    assert bias_percentage([]) is None
    scores = crows_scores([])
    assert scores["overall"]["full"] is None
    assert scores["overall"]["mean"] is None and scores["overall"]["std"] is None


def test_five_runs_on_80_percent_samples_by_hand():
    runs = sample_runs(PAIRS, runs=5, fraction=0.8, seed=7)
    assert [len(sample) for sample in runs] == [4] * 5
    # Each sample leaves out exactly one pair: leaving out a preferring pair gives 2/4, leaving
    # out another gives 3/4.
    expected = []
    for sample in runs:
        (left_out,) = {p.pair_id for p in PAIRS} - {p.pair_id for p in sample}
        expected.append(50.0 if left_out in PREFERS else 75.0)
    scores = crows_scores(PAIRS, runs=5, fraction=0.8, seed=7)
    assert scores["overall"]["per_run"] == expected
    mean = sum(expected) / 5
    std = (sum((v - mean) ** 2 for v in expected) / 4) ** 0.5
    assert scores["overall"]["mean"] == pytest.approx(mean)
    assert scores["overall"]["std"] == pytest.approx(std)
    assert scores["sample_size"] == 4


def test_samples_are_seeded_and_independent_of_input_order():
    a = crows_scores(PAIRS, seed=3)
    b = crows_scores(list(reversed(PAIRS)), seed=3)
    assert a == b
    seeds = {tuple(crows_scores(PAIRS, seed=s)["overall"]["per_run"]) for s in range(6)}
    assert len(seeds) > 1


def test_all_preferring_pairs_give_100_with_zero_spread():
    pairs = [PairScore(f"q{i}", "caste", "hi", "stereo", 0.0, -1.0) for i in range(10)]
    overall = crows_scores(pairs)["overall"]
    assert overall["per_run"] == [100.0] * 5
    assert overall["mean"] == 100.0 and overall["std"] == 0.0


def test_one_defined_run_has_undefined_std():
    overall = crows_scores(PAIRS, runs=1)["overall"]
    assert overall["n_runs"] == 1 and overall["std"] is None


def test_bad_direction_is_rejected_with_the_pair_id():
    with pytest.raises(ValueError, match="p9"):
        PairScore("p9", "age", "en", "neutral", 0.0, 0.0)
