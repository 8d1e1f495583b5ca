"""Running one chunk: translate, back-translate and score its strings with the real engines,
then store them, mark the chunk done and update the job's progress in one transaction (a
chunk is either wholly done or wholly to do again). No transaction is open while a model
runs. Safe to run any number of times: strings already stored are not translated again and
the write ignores conflicts."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from apps.core.models import Job
from worker.engines.errors import ModelConfigurationError

from .. import engines, pipeline
from ..models import (
    ENGLISH_TAG,
    LANGUAGE_TAGS,
    TranslatedString,
    TranslationChunk,
    TranslationJob,
    TranslationJobString,
)
from .cache import cached_hashes
from .progress import assembly_send_if_complete, core_job_lock, progress_refresh


@dataclass
class ChunkOutcome:
    status: str  # "done" | "already-done" | "skipped"
    translated: int = 0


def _engines_for(job: TranslationJob):
    """The loaded engines, checked against the versions the job was planned with: a worker with
    other weights would write rows under a key that does not describe them."""
    forward = engines.translator(engines.EN_INDIC)
    backward = engines.translator(engines.INDIC_EN)
    embedder = engines.embedder()
    actual = (
        forward.model_version,
        backward.model_version,
        engines.embedder_version(embedder.model_path),
    )
    expected = (job.forward_model_version, job.backward_model_version, job.embedder_version)
    if actual != expected:
        raise ModelConfigurationError(
            f"this worker's models {actual} differ from the job's {expected}: every worker "
            "must use the same model directories"
        )
    return forward, backward, embedder


def translate_texts(
    *, job: TranslationJob, language: str, texts: list[str]
) -> list[tuple[str, str, float]]:
    """(translation, back-translation, cosine(source, back-translation)) for each text."""
    forward, backward, embedder = _engines_for(job)
    tag = LANGUAGE_TAGS[language]
    translations = forward.translate(texts, ENGLISH_TAG, tag)
    back = backward.translate(translations, tag, ENGLISH_TAG)
    similarities = embedder.cosine_pairs(texts, back)
    return [
        (translated, back_translated, float(similarity))
        for translated, back_translated, similarity in zip(
            translations, back, similarities, strict=True
        )
    ]


def translation_chunk_run(
    *, chunk_id: int, report: Callable[[int], None] | None = None
) -> ChunkOutcome:
    """Translate, back-translate and score one chunk, then store it. Safe to run any number of
    times: strings already stored (by an earlier attempt or another job) are not translated
    again, and the write ignores conflicts."""
    chunk = TranslationChunk.objects.select_related("job__core_job").get(pk=chunk_id)
    job = chunk.job
    if job.status != Job.Status.RUNNING:
        return ChunkOutcome("skipped")  # cancelled or failed: the chunk is not wanted
    if chunk.status == TranslationChunk.Status.DONE:
        # A redelivery of a finished chunk. If the assembly message was lost with the worker
        # that finished the job's last chunk, this re-queues it (assembly is idempotent).
        with transaction.atomic():
            assembly_send_if_complete(job=job, core=core_job_lock(job=job))
        return ChunkOutcome("already-done")

    TranslationChunk.objects.filter(pk=chunk_id).update(attempts=F("attempts") + 1)
    model_version = job.model_version
    hashes = [pipeline.text_hash(text) for text in chunk.texts]
    existing = cached_hashes(hashes=hashes, language=chunk.language, model_version=model_version)
    todo = [text for text, h in zip(chunk.texts, hashes, strict=True) if h not in existing]

    started = time.perf_counter()
    results: list[tuple[str, str, float]] = []
    # Sub-batches, so the job's progress moves while a long chunk runs (the reporter only
    # stores the count; the heartbeat thread writes it). Exact counts come at the chunk's end.
    step = max(1, settings.KASAUTI_TRANSLATION_PROGRESS_BATCH)
    base = job.done_strings
    for start in range(0, len(todo), step):
        batch = todo[start : start + step]
        results.extend(translate_texts(job=job, language=chunk.language, texts=batch))
        if report is not None:
            report(base + len(results))
    elapsed_ms = (time.perf_counter() - started) * 1000
    per_string = elapsed_ms / len(todo) if todo else 0.0
    rows = [
        TranslatedString(
            text_hash=pipeline.text_hash(text),
            language=chunk.language,
            model_version=model_version,
            source_text=text,
            translation=translated,
            back_translation=back,
            similarity=similarity,
            threshold=job.threshold,
            passed=similarity >= job.threshold,
            forward_model_version=job.forward_model_version,
            backward_model_version=job.backward_model_version,
            embedder_version=job.embedder_version,
            ms_per_string=per_string,
            produced_by_id=job.pk,
        )
        for text, (translated, back, similarity) in zip(todo, results, strict=True)
    ]

    with transaction.atomic():
        # The job row lock serialises chunk completions of one job, so exactly one of them sees
        # "no chunk pending" and queues the assembly.
        core = core_job_lock(job=job)
        # Even for a cancelled job the rows are valid cache entries: keep the work done.
        TranslatedString.objects.bulk_create(rows, ignore_conflicts=True)
        if core.status != Job.Status.RUNNING:
            return ChunkOutcome("skipped", translated=len(todo))
        ids = cached_hashes(hashes=hashes, language=chunk.language, model_version=model_version)
        TranslationJobString.objects.bulk_create(
            [
                TranslationJobString(job=job, string_id=ids[h], cached=h in existing)
                for h in dict.fromkeys(hashes)
            ],
            ignore_conflicts=True,
        )
        marked = TranslationChunk.objects.filter(
            pk=chunk_id, status=TranslationChunk.Status.PENDING
        ).update(
            status=TranslationChunk.Status.DONE,
            translated=len(todo),
            duration_ms=elapsed_ms,
            finished_at=timezone.now(),
        )
        if marked:
            progress_refresh(job=job, core=core)
        assembly_send_if_complete(job=job, core=core)
    return ChunkOutcome("done", translated=len(todo))
