"""Celery tasks of the translation job. Each takes an id and calls one service through core's
run wrapper (one retry policy, heartbeat, outcome).

Routing: translate_chunk goes to the `gpu` queue (settings.CELERY_TASK_ROUTES); the start and
assembly steps run on the default queue. All are acks_late (global setting) and idempotent,
so a message redelivered after a worker died, or re-sent by the watchdog, is harmless.
"""

from __future__ import annotations

from celery import shared_task

from apps.core.errors import KasautiError
from apps.core.services import job_run
from worker.engines.errors import ModelConfigurationError

from . import services
from .models import TranslationChunk, TranslationJob
from .services.dispatch import ASSEMBLE_TASK, CHUNK_TASK, START_TASK


def _domain_errors(call):
    """A worker whose models are misconfigured fails the job with the reason (no retry)."""
    try:
        return call()
    except ModelConfigurationError as exc:
        raise KasautiError(str(exc)) from exc


@shared_task(bind=True, name=START_TASK, ignore_result=True)
def start_translation_job(self, job_id: int) -> None:
    """job_id: the core job."""

    def work(job, report):
        translation = TranslationJob.objects.get(core_job_id=job.pk)
        _domain_errors(lambda: services.translation_job_start(job_id=translation.pk))

    job_run(job_id=job_id, task=self, work=work)


@shared_task(bind=True, name=CHUNK_TASK, ignore_result=True)
def translate_chunk(self, chunk_id: int) -> None:
    core_job_id = (
        TranslationChunk.objects.filter(pk=chunk_id).values_list("job__core_job_id", flat=True)
    ).first()
    if core_job_id is None:
        return

    def work(job, report):
        _domain_errors(lambda: services.translation_chunk_run(chunk_id=chunk_id, report=report))

    job_run(job_id=core_job_id, task=self, work=work, continues=True)


@shared_task(bind=True, name=ASSEMBLE_TASK, ignore_result=True)
def assemble_translation_job(self, job_id: int) -> None:
    """job_id: the core job."""

    def work(job, report):
        translation = TranslationJob.objects.get(core_job_id=job.pk)
        services.translation_job_assemble(job_id=translation.pk)

    job_run(job_id=job_id, task=self, work=work, continues=True)
