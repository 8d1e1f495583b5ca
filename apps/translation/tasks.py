"""Celery tasks of the translation job. Each takes ids and calls one service.

Routing: translate_chunk goes to the `gpu` queue (settings.CELERY_TASK_ROUTES); the start and
assembly steps run on the default queue. All are acks_late (global setting) and idempotent,
so a message redelivered after a worker died is harmless.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from celery import shared_task
from celery.signals import worker_ready
from django.db import InterfaceError, OperationalError, connections

from apps.core.errors import KasautiError
from worker.engines.errors import ModelConfigurationError

from . import services

logger = logging.getLogger(__name__)

# Worth retrying: the database or the network blinked. Anything else will fail the same way.
TRANSIENT_ERRORS = (OperationalError, InterfaceError, ConnectionError, TimeoutError)
MAX_RETRIES = 6


def _backoff(retries: int) -> int:
    return min(5 * 2**retries, 300)


def _run(task, *, fail: Callable[[str], None], work: Callable[[], object]) -> None:
    """Run `work`; retry transient errors with backoff, fail the job on anything else (and on
    the last retry), so a job never hangs on a chunk that cannot succeed."""
    try:
        work()
    except (ModelConfigurationError, KasautiError) as exc:
        fail(str(exc))
    except TRANSIENT_ERRORS as exc:
        if task.request.retries >= MAX_RETRIES:
            fail(f"gave up after {MAX_RETRIES} retries: {type(exc).__name__}: {exc}")
            raise
        logger.warning("transient error, retrying: %s", exc)
        raise task.retry(exc=exc, countdown=_backoff(task.request.retries)) from exc
    except Exception as exc:
        fail(f"{type(exc).__name__}: {exc}")
        raise


@shared_task(bind=True, name="apps.translation.tasks.start_translation_job", ignore_result=True)
def start_translation_job(self, job_id: int) -> None:
    _run(
        self,
        fail=lambda error: services.translation_job_fail(job_id=job_id, error=error),
        work=lambda: services.translation_job_start(job_id=job_id),
    )


@shared_task(bind=True, name="apps.translation.tasks.translate_chunk", ignore_result=True)
def translate_chunk(self, chunk_id: int) -> None:
    _run(
        self,
        fail=lambda error: services.translation_chunk_fail(chunk_id=chunk_id, error=error),
        work=lambda: services.translation_chunk_run(chunk_id=chunk_id),
    )


@shared_task(bind=True, name="apps.translation.tasks.assemble_translation_job", ignore_result=True)
def assemble_translation_job(self, job_id: int) -> None:
    _run(
        self,
        fail=lambda error: services.translation_job_fail(job_id=job_id, error=error),
        work=lambda: services.translation_job_assemble(job_id=job_id),
    )


@worker_ready.connect
def resume_stale_jobs_at_start(**kwargs) -> None:
    """A worker that starts after a crash picks up jobs nobody is working on any more (with
    Redis the broker also redelivers the lost message, but only after its visibility timeout)."""
    try:
        resumed = services.translation_jobs_resume_stale()
        if resumed:
            logger.info("resumed stale translation jobs %s", resumed)
    except Exception:  # never keep a worker from starting
        logger.exception("could not check for stale translation jobs")
    finally:
        connections.close_all()
