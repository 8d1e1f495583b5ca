"""The metric keys are defined once, next to the formulas; pages and CSVs derive from them."""

from __future__ import annotations

from apps.evaluation.metrics.bbq import (
    BOUND_KEYS,
    METRIC_KEYS,
    METRIC_NAMES,
    SCORE_KEYS,
    SIGNED_KEYS,
    bbq_scores,
)

COUNTS = {"n_amb", "n_dis", "n_np", "n_nnp", "n_unanswered", "n_roles_unclear", "undefined"}


def test_score_keys_are_every_figure_bbq_scores_returns():
    figures = set(bbq_scores([])) - COUNTS
    assert figures == set(SCORE_KEYS) and len(SCORE_KEYS) == len(figures)
    assert set(METRIC_KEYS) | set(BOUND_KEYS) == set(SCORE_KEYS)
    assert set(METRIC_KEYS) >= SIGNED_KEYS and list(METRIC_NAMES) == list(METRIC_KEYS)


def test_tables_and_csvs_show_the_metric_keys_in_their_order():
    from apps.evaluation import selectors

    assert [key for key, _ in selectors.METRICS] == list(METRIC_KEYS)
    results = {"overall": {"n_amb": 1, "n_dis": 1, **dict.fromkeys(METRIC_KEYS, 0.5)}}

    class Run:
        pass

    run = Run()
    run.results = results
    header = selectors.run_metrics_csv(run=run).splitlines()[0].split(",")
    assert header[5:] == list(METRIC_KEYS)
