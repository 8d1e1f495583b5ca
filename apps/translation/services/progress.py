"""A translation job's progress and completion, recomputed from its chunk rows (exact, however
often a chunk was redelivered). Callers hold the core job's row lock: it serialises the chunk
completions of one job, so exactly one of them sees "no chunk pending" and queues assembly."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Sum
from django.utils import timezone

from apps.core.models import Job

from ..models import TranslationChunk, TranslationJob
from . import dispatch


def locked_core_job(job: TranslationJob) -> Job:
    """The job's core row, locked until the end of the caller's transaction."""
    core = Job.objects.select_for_update().get(pk=job.core_job_id)
    job.core_job = core
    return core


def progress_refresh(job: TranslationJob, core: Job) -> None:
    """Recompute done/total per language and overall, rate and ETA."""
    now = timezone.now()
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
    core.progress_done = sum(entry["done"] for entry in progress.values())
    translated = core.progress_done - job.cached_strings
    elapsed = (now - core.started_at).total_seconds() if core.started_at else 0.0
    core.rate = translated / elapsed if translated and elapsed > 0 else None
    remaining = core.progress_total - core.progress_done
    core.eta_seconds = remaining / core.rate if core.rate else None
    core.heartbeat_at = now
    core.save(update_fields=["progress_done", "rate", "eta_seconds", "heartbeat_at"])


def assemble_if_complete(job: TranslationJob, core: Job) -> bool:
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
    dispatch.assemble(job)
    return True
