"""The watchdog: a running job whose heartbeat stopped (its worker died) is re-queued, or
failed with the reason after KASAUTI_JOB_MAX_RECOVERIES tries. Every worker runs it in a
thread (apps/core/tasks.py); `manage.py jobs_recover` runs one pass from cron."""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

from django.conf import settings
from django.db import connections, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from .errors import BrokerUnavailable
from .heartbeat import heartbeat_file_fresh
from .models import Job
from .services import job_fail, job_requeue

logger = logging.getLogger(__name__)


def jobs_recover(*, stale_after: timedelta | None = None, include_queued: bool = False) -> dict:
    """Find jobs whose heartbeat stopped (their worker died) and re-queue them, or fail them
    with the reason once they have been recovered KASAUTI_JOB_MAX_RECOVERIES times. With
    `include_queued`, jobs queued for longer than `stale_after` are queued again too (at worker
    start: a message may have died with the previous worker). Safe to run from several workers
    at once: each job is taken under a row lock that the others skip."""
    if stale_after is None:
        stale_after = timedelta(seconds=settings.KASAUTI_JOB_STALE_SECONDS)
    cutoff = timezone.now() - stale_after
    stale = Q(status=Job.Status.RUNNING) & (
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, started_at__lt=cutoff)
    )
    if include_queued:
        stale |= Q(status=Job.Status.QUEUED, created_at__lt=cutoff) & (
            Q(heartbeat_at__isnull=True) | Q(heartbeat_at__lt=cutoff)
        )
    # A parent waiting for its parts beats no heartbeat of its own: it is alive while any part
    # is queued or running (each part is watched by its own heartbeat).
    stale &= ~Q(
        Exists(
            Job.objects.filter(
                parent=OuterRef("pk"), status__in=(Job.Status.QUEUED, Job.Status.RUNNING)
            )
        )
    )
    outcome: dict[str, list[int]] = {"requeued": [], "failed": []}
    for job_id in list(Job.objects.filter(stale).values_list("id", flat=True)[:100]):
        if heartbeat_file_fresh(job_id=job_id, seconds=stale_after.total_seconds()):
            # SQLite: the job's work holds the write lock, so its heartbeat reaches only its
            # file (apps/core/heartbeat.py). Checked before our transaction, which would wait
            # for that lock.
            continue
        try:
            with transaction.atomic():
                job = (
                    Job.objects.select_for_update(skip_locked=True)
                    .filter(Q(pk=job_id) & stale)
                    .first()
                )
                if job is None:
                    continue  # another watchdog has it, or it came back to life
                seconds = int(stale_after.total_seconds())
                if job.recoveries >= settings.KASAUTI_JOB_MAX_RECOVERIES:
                    job_fail(
                        job_id=job.pk,
                        error=(
                            f"the worker running this job stopped (no heartbeat for {seconds} s) "
                            f"{job.recoveries + 1} times; gave up. Resume it when workers are "
                            "healthy."
                        ),
                    )
                    outcome["failed"].append(job.pk)
                    continue
                job.recoveries += 1
                job.heartbeat_at = timezone.now()  # the others leave it alone for a while
                job.save(update_fields=["recoveries", "heartbeat_at"])
                logger.warning(
                    "job %s: no heartbeat for %s s (worker lost?); re-queued (recovery %s)",
                    job.pk,
                    seconds,
                    job.recoveries,
                )
                job_requeue(job=job)  # sent when this transaction commits
            outcome["requeued"].append(job_id)
        except BrokerUnavailable:
            # task_send failed the job with the broker's reason; the others still get theirs.
            outcome["failed"].append(job_id)
    return outcome


class Watchdog:
    """Runs jobs_recover every few seconds in a daemon thread of a worker process: recovery
    does not depend on the broker's visibility timeout or on anyone pressing a button."""

    def __init__(self, *, interval: float) -> None:
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="job-watchdog", daemon=True)

    def start(self) -> Watchdog:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _loop(self) -> None:
        first = True
        while not self._stop.is_set():
            try:
                jobs_recover(include_queued=first)
                first = False
            except Exception:
                logger.exception("job watchdog pass failed")
            finally:
                connections.close_all()
            self._stop.wait(self.interval)
