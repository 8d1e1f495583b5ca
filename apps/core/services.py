"""The one job system: create, dispatch, run (with heartbeat and one retry policy), report
progress, cancel, resume and recover every background job. A job row is the source of truth;
each app describes its kinds in the registry (apps/core/registry.py).

Life of a job: job_create -> job_dispatch (after commit; an unreachable broker fails the job
with the reason) -> a worker's task calls job_run, which marks it running, beats its heartbeat
from a thread while the work runs and records the outcome. A worker that dies stops the
heartbeat; the watchdog (apps/core/watchdog.py, run in every worker and by
`manage.py jobs_recover`) re-queues the job, or fails it with the reason after
KASAUTI_JOB_MAX_RECOVERIES tries. The heartbeat and progress writes live in
apps/core/heartbeat.py.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import F
from django.utils import timezone

from .errors import BrokerUnavailable, ConflictError, KasautiError
from .heartbeat import (  # noqa: F401 (re-exported: the job API is apps.core.services)
    Heartbeat,
    InlineReporter,
    JobCancelled,
    job_heartbeat,
    job_progress,
    progress_apply,
    progress_baseline,
)
from .models import Job
from .registry import job_kind_get

if TYPE_CHECKING:
    from celery import Celery

logger = logging.getLogger(__name__)

# Worth retrying: the database or the network blinked. Anything else will fail the same way.
TRANSIENT_ERRORS = (OperationalError, InterfaceError, ConnectionError, TimeoutError)
MAX_RETRIES = 5


# --- create and dispatch ------------------------------------------------------------------


def job_create(
    *,
    kind: str,
    params: dict[str, Any],
    title: str = "",
    unit: str = "",
    created_by=None,
    parent: Job | None = None,
) -> Job:
    job_kind_get(kind)  # an unregistered kind is a programming error: fail loudly here
    return Job.objects.create(
        kind=kind,
        title=title[:200],
        params=params,
        progress_unit=unit,
        created_by=created_by,
        parent=parent,
    )


def celery_app() -> Celery:
    """The Celery app tasks are sent with (the project's, set up in kasauti/__init__.py)."""
    from celery import current_app

    return current_app


def broker_url() -> str:
    """The broker's address for messages, a password in it masked."""
    from kombu.utils.url import maybe_sanitize_url

    return maybe_sanitize_url(str(celery_app().conf.broker_url))


def task_send(
    *, job_id: int, name: str, args_list: Iterable[list[Any]], raise_unqueued: bool = True
) -> None:
    """Send tasks by name once the surrounding transaction commits (the worker never looks for
    rows that are not visible yet; services never import tasks).

    Fails fast when the broker cannot be reached (its connect timeout and
    CELERY_TASK_PUBLISH_RETRY_POLICY, about 2 s in all): the job is failed with the reason
    (its kind's `on_fail` undoes what it left behind: a stored upload, a queued run) and
    BrokerUnavailable is raised (a 503 from the API). No result store is involved: job rows
    hold every job's outcome, so tasks are sent with ignore_result. `raise_unqueued=False` is
    for a job queued as a side effect of another request (an approval that instantiates): that
    request succeeded, and the failed job tells the researcher."""
    args_list = [list(args) for args in args_list]

    def send() -> None:
        try:
            app = celery_app()
            for args in args_list:
                app.send_task(name, args=args, ignore_result=True)
        except Exception as exc:  # kombu raises several types for an unreachable broker
            logger.warning("could not queue %s for job %s: %r", name, job_id, exc)
            reason = (
                f"could not reach the task broker at {broker_url()} ({exc}); job #{job_id} "
                "was not queued and is marked failed: try again once the broker is up"
            )
            job_fail(job_id=job_id, error=reason)
            if raise_unqueued:
                raise BrokerUnavailable(reason, job_id=job_id) from exc

    transaction.on_commit(send)


def broker_check() -> str:
    """Whether the task broker can be reached: "ok", or why not (tried once, within the
    connect timeout)."""
    try:
        with celery_app().connection_for_write() as conn:
            conn.ensure_connection(
                max_retries=1, interval_start=0, interval_step=0.2, interval_max=0.2
            )
    except Exception as exc:
        return f"unreachable at {broker_url()}: {exc}"
    return "ok"


def database_check() -> str:
    """Whether the database answers a query: "ok", or why not."""
    from django.db import connection

    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:
        return f"unreachable: {exc}".strip()
    return "ok"


def health_check() -> dict[str, str]:
    """What /healthz reports: each dependency a request may need, "ok" or why not."""
    return {"database": database_check(), "broker": broker_check()}


def job_dispatch(*, job: Job, raise_unqueued: bool = True) -> Job:
    """Queue the job's task (its kind's `task`, called with the job id) after commit."""
    task_send(
        job_id=job.pk,
        name=job_kind_get(job.kind).task,
        args_list=[[job.pk]],
        raise_unqueued=raise_unqueued,
    )
    return job


# --- state changes ------------------------------------------------------------------------


def job_start(*, job_id: int, celery_task_id: str = "", worker: str = "") -> Job | None:
    """Mark a job running (and beat its heartbeat). Returns None if it already finished: a
    redelivered or recovered message of a job that is done is a no-op."""
    with transaction.atomic():
        job = Job.objects.select_for_update().get(pk=job_id)
        if job.is_finished:
            return None
        now = timezone.now()
        job.status = Job.Status.RUNNING
        job.started_at = job.started_at or now
        job.heartbeat_at = now
        job.attempts += 1
        job.celery_task_id = celery_task_id[:64]
        job.worker = worker[:200]
        job.progress_samples = []  # the rate is measured afresh in each attempt
        job.save(
            update_fields=[
                "status",
                "started_at",
                "heartbeat_at",
                "attempts",
                "celery_task_id",
                "worker",
                "progress_samples",
            ]
        )
    return job


def job_succeed(*, job_id: int, result: dict[str, Any]) -> bool:
    """Finish a running job. Only the first finisher wins: a duplicate run (a recovered job
    whose first worker was only slow) cannot overwrite the result."""
    return bool(
        Job.objects.filter(pk=job_id, status__in=(Job.Status.QUEUED, Job.Status.RUNNING)).update(
            status=Job.Status.SUCCEEDED,
            result=result,
            error="",
            progress_done=F("progress_total"),
            eta_seconds=0,
            finished_at=timezone.now(),
        )
    )


def job_fail(*, job_id: int, error: str) -> bool:
    """Fail an unfinished job with the reason (a finished one is left alone), then let its
    kind clean up (`on_fail`: what the job works on is failed too, stored files removed),
    whoever failed it: the work, the broker, the watchdog."""
    failed = bool(
        Job.objects.filter(pk=job_id, status__in=(Job.Status.QUEUED, Job.Status.RUNNING)).update(
            status=Job.Status.FAILED, error=error, eta_seconds=None, finished_at=timezone.now()
        )
    )
    if failed:
        logger.warning("job %s failed: %s", job_id, error)
        job = Job.objects.get(pk=job_id)
        kind = job_kind_get(job.kind, default=None)
        if kind is not None and kind.on_fail is not None:
            try:
                kind.on_fail(job)
            except Exception:  # the job is failed either way; say what was left
                logger.exception("job %s: its kind's on_fail hook failed", job_id)
    return failed


def job_cancel(*, job: Job) -> Job:
    """Stop a job. Running work sees it at its next progress report and stops (its open
    transaction rolls back); queued messages find it finished and do nothing."""
    with transaction.atomic():
        job = Job.objects.select_for_update().get(pk=job.pk)
        if job.is_finished:
            raise ConflictError(f"job #{job.pk} has already {job.status}; nothing to cancel")
        job.status = Job.Status.CANCELLED
        job.finished_at = timezone.now()
        job.eta_seconds = None
        job.save(update_fields=["status", "finished_at", "eta_seconds"])
        kind = job_kind_get(job.kind)
        if kind.on_cancel:
            kind.on_cancel(job)
    return job


def job_resume(*, job: Job) -> Job:
    """Give an unfinished or failed job another go: what it has done stays done (every kind's
    work is idempotent) and the rest is queued again. A cancelled job can be resumed too."""
    with transaction.atomic():
        job = Job.objects.select_for_update().get(pk=job.pk)
        if job.status == Job.Status.SUCCEEDED:
            raise ConflictError(f"job #{job.pk} has succeeded; nothing to resume")
        if job.status in (Job.Status.FAILED, Job.Status.CANCELLED):
            job.status = Job.Status.QUEUED if job.started_at is None else Job.Status.RUNNING
            job.error = ""
            job.finished_at = None
        job.heartbeat_at = timezone.now()
        job.save(update_fields=["status", "error", "finished_at", "heartbeat_at"])
        job_requeue(job=job)
    return job


def job_requeue(*, job: Job) -> None:
    """Queue an unfinished job again: its kind's resume hook, or its task."""
    kind = job_kind_get(job.kind)
    if kind.resume is not None:
        kind.resume(job)
    else:
        job_dispatch(job=job)


# --- running ------------------------------------------------------------------------------


Work = Callable[[Job, Callable[..., None]], dict[str, Any] | None]


def job_run(
    *,
    job_id: int,
    work: Work,
    task: Any = None,
    continues: bool = False,
) -> None:
    """The one run wrapper of every job task. Marks the job running (unless `continues`: a
    later step of a job already running, like a translation chunk), runs
    `work(job, report)` with the heartbeat beating, and records the outcome:
    * a dict result finishes the job (succeeded); None leaves it running for a later step;
    * a KasautiError fails the job with its message;
    * a transient database or network error is retried with backoff (MAX_RETRIES times), then
      fails the job; anything else fails it and is re-raised so the worker logs the traceback;
    * a cancelled job stops at the work's next progress report.
    `report(done, total=None)` records progress; call it per sub-batch."""
    celery_task_id = getattr(getattr(task, "request", None), "id", None) or ""
    if continues:
        job = Job.objects.filter(pk=job_id).first()
        if job is None or job.status != Job.Status.RUNNING:
            return  # cancelled, failed or done meanwhile: this step is not wanted
    else:
        worker = getattr(getattr(task, "request", None), "hostname", None) or ""
        job = job_start(job_id=job_id, celery_task_id=celery_task_id, worker=str(worker))
        if job is None:
            return
    # A worker process (not a direct call or an eager `apply`, which run in the caller and
    # its transaction): only there does a heartbeat thread with its own connection make sense.
    request = getattr(task, "request", None)
    in_worker = request is not None and not (request.called_directly or request.is_eager)
    interval = settings.KASAUTI_JOB_HEARTBEAT_SECONDS
    try:
        if in_worker and interval > 0:
            with Heartbeat(job_id=job_id, interval=interval) as beat:
                result = work(job, beat.report)
        else:
            reporter = InlineReporter(job_id=job_id)
            result = work(job, reporter.report)
            reporter.flush()
    except JobCancelled:
        logger.info("job %s was cancelled; stopped", job_id)
        return
    except KasautiError as exc:
        job_fail(job_id=job_id, error=str(exc))
        return
    except TRANSIENT_ERRORS as exc:
        retries = task.request.retries if in_worker else MAX_RETRIES
        if retries >= MAX_RETRIES:
            job_fail(job_id=job_id, error=f"gave up after {retries} retries: {exc!r}")
            raise
        logger.warning("job %s: transient error, retrying: %s", job_id, exc)
        raise task.retry(exc=exc, countdown=min(5 * 2**retries, 20)) from exc
    except Exception as exc:
        job_fail(job_id=job_id, error=f"{type(exc).__name__}: {exc}")
        raise
    if result is not None:
        job_succeed(job_id=job_id, result=result)
