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
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import OperationalError, connection, connections
from django.utils import timezone

from .models import Job

logger = logging.getLogger(__name__)


class JobCancelled(Exception):
    """Raised into the work when its job was cancelled; the run wrapper stops quietly (any
    transaction the work holds rolls back)."""


@dataclass(frozen=True)
class Progress:
    done: int
    rate: float | None  # units per second over the window
    eta_seconds: float | None
    samples: list[list[float]]


def progress_measure(
    *,
    samples: list[list[float]],
    done: int,
    total: int,
    previous_done: int,
    previous_total: int,
    now: float,
    window: float,
) -> Progress:
    """The one definition of a job's rate and time left, for every kind of job: progress over
    the last `window` seconds (the samples in it, and the latest one before it when there is
    none, so a job reporting less often than the window still has a rate), not the average
    since the start (a resumed job, or cached work counted at once, made that swing from 7 to
    1,001 strings/s). A report below the progress already recorded at the same total (a stale
    report of a concurrent step) does not move progress back. Pure: times in unix seconds."""
    if total == previous_total and done < previous_done:
        done = previous_done
    earlier = [s for s in samples if s[1] <= done and s[0] <= now]
    if total != previous_total and samples:
        earlier = []  # the work was re-measured: start a new window
    kept = [s for s in earlier if s[0] >= now - window]
    if not kept and earlier:
        kept = earlier[-1:]
    kept.append([now, done])
    first = kept[0]
    span = now - first[0]
    rate = (done - first[1]) / span if span > 0 else None
    eta = max(total - done, 0) / rate if rate else None
    return Progress(done=done, rate=rate, eta_seconds=eta, samples=kept)


def progress_apply(job: Job, *, done: int, total: int | None = None, now=None) -> list[str]:
    """Set a job's progress, rate, time left and samples in memory (the caller saves the
    returned fields, under its row lock if it holds one)."""
    now = now or timezone.now()
    total = job.progress_total if total is None else total
    measured = progress_measure(
        samples=job.progress_samples or [],
        done=done,
        total=total,
        previous_done=job.progress_done,
        previous_total=job.progress_total,
        now=now.timestamp(),
        window=settings.KASAUTI_JOB_RATE_WINDOW_SECONDS,
    )
    job.progress_done = measured.done
    job.progress_total = total
    job.rate = measured.rate
    job.eta_seconds = measured.eta_seconds
    job.progress_samples = measured.samples
    job.heartbeat_at = now
    return [
        "progress_done",
        "progress_total",
        "rate",
        "eta_seconds",
        "progress_samples",
        "heartbeat_at",
    ]


def progress_baseline(job: Job, *, done: int, total: int, now=None) -> list[str]:
    """Start measuring from here: `done` units (work found already done, cached strings) count
    as progress but not towards the rate."""
    now = now or timezone.now()
    job.progress_done = done
    job.progress_total = total
    job.rate = None
    job.eta_seconds = None
    job.progress_samples = [[now.timestamp(), done]]
    job.heartbeat_at = now
    return ["progress_done", "progress_total", "rate", "eta_seconds", "progress_samples"]


def job_progress(*, job_id: int, done: int, total: int | None = None) -> None:
    """Record progress (and a heartbeat), with the rate and ETA it implies over the last rate
    window (progress_measure). Raises JobCancelled if the job was cancelled meanwhile."""
    job = (
        Job.objects.filter(pk=job_id)
        .only("status", "progress_done", "progress_total", "progress_samples")
        .first()
    )
    if job is None:
        return
    if job.status == Job.Status.CANCELLED:
        raise JobCancelled(job_id)
    fields = progress_apply(job, done=done, total=total)
    Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).update(
        **{name: getattr(job, name) for name in fields}
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
                job_progress(job_id=self.job_id, done=pending[0], total=pending[1])
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
