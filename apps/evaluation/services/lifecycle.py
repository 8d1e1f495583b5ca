"""The one lifecycle of every evaluation run, whatever its kind (apps/evaluation/kinds.py).

A run's state lives on its core `Job` (EvaluationRun.status, .error and .finished_at read it):

* start: `evaluation_run_create` makes the run and its job in one transaction; the job is
  queued after commit (an unreachable broker fails the job at once);
* progress: the kind's work reports through `progress` (core writes it on the job; a
  cancelled job stops the work at its next report);
* finish: the job's task runs `evaluation_run_execute` (the kind's work,
  `EvaluationKind.execute`) in core's job_run, which marks the job succeeded with the work's
  result; runs scored item by item write their rows and results together at the end
  (`evaluation_run_finish`), so a stopped run never shows numbers;
* fail: core's job_run fails the job with the reason (a domain error's message; a transient
  error is retried first), and core's `job_fail` calls the kind's `JobKind.on_fail`, the one
  failure hook, whoever failed the job (the work, the broker, the watchdog);
* partial is derived, not stored: a failed or cancelled job whose run has predictions.

Imported predictions are scored when created (services/imports.py); their job is marked
succeeded in the same transaction, or is the background job that scored them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.db import transaction

from apps.catalog.models import Dataset
from apps.core.errors import KasautiError
from apps.core.services import job_create, job_dispatch
from worker.engines.errors import ModelConfigurationError

from ..models import EvaluationRun, ItemResult, ModelEntry
from ..registry import evaluation_kind_get

Progress = Callable[..., None]


class EvaluationInputError(KasautiError):
    """The run cannot be made from what was asked (wrong model kind, no items...)."""


def model_kind_require(*, model: ModelEntry | None, kinds: Iterable[str], what: str) -> None:
    """`model` is one of `kinds` (ModelKind values), or the run cannot be made."""
    kinds = tuple(kinds)
    if model is None:
        raise EvaluationInputError(f"{what} needs a model ({' or '.join(kinds)})")
    if model.kind not in kinds:
        raise EvaluationInputError(
            f"{what} needs a model of kind {' or '.join(kinds)}; {model.name!r} is {model.kind}"
        )


def evaluation_run_create(
    *,
    kind: str,
    dataset: Dataset,
    model: ModelEntry | None,
    model_label: str,
    params: dict[str, Any],
    title: str,
    unit: str,
    created_by=None,
    **fields: Any,
) -> EvaluationRun:
    """A run of `kind` and its queued job (after commit). `fields`: the run's other columns
    (release, prompt template, shots...)."""
    job_kind = evaluation_kind_get(kind).job_kind
    with transaction.atomic():
        run = EvaluationRun.objects.create(
            kind=kind,
            dataset=dataset,
            model=model,
            model_label=model_label,
            params=params,
            created_by=created_by if getattr(created_by, "pk", None) else None,
            **fields,
        )
        job = job_create(
            kind=job_kind.name,
            params={"run_id": run.pk},
            title=title,
            unit=unit,
            created_by=run.created_by,
        )
        run.job = job
        run.save(update_fields=["job"])
        job_dispatch(job=job)
    return run


def evaluation_run_execute(*, run: EvaluationRun, progress: Progress, **options: Any) -> dict:
    """The work of a run's job (called by core's job_run in the job's task, which records the
    outcome on the job): its kind's `execute`, with `options` (a test's stand-in generator).
    An engine configuration problem becomes a domain error: the job fails with its message
    instead of being retried."""
    try:
        return evaluation_kind_get(run.kind).execute_run(run=run, progress=progress, **options)
    except ModelConfigurationError as exc:
        raise EvaluationInputError(str(exc)) from exc


def evaluation_run_finish(
    *,
    run: EvaluationRun,
    results: dict[str, Any],
    model_info: dict[str, Any],
    items: list[ItemResult],
) -> None:
    """Store a run's item rows and results together (replacing those of an earlier attempt):
    until then the run has none."""
    with transaction.atomic():
        ItemResult.objects.filter(run=run).delete()
        for item in items:
            item.run = run
        ItemResult.objects.bulk_create(items, batch_size=1000)
        run.results = results
        run.model_info = model_info
        run.save(update_fields=["results", "model_info"])


def evaluation_run_delete(*, run: EvaluationRun) -> None:
    if run.job_id and not run.job.is_finished:
        raise KasautiError(f"run {run.pk} is still running: cancel its job first")
    with transaction.atomic():
        run.delete()
