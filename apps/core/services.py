"""Job bookkeeping. A job row is the source of truth for progress and outcome."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.utils import timezone

from .models import Job

logger = logging.getLogger(__name__)


def job_create(*, kind: str, params: dict[str, Any], created_by=None) -> Job:
    return Job.objects.create(kind=kind, params=params, created_by=created_by)


def job_dispatch(*, job: Job, task: Any) -> Job:
    """Send the job's task once the surrounding transaction has committed, so the worker never
    looks for a job row that is not visible yet. If the broker cannot be reached the job is
    marked failed with the reason instead of the request failing with a server error."""

    def send() -> None:
        try:
            task.delay(job.pk)
        except Exception as exc:  # kombu raises several types for an unreachable broker
            logger.exception("could not queue job %s", job.pk)
            job_fail(job_id=job.pk, error=f"could not reach the task broker: {exc}")

    transaction.on_commit(send)
    return job


def job_start(*, job_id: int, celery_task_id: str = "") -> Job | None:
    """Mark a job running. Returns None if it already finished (a redelivered task)."""
    with transaction.atomic():
        job = Job.objects.select_for_update().get(pk=job_id)
        if job.is_finished:
            return None
        job.status = Job.Status.RUNNING
        job.started_at = job.started_at or timezone.now()
        job.attempts += 1
        job.celery_task_id = celery_task_id
        job.save(update_fields=["status", "started_at", "attempts", "celery_task_id"])
    return job


def job_progress(*, job_id: int, done: int, total: int) -> None:
    Job.objects.filter(pk=job_id).update(progress_done=done, progress_total=total)


def job_succeed(*, job_id: int, result: dict[str, Any]) -> None:
    Job.objects.filter(pk=job_id).update(
        status=Job.Status.SUCCEEDED, result=result, error="", finished_at=timezone.now()
    )


def job_fail(*, job_id: int, error: str) -> None:
    Job.objects.filter(pk=job_id).update(
        status=Job.Status.FAILED, error=error, finished_at=timezone.now()
    )


def job_run(*, job_id: int, celery_task_id: str, work: Callable[[Job], dict[str, Any]]) -> None:
    """Run `work` for a job and record the outcome. Domain errors fail the job with their
    message; anything else fails it too and is re-raised so the worker logs the traceback."""
    from .errors import KasautiError

    job = job_start(job_id=job_id, celery_task_id=celery_task_id)
    if job is None:
        return
    try:
        result = work(job)
    except KasautiError as exc:
        job_fail(job_id=job_id, error=str(exc))
        return
    except Exception as exc:
        job_fail(job_id=job_id, error=f"{type(exc).__name__}: {exc}")
        raise
    job_succeed(job_id=job_id, result=result)
