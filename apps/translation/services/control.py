"""Cancel and resume. The job system (apps/core) owns both: it changes the core job's status
under its row lock and calls `translation_job_requeue` (registered as the kind's resume hook)
to queue whatever the job still needs. Safe at any time: duplicate messages are no-ops."""

from __future__ import annotations

from django.db import transaction

from apps.core.models import Job
from apps.core.services import job_cancel, job_resume

from ..models import TranslationChunk, TranslationJob
from . import dispatch
from .progress import assemble_if_complete, locked_core_job


def translation_job_requeue(job: TranslationJob) -> int:
    """Queue what the job still needs: its start if it never got planned, its pending chunks,
    or its assembly. Returns the number of messages queued."""
    with transaction.atomic():
        core = locked_core_job(job)
        if not job.chunks.exists():
            job.phase = TranslationJob.Phase.PENDING
            job.save(update_fields=["phase"])
            dispatch.start(job)
            return 1
        pending = list(
            job.chunks.filter(status=TranslationChunk.Status.PENDING).values_list("id", flat=True)
        )
        if pending:
            dispatch.chunks(job, pending)
            return len(pending)
        return int(assemble_if_complete(job, core))


def translation_job_resume(*, job: TranslationJob) -> Job:
    """Give an unfinished, failed or cancelled job another go (core's resume)."""
    return job_resume(job=job.core_job)


def translation_job_cancel(*, job: TranslationJob) -> Job:
    """Stop a job (core's cancel): queued chunk tasks see the status and skip; strings
    translated so far stay in the cache."""
    return job_cancel(job=job.core_job)


def requeue_core_job(core: Job) -> int:
    """The kind's resume hook: core job -> translation job -> requeue."""
    return translation_job_requeue(TranslationJob.objects.get(core_job=core))
