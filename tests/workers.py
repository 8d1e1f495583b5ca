"""A real Celery worker process for tests that depend on one (job dispatch, crash recovery).

The worker runs `celery -A worker.celery_app worker` in a subprocess with the test settings,
pointed at the database pytest-django created, and a Redis database of its own.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


def _die_with_parent() -> None:
    """In the worker's process, before exec: the kernel sends it SIGKILL when the test process
    dies. A test process killed before its teardown (a run interrupted by a signal) would
    otherwise leave a worker behind, still consuming the test broker's tasks on the next run."""
    libc = ctypes.CDLL(None, use_errno=True)
    PR_SET_PDEATHSIG = 1
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class WorkerProcess:
    def __init__(
        self,
        *,
        queues: str = "default,gpu",
        concurrency: int = 1,
        log: Path,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.queues = queues
        self.concurrency = concurrency
        self.log = log
        self.extra_env = dict(extra_env or {})
        # Celery's node name: what a job records as the worker that took it up (Job.worker).
        self.name = f"test-{os.getpid()}-{time.monotonic_ns()}@{socket.gethostname()}"
        self.process: subprocess.Popen | None = None

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            DJANGO_SETTINGS_MODULE="kasauti.settings.test",
            # The worker is not run by pytest: give it the real name of the test database.
            KASAUTI_TEST_DB_NAME=connection.settings_dict["NAME"],
            PYTHONUNBUFFERED="1",
        )
        env.update(self.extra_env)
        return env

    def start(self, timeout: float = 60.0) -> WorkerProcess:
        command = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "worker.celery_app",
            "worker",
            "-Q",
            self.queues,
            "--concurrency",
            str(self.concurrency),
            "--loglevel",
            "INFO",
            "--without-gossip",
            "--without-mingle",
            "--prefetch-multiplier",
            "1",
            "-n",
            self.name,
        ]
        self._log_handle = open(self.log, "ab")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=self.env(),
            stdout=self._log_handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"worker exited early:\n{self.log.read_text()[-3000:]}")
            if b"ready." in self.log.read_bytes():
                return self
            time.sleep(0.2)
        raise RuntimeError(f"worker did not start in {timeout}s:\n{self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        """SIGKILL the whole worker process group: no chance to acknowledge or clean up."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
        if getattr(self, "_log_handle", None):
            self._log_handle.close()


def purge_test_broker() -> None:
    """Empty the Redis database the test settings use as broker, so no stale task from an
    earlier run reaches this worker."""
    import redis
    from django.conf import settings

    redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()
