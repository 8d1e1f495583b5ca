"""Reads of the evaluation app: runs, predictions, result tables, heat maps, comparisons."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Any

import django_filters
from django.db.models import Exists, OuterRef, Q, QuerySet

from apps.core.models import Job

from .metrics.bbq import METRIC_KEYS, METRIC_NAMES, SIGNED_KEYS
from .models import (
    STATUS_OF_JOB,
    EvaluationRun,
    ModelEntry,
    Prediction,
    PromptTemplate,
    RunKind,
    RunStatus,
)

# The metrics' columns, in order, with their names: derived from the one definition next to
# the formulas (apps/evaluation/metrics/bbq.py).
METRICS = tuple((key, METRIC_NAMES[key]) for key in METRIC_KEYS)
# The metrics drawn as heat maps on a run's page and as bars on the models page.
HEAT_MAP_METRICS = ("acc_a", "acc_d", "bs_a", "bs_d", "sbs_a", "sbs_d")


def model_entry_list() -> QuerySet[ModelEntry]:
    return ModelEntry.objects.select_related("created_by").order_by("name")


def prompt_template_list() -> QuerySet[PromptTemplate]:
    return PromptTemplate.objects.all()


def run_list() -> QuerySet[EvaluationRun]:
    """Runs with their job (where their status lives) and whether any item was scored (what
    tells a partial run from a failed one), newest first."""
    return (
        EvaluationRun.objects.select_related(
            "dataset", "release", "model", "job", "created_by", "prompt_template"
        )
        .annotate(scored=Exists(Prediction.objects.filter(run=OuterRef("pk"))))
        .order_by("-created_at", "-id")
    )


def _status_q(status: str) -> Q:
    """The runs whose status (EvaluationRun.status, read from the job) is `status`."""
    stopped = Q(job__status__in=(Job.Status.FAILED, Job.Status.CANCELLED))
    if status == RunStatus.PARTIAL:
        return stopped & Q(scored=True)
    if status == RunStatus.FAILED:
        return stopped & Q(scored=False)
    job_statuses = [job for job, run in STATUS_OF_JOB.items() if run == status]
    q = Q(job__status__in=job_statuses)
    return q | Q(job__isnull=True) if status == RunStatus.QUEUED else q


class RunFilter(django_filters.FilterSet):
    kind = django_filters.ChoiceFilter(choices=RunKind.choices)
    status = django_filters.ChoiceFilter(choices=RunStatus.choices, method="filter_status")
    dataset = django_filters.NumberFilter(field_name="dataset_id")
    release = django_filters.NumberFilter(field_name="release_id")
    model = django_filters.NumberFilter(field_name="model_id")

    class Meta:
        model = EvaluationRun
        fields = ["kind", "status", "dataset", "release", "model"]

    def filter_status(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(_status_q(value))


def scored_by_prediction_kinds() -> list[str]:
    """The kinds whose runs store a Prediction per item and have BBQ-style metrics."""
    from .registry import evaluation_kinds

    return [kind.name for kind in evaluation_kinds() if kind.scored_by_prediction]


def run_get(*, run_id: int) -> EvaluationRun | None:
    return run_list().filter(pk=run_id).first()


def bbq_results_context(*, run: EvaluationRun) -> dict[str, Any]:
    """The run page's BBQ-style results section (empty until the run has results): overall
    figures, heat maps, the category x language x condition and noun-type tables."""
    results = run.results or {}
    if not results.get("overall"):
        return {}
    return {
        "overall": [
            (label, results["overall"].get(key), (results["overall"].get("undefined") or {}))
            for key, label in METRICS
        ],
        "metric_labels": [label for _, label in METRICS],
        "heat_maps": [heat_map(results, metric) for metric in HEAT_MAP_METRICS],
        "by_condition": metric_table(results, "by_category_language_condition"),
        "by_noun": metric_table(results, "by_category_noun_type"),
        "noun_overall": [
            {
                "noun_type": noun,
                "n_amb": scores.get("n_amb"),
                "n_dis": scores.get("n_dis"),
                "values": [(key, scores.get(key)) for key in METRIC_KEYS],
            }
            for noun, scores in (results.get("by_noun_type") or {}).items()
        ],
    }


def run_predictions(*, run: EvaluationRun) -> QuerySet[Prediction]:
    return (
        Prediction.objects.filter(run=run)
        .select_related("instance", "instance__category")
        .order_by("id")
    )


PREDICTION_COLUMNS = [
    "instance_id",
    "item_key",
    "category",
    "language",
    "context_condition",
    "question_polarity",
    "label",
    "chosen",
    "correct",
    "raw",
    "sum_logprob_0",
    "sum_logprob_1",
    "sum_logprob_2",
    "mean_logprob_0",
    "mean_logprob_1",
    "mean_logprob_2",
]


def prediction_row(prediction: Prediction) -> dict[str, Any]:
    instance = prediction.instance
    sums = list(prediction.sum_logprobs or []) + [None] * 3
    means = list(prediction.mean_logprobs or []) + [None] * 3
    return {
        "instance_id": instance.pk,
        "item_key": prediction.item_key,
        "category": instance.category.name,
        "language": instance.language,
        "context_condition": instance.context_condition,
        "question_polarity": instance.question_polarity,
        "label": instance.label,
        "chosen": prediction.chosen,
        "correct": None if prediction.chosen is None else prediction.chosen == instance.label,
        "raw": prediction.raw,
        **{f"sum_logprob_{i}": sums[i] for i in range(3)},
        **{f"mean_logprob_{i}": means[i] for i in range(3)},
    }


def run_predictions_csv(*, run: EvaluationRun) -> Iterator[str]:
    """The run's predictions as CSV text, streamed in pieces."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=PREDICTION_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for index, prediction in enumerate(run_predictions(run=run).iterator(chunk_size=2000)):
        writer.writerow(prediction_row(prediction))
        if index % 500 == 499:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def _number(value: Any) -> str:
    return "" if value is None else f"{value:.6g}"


