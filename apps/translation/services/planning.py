"""Creating a translation job and planning it: collect the strings, skip those cached, cut
the rest into chunks and queue them. Planning is idempotent: a job that already has chunks is
resumed instead of being planned twice."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.catalog.models import Dataset
from apps.core.errors import KasautiError
from apps.core.models import Job
from apps.core.services import job_create, job_fail, progress_baseline
from worker.engines.errors import ModelConfigurationError

from .. import engines, pipeline
from ..jobs import TRANSLATE
from ..models import (
    TranslationChunk,
    TranslationJob,
    TranslationJobString,
    TranslationSource,
    translation_model_version,
)
from . import dispatch
from .cache import cached_hashes
from .control import translation_job_requeue
from .sources import empty_message, sources_collect, sources_collect_exists
from .validation import languages_check, languages_validate


def translation_job_create(
    *,
    dataset: Dataset,
    languages: list[str],
    threshold: float = 0.75,
    source: str = TranslationSource.INSTANCES,
    release=None,
    created_by=None,
) -> TranslationJob:
    """Record a job and queue its start once the caller's transaction commits."""
    languages = languages_validate(languages=languages)
    if not 0.0 <= threshold <= 1.0:
        raise KasautiError("threshold must be between 0 and 1")
    if source not in TranslationSource.values:
        raise KasautiError(f"unknown translation source {source!r}")
    if release is not None and release.dataset_id != dataset.pk:
        raise KasautiError("the release belongs to another dataset")
    # The cheap emptiness check here gives the API a 400; the worker checks again.
    if not sources_collect_exists(dataset=dataset, source=source, release=release):
        raise KasautiError(empty_message(dataset=dataset, source=source))
    with transaction.atomic():
        core_job = job_create(
            kind=TRANSLATE,
            title=f"Translate dataset {dataset.name} into {', '.join(languages)}"
            + (f" (release {release.number})" if release is not None else ""),
            params={"dataset_id": dataset.pk, "dataset_name": dataset.name},
            unit="strings",
            created_by=created_by,
        )
        job = TranslationJob.objects.create(
            core_job=core_job,
            dataset=dataset,
            release=release,
            languages=languages,
            threshold=threshold,
            source=source,
        )
        core_job.params = {**core_job.params, "translation_job_id": job.pk}
        core_job.save(update_fields=["params"])
        dispatch.start_send(job=job)
    return job


def translation_job_start(*, job_id: int) -> None:
    """The orchestration step (default queue). Idempotent: a job that already has chunks is
    resumed instead of being planned twice. Configuration problems fail the job at once,
    before anything is written."""
    job = TranslationJob.objects.select_related("dataset", "core_job").get(pk=job_id)
    if job.is_finished:
        return
    if job.chunks.exists():
        translation_job_requeue(job=job)
        return
    try:
        languages_check(languages=job.languages)
        versions = engines.model_versions()
        collection = sources_collect(
            dataset=job.dataset, source=job.source, release_id=job.release_id
        )
        if not collection.unique:
            raise KasautiError(empty_message(dataset=job.dataset, source=job.source))
    except (ModelConfigurationError, KasautiError) as exc:
        job_fail(job_id=job.core_job_id, error=str(exc))
        return

    model_version = translation_model_version(
        versions.forward, versions.backward, versions.embedder
    )
    hashes = {text: pipeline.text_hash(text) for text in collection.unique}
    chunk_size = settings.KASAUTI_TRANSLATION_CHUNK_SIZE
    plan: dict[str, tuple[list[list[str]], dict[str, int]]] = {}
    for language in job.languages:
        cached = cached_hashes(
            hashes=list(hashes.values()), language=language, model_version=model_version
        )
        todo = [text for text in collection.unique if hashes[text] not in cached]
        plan[language] = (pipeline.chunk_texts(todo, chunk_size), cached)

    now = timezone.now()
    with transaction.atomic():
        job = TranslationJob.objects.select_related("core_job").get(pk=job_id)
        core = Job.objects.select_for_update().get(pk=job.core_job_id)
        if core.is_finished or job.chunks.exists():  # cancelled or planned meanwhile
            return
        chunks = []
        links = []
        progress: dict[str, dict[str, int]] = {}
        for language, (texts_by_chunk, cached) in plan.items():
            chunks.extend(
                TranslationChunk(
                    job=job, language=language, index=index, texts=texts, size=len(texts)
                )
                for index, texts in enumerate(texts_by_chunk)
            )
            links.extend(
                TranslationJobString(job=job, string_id=pk, cached=True) for pk in cached.values()
            )
            progress[language] = {
                "total": len(collection.unique),
                "done": len(cached),
                "cached": len(cached),
            }
        TranslationChunk.objects.bulk_create(chunks)
        TranslationJobString.objects.bulk_create(links, ignore_conflicts=True)
        job.forward_model_version = versions.forward
        job.backward_model_version = versions.backward
        job.embedder_version = versions.embedder
        job.phase = TranslationJob.Phase.TRANSLATING
        job.strings_in_items = collection.strings_in_items
        job.unique_strings = len(collection.unique)
        job.cached_strings = sum(p["cached"] for p in progress.values())
        job.progress_by_language = progress
        job.save()
        # Running from here on (the task's run wrapper has usually said so already).
        core.status = Job.Status.RUNNING
        core.started_at = core.started_at or now
        core.heartbeat_at = now
        # Cached strings count as done from the start, not towards the rate.
        baseline = progress_baseline(
            core,
            done=job.cached_strings,
            total=len(collection.unique) * len(job.languages),
            now=now,
        )
        core.save(update_fields=["status", "started_at", "heartbeat_at", *baseline])
        job.core_job = core
        chunk_ids = list(job.chunks.order_by("index", "language").values_list("id", flat=True))
        if chunk_ids:
            dispatch.chunks_send(job=job, chunk_ids=chunk_ids)
        else:
            dispatch.assembly_send(job=job)
