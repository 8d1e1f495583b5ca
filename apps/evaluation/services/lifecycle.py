"""What the CrowS-Pairs, SEAT and IndiCASA runs share: creating the run with its job, marking
it running, failed or complete, and turning engine configuration errors into domain errors.

A run's results and item rows are written together, in one transaction, only when the whole
run has been computed: a failed or cancelled run never shows partial numbers as complete.
Re-running the job (a redelivered message, a resume) starts over and replaces the item rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import contextmanager
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.catalog.models import Dataset
from apps.core.errors import KasautiError
from apps.core.heartbeat import JobCancelled
from apps.core.services import job_create, job_dispatch
from worker.engines.errors import ModelConfigurationError

from ..models import EvaluationRun, ItemResult, ModelEntry, RunStatus

Progress = Callable[..., None]


class EvaluationInputError(KasautiError):
    """The run cannot be made from what was asked (wrong model kind, no items...)."""


def bias_run_create(
    *,
    kind: str,
    job_kind: str,
    dataset: Dataset,
    model: ModelEntry | None,
    model_label: str,
    params: dict[str, Any],
    title: str,
    unit: str,
    created_by=None,
) -> EvaluationRun:
    with transaction.atomic():
        run = EvaluationRun.objects.create(
            kind=kind,
            dataset=dataset,
            model=model,
            model_label=model_label,
            params=params,
            created_by=created_by if getattr(created_by, "pk", None) else None,
        )
        job = job_create(
            kind=job_kind,
            params={"run_id": run.pk},
            title=title,
            unit=unit,
            created_by=run.created_by,
        )
        run.job = job
        run.save(update_fields=["job"])
        job_dispatch(job=job)
    return run


def require_model_kind(model: ModelEntry | None, kinds: Iterable[str], what: str) -> None:
    kinds = tuple(kinds)
    if model is None:
        raise EvaluationInputError(f"{what} needs a model ({' or '.join(kinds)})")
    if model.kind not in kinds:
        raise EvaluationInputError(
            f"{what} needs a model of kind {' or '.join(kinds)}; {model.name!r} is {model.kind}"
        )


@contextmanager
def bias_run_executing(*, run: EvaluationRun):
    """Mark the run running for the body; a failure marks it failed with the reason (and the
    exception goes on to the job wrapper). A model configuration problem becomes a domain
    error, so the job fails with its message instead of being retried."""
    EvaluationRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING, error="")
    try:
        try:
            yield
        except ModelConfigurationError as exc:
            raise EvaluationInputError(str(exc)) from exc
    except Exception as exc:
        if isinstance(exc, JobCancelled):
            error = "Cancelled before it finished; no results were stored."
        else:
            error = f"{exc}"[:2000]
        EvaluationRun.objects.filter(pk=run.pk).update(
            status=RunStatus.FAILED, error=error, finished_at=timezone.now()
        )
        raise


def bias_run_finish(
    *,
    run: EvaluationRun,
    results: dict[str, Any],
    model_info: dict[str, Any],
    items: list[ItemResult],
) -> None:
    with transaction.atomic():
        ItemResult.objects.filter(run=run).delete()
        for item in items:
            item.run = run
        ItemResult.objects.bulk_create(items, batch_size=1000)
        run.results = results
        run.model_info = model_info
        run.status = RunStatus.COMPLETE
        run.error = ""
        run.finished_at = timezone.now()
        run.save(update_fields=["results", "model_info", "status", "error", "finished_at"])