def run_metrics_csv(*, run: EvaluationRun) -> str:
    """One row per category x language x context condition (plus overall), every figure."""
    results = run.results or {}
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["category", "language", "context_condition", "n_amb", "n_dis", *METRIC_KEYS])
    overall = results.get("overall") or {}
    if overall:
        writer.writerow(
            ["(all)", "(all)", "(all)", overall.get("n_amb"), overall.get("n_dis")]
            + [_number(overall.get(key)) for key in METRIC_KEYS]
        )
    for row in results.get("by_category_language_condition") or []:
        writer.writerow(
            [row["category"], row["language"], row["context_condition"]]
            + [row.get("n_amb"), row.get("n_dis")]
            + [_number(row.get(key)) for key in METRIC_KEYS]
        )
    return buffer.getvalue()


def metric_table(results: dict[str, Any], group: str) -> list[dict[str, Any]]:
    """Rows for a page table: {label..., n_amb, n_dis, values: [(key, value)]}."""
    rows = []
    for row in results.get(group) or []:
        rows.append(
            {
                **row,
                "values": [(key, row.get(key)) for key in METRIC_KEYS],
            }
        )
    return rows


def _colour(value: float | None, signed: bool) -> str:
    """A diverging (bias, -1..1) or sequential (accuracy, 0..1) fill; grey when undefined."""
    if value is None:
        return "#e5e5e5"
    if signed:
        v = max(-1.0, min(1.0, value))
        # blue (-) -> white (0) -> red (+)
        if v >= 0:
            r, g, b = 255, int(255 * (1 - v)), int(255 * (1 - v))
        else:
            r, g, b = int(255 * (1 + v)), int(255 * (1 + v)), 255
    else:
        v = max(0.0, min(1.0, value))
        r, g, b = int(255 - 200 * v), int(255 - 90 * v), int(255 - 200 * v)
    return f"#{r:02x}{g:02x}{b:02x}"


def heat_map(results: dict[str, Any], metric: str) -> dict[str, Any]:
    """Category x language grid of one metric (like BharatBBQ Fig. 7), with fills."""
    rows = results.get("by_category_language") or []
    categories = sorted({row["category"] for row in rows})
    languages = sorted({row["language"] for row in rows})
    cells = {(row["category"], row["language"]): row for row in rows}
    signed = metric in SIGNED_KEYS
    grid = []
    for category in categories:
        line = []
        for language in languages:
            row = cells.get((category, language))
            value = row.get(metric) if row else None
            line.append(
                {
                    "language": language,
                    "value": value,
                    "fill": _colour(value, signed),
                    "n": (row.get("n_amb", 0) + row.get("n_dis", 0)) if row else 0,
                    "reason": ((row or {}).get("undefined") or {}).get(metric, ""),
                }
            )
        grid.append({"category": category, "cells": line})
    return {
        "metric": metric,
        "label": dict(METRICS)[metric],
        "languages": languages,
        "rows": grid,
        "signed": signed,
        "cell_width": 90,
        "cell_height": 28,
        "label_width": 170,
        "width": 170 + 90 * len(languages),
        "height": 30 + 28 * len(categories),
    }


def runs_compare(*, runs: list[EvaluationRun]) -> dict[str, Any]:
    """The overall figures and the per-category figures of several runs side by side."""
    categories = sorted(
        {category for run in runs for category in ((run.results or {}).get("by_category") or {})}
    )
    overall = [
        {
            "key": key,
            "label": label,
            "values": [((run.results or {}).get("overall") or {}).get(key) for run in runs],
        }
        for key, label in METRICS
    ]
    by_category = [
        {
            "category": category,
            "metrics": [
                {
                    "key": key,
                    "label": label,
                    "values": [
                        (((run.results or {}).get("by_category") or {}).get(category) or {}).get(
                            key
                        )
                        for run in runs
                    ],
                }
                for key, label in METRICS
            ],
        }
        for category in categories
    ]
    return {
        "runs": [
            {"id": run.pk, "model": run.model_label, "status": run.status, "shots": run.shots}
            for run in runs
        ],
        "overall": overall,
        "by_category": by_category,
    }


def model_bars(*, runs: list[EvaluationRun], metric: str) -> dict[str, Any]:
    """Per-model horizontal bars of one overall metric (the latest complete run per model)."""
    latest: dict[str, EvaluationRun] = {}
    for run in runs:
        if run.is_complete and run.model_label not in latest:
            latest[run.model_label] = run
    bars = []
    for label, run in latest.items():
        value = ((run.results or {}).get("overall") or {}).get(metric)
        bars.append({"model": label, "run": run.pk, "value": value})
    signed = metric in SIGNED_KEYS
    half = 150
    for index, bar in enumerate(bars):
        value = bar["value"]
        bar["y"] = 10 + index * 26
        if value is None:
            bar["x"], bar["width"] = half if signed else 0, 0
        elif signed:
            v = max(-1.0, min(1.0, value))
            bar["x"], bar["width"] = (half, v * half) if v >= 0 else (half + v * half, -v * half)
        else:
            bar["x"], bar["width"] = 0, max(0.0, min(1.0, value)) * 2 * half
        bar["fill"] = _colour(value, signed)
    return {
        "metric": metric,
        "label": dict(METRICS)[metric],
        "bars": bars,
        "signed": signed,
        "height": 20 + 26 * max(len(bars), 1),  # room for the "no runs" line
    }
