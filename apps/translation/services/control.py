"""Cancel and resume. The job system (apps/core) owns both: it changes the core job's status
under its row lock and calls `translation_job_requeue` (through the kind's resume hook)
to queue whatever the job still needs. Safe at any time: duplicate messages are no-ops."""

from __future__ import annotations

from django.db import transaction

from apps.core.models import Job
from apps.core.services import job_cancel, job_resume

from ..models import TranslationChunk, TranslationJob
from . import dispatch
from .progress import assembly_send_if_complete, core_job_lock


def translation_job_requeue(*, job: TranslationJob) -> int:
    """Queue what the job still needs: its start if it never got planned, its pending chunks,
    or its assembly. Returns the number of messages queued."""
    with transaction.atomic():
        core = core_job_lock(job=job)
        if not job.chunks.exists():
            job.phase = TranslationJob.Phase.PENDING
            job.save(update_fields=["phase"])
            dispatch.start_send(job=job)
            return 1
        pending = list(
            job.chunks.filter(status=TranslationChunk.Status.PENDING).values_list("id", flat=True)
        )
        if pending:
            dispatch.chunks_send(job=job, chunk_ids=pending)
            return len(pending)
        return int(assembly_send_if_complete(job=job, core=core))


def translation_job_resume(*, job: TranslationJob) -> Job:
    """Give an unfinished, failed or cancelled job another go (core's resume)."""
    return job_resume(job=job.core_job)


def translation_job_cancel(*, job: TranslationJob) -> Job:
    """Stop a job (core's cancel): queued chunk tasks see the status and skip; strings
    translated so far stay in the cache."""
    return job_cancel(job=job.core_job)
