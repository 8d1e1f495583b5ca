"""A job's heartbeat: progress and liveness written while the work runs.

`Heartbeat` beats from a thread with its own database connection (the worker case);
`InlineReporter` keeps the numbers and writes them at the end (a command, a test). Both turn a
cancelled job into JobCancelled at the work's next progress report. The watchdog
(apps/core/watchdog.py) re-queues a running job whose heartbeat stopped.
"""

from __future__ import annotations

import logging
import threading

from django.db import connections
from django.utils import timezone

from .models import Job

logger = logging.getLogger(__name__)


class JobCancelled(Exception):
    """Raised into the work when its job was cancelled; the run wrapper stops quietly (any
    transaction the work holds rolls back)."""


def job_progress(*, job_id: int, done: int, total: int | None = None, started_at=None) -> None:
    """Record progress (and a heartbeat), with the rate and ETA it implies. Raises
    JobCancelled if the job was cancelled meanwhile."""
    now = timezone.now()
    job = Job.objects.filter(pk=job_id).values("status", "started_at", "progress_total").first()
    if job is None:
        return
    if job["status"] == Job.Status.CANCELLED:
        raise JobCancelled(job_id)
    total = job["progress_total"] if total is None else total
    started = started_at or job["started_at"]
    elapsed = (now - started).total_seconds() if started else 0.0
    rate = done / elapsed if done and elapsed > 0 else None
    Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(
        progress_done=done,
        progress_total=total,
        rate=rate,
        eta_seconds=(max(total - done, 0) / rate) if rate else None,
        heartbeat_at=now,
    )


def job_heartbeat(*, job_id: int) -> bool:
    """Say the job is alive; False if it is no longer running (cancelled, finished)."""
    return bool(
        Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(heartbeat_at=timezone.now())
    )


class Heartbeat:
    """Beats a job's heartbeat from a thread with its own database connection while the work
    runs, so a long step (one COPY, one model call) never looks dead, and writes progress the
    work reported in memory: the work may hold its own connection in a long transaction or a
    COPY, and its progress is still visible to the page meanwhile. Sets `cancelled` when the
    job was cancelled, which the next report turns into JobCancelled."""

    def __init__(self, *, job_id: int, interval: float) -> None:
        self.job_id = job_id
        self.interval = interval
        self.cancelled = False
        self._pending: tuple[int, int | None] | None = None
        self._started_at = timezone.now()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"job-{job_id}-heartbeat")
        self._thread.daemon = True

    def report(self, done: int, total: int | None = None) -> None:
        if self.cancelled:
            raise JobCancelled(self.job_id)
        with self._lock:
            self._pending = (done, total)

    def _beat(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, None
        try:
            if pending is not None:
                job_progress(
                    job_id=self.job_id,
                    done=pending[0],
                    total=pending[1],
                    started_at=self._started_at,
                )
            elif not job_heartbeat(job_id=self.job_id):
                self.cancelled = Job.objects.filter(
                    pk=self.job_id, status=Job.Status.CANCELLED
                ).exists()
        except JobCancelled:
            self.cancelled = True
        except Exception:  # a missed beat is not worth killing the work for
            logger.warning("heartbeat of job %s failed", self.job_id, exc_info=True)

    def _loop(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                self._beat()
            self._beat()  # the last reported progress
        finally:
            connections.close_all()

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        self._thread.join(timeout=30)


class InlineReporter:
    """The progress reporter when no heartbeat thread runs (the work runs in the caller: a
    management command, a test). It only keeps the numbers, for the same reason as the
    heartbeat (the work may hold its connection in a COPY); they are written at the end."""

    def __init__(self, *, job_id: int) -> None:
        self.job_id = job_id
        self.pending: tuple[int, int | None] | None = None

    def report(self, done: int, total: int | None = None) -> None:
        self.pending = (done, total)

    def flush(self) -> None:
        if self.pending is not None:
            job_progress(job_id=self.job_id, done=self.pending[0], total=self.pending[1])
