"""A job's heartbeat: progress and liveness written while the work runs.

`Heartbeat` beats from a thread with its own database connection (the worker case);
`InlineReporter` keeps the numbers and writes them at the end (a command, a test). Both turn a
cancelled job into JobCancelled at the work's next progress report. The watchdog
(apps/core/watchdog.py) re-queues a running job whose heartbeat stopped.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from django.conf import settings
from django.db import OperationalError, connection, connections
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


def heartbeat_file(*, job_id: int) -> Path | None:
    """On SQLite, where the job's heartbeat also lives: a file next to the database, touched on
    every beat. SQLite has one writer: a job whose work holds the write lock (a long
    transaction) cannot update its own Job row, and a stale heartbeat_at would make the
    watchdog re-queue a job that is alive. Every process sharing the SQLite file is on this
    machine, so the file's mtime is a liveness signal the watchdog can read without the lock.
    None on other databases (their heartbeat writes are never blocked by the job's own)."""
    database = settings.DATABASES["default"]
    if "sqlite" not in database["ENGINE"]:
        return None
    name = Path(str(database["NAME"]))
    return name.parent / f"{name.name}.heartbeats" / f"job-{job_id}"


def heartbeat_file_fresh(*, job_id: int, seconds: float) -> bool:
    """True if the job's heartbeat file (SQLite) was touched within the last `seconds`."""
    path = heartbeat_file(job_id=job_id)
    try:
        return path is not None and time.time() - path.stat().st_mtime < seconds
    except FileNotFoundError:
        return False


class Heartbeat:
    """Beats a job's heartbeat from a thread with its own database connection while the work
    runs, so a long step (one COPY, one model call) never looks dead, and writes progress the
    work reported in memory: the work may hold its own connection in a long transaction or a
    COPY, and its progress is still visible to the page meanwhile. Sets `cancelled` when the
    job was cancelled, which the next report turns into JobCancelled. On SQLite it also touches
    the job's heartbeat_file first, and waits for the write lock at most one interval: the
    work's own transaction may hold it for minutes (see heartbeat_file)."""

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
        self._file = heartbeat_file(job_id=job_id)

    def report(self, done: int, total: int | None = None) -> None:
        if self.cancelled:
            raise JobCancelled(self.job_id)
        with self._lock:
            self._pending = (done, total)

    def _beat(self) -> None:
        if self._file is not None:
            self._file.touch()
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
        except OperationalError:
            if self._file is None:
                logger.warning("heartbeat of job %s failed", self.job_id, exc_info=True)
            else:  # SQLite, locked by the work's own transaction: the file says we are alive
                with self._lock:  # write the progress at the next beat, unless superseded
                    self._pending = self._pending or pending
        except Exception:  # a missed beat is not worth killing the work for
            logger.warning("heartbeat of job %s failed", self.job_id, exc_info=True)

    def _loop(self) -> None:
        try:
            if self._file is not None:
                self._file.parent.mkdir(parents=True, exist_ok=True)
                with connection.cursor() as cursor:  # this thread's own connection
                    cursor.execute(f"PRAGMA busy_timeout = {int(self.interval * 1000)}")
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
        if self._file is not None:
            self._file.unlink(missing_ok=True)


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
