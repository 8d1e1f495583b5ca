"""A translation job's progress and completion, recomputed from its chunk rows (exact, however
often a chunk was redelivered). Callers hold the core job's row lock: it serialises the chunk
completions of one job, so exactly one of them sees "no chunk pending" and queues assembly."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Sum

from apps.core.models import Job
from apps.core.services import progress_apply

from ..models import TranslationChunk, TranslationJob
from . import dispatch


def core_job_lock(*, job: TranslationJob) -> Job:
    """The job's core row, locked until the end of the caller's transaction."""
    core = Job.objects.select_for_update().get(pk=job.core_job_id)
    job.core_job = core
    return core


def progress_refresh(*, job: TranslationJob, core: Job) -> None:
    """Recompute done/total per language and overall; rate and ETA as for every job (over the
    last rate window: apps.core.heartbeat.progress_apply)."""
    done_by_language: dict[str, int] = defaultdict(int)
    for row in (
        job.chunks.filter(status=TranslationChunk.Status.DONE)
        .values("language")
        .annotate(n=Sum("size"))
    ):
        done_by_language[row["language"]] = row["n"] or 0
    progress = {}
    for language, entry in (job.progress_by_language or {}).items():
        progress[language] = {**entry, "done": entry["cached"] + done_by_language[language]}
    job.progress_by_language = progress
    job.save(update_fields=["progress_by_language"])
    fields = progress_apply(core, done=sum(entry["done"] for entry in progress.values()))
    core.save(update_fields=fields)


def assembly_send_if_complete(*, job: TranslationJob, core: Job) -> bool:
    """Queue the assembly if every chunk is done."""
    if core.status != Job.Status.RUNNING:
        return False
    if job.chunks.filter(status=TranslationChunk.Status.PENDING).exists():
        return False
    if job.phase != TranslationJob.Phase.ASSEMBLING:
        job.phase = TranslationJob.Phase.ASSEMBLING
        job.save(update_fields=["phase"])
        core.eta_seconds = 0
        core.save(update_fields=["eta_seconds"])
    dispatch.assembly_send(job=job)
    return True
