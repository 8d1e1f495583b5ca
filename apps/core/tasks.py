"""Worker-side plumbing of the job system: the watchdog thread every worker runs."""

from __future__ import annotations

import logging

from celery.signals import worker_ready, worker_shutdown
from django.conf import settings

from .watchdog import Watchdog

logger = logging.getLogger(__name__)
_watchdog: Watchdog | None = None


@worker_ready.connect
def start_watchdog(**kwargs) -> None:
    """Every worker watches every job's heartbeat; its first pass also re-queues jobs that were
    left queued by a worker that died before taking them."""
    global _watchdog
    if settings.KASAUTI_JOB_WATCHDOG_SECONDS > 0 and _watchdog is None:
        _watchdog = Watchdog(interval=settings.KASAUTI_JOB_WATCHDOG_SECONDS).start()
        logger.info("job watchdog started (every %s s)", settings.KASAUTI_JOB_WATCHDOG_SECONDS)


@worker_shutdown.connect
def stop_watchdog(**kwargs) -> None:
    if _watchdog is not None:
        _watchdog.stop()
