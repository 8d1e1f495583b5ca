"""Translation jobs: create, start (collect + chunk), run a chunk, assemble, cancel, resume.

Crash safety rests on three rules:
* every write is idempotent: TranslatedString is unique on (text hash, language, model
  versions) and written with ON CONFLICT DO NOTHING, translated items are skipped when they
  exist, correction items are unique per string / instance;
* a chunk's results, its "done" mark and the job's progress are committed in one transaction,
  so a chunk is either wholly done or wholly to do again;
* the last chunk to finish (counted in the database under the job's row lock) queues the
  assembly, and any redelivered or resumed task re-checks that count, so a lost message cannot
  stall a job for good.
No transaction is open while a model runs.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, Sum
from django.utils import timezone

from apps.catalog.bulk import instances_insert
from apps.catalog.models import (
    ContextSentence,
    ContextSet,
    Dataset,
    Instance,
    SentencePair,
)
from apps.core.errors import ConflictError, KasautiError
from apps.core.models import Job
from worker.engines.errors import ModelConfigurationError
from worker.engines.indic_text import check_lang

from . import engines, pipeline
from .models import (
    ENGLISH_TAG,
    LANGUAGE_TAGS,
    CorrectionItem,
    CorrectionRevision,
    TranslatedString,
    TranslationChunk,
    TranslationJob,
    TranslationJobString,
    TranslationSource,
    translation_model_version,
)

logger = logging.getLogger(__name__)

SOURCE_LANGUAGE = "en"
# Hash lists in IN (...) queries are cut to this size.
_QUERY_BATCH = 5000

Dispatcher = Callable[[int], Any]


# --- dispatch (tasks are imported lazily: tasks import this module) -------------------------


def _dispatch_start(job_id: int) -> None:
    from .tasks import start_translation_job

    transaction.on_commit(lambda: start_translation_job.delay(job_id))


def _dispatch_chunks(chunk_ids: list[int]) -> None:
    from .tasks import translate_chunk

    def send() -> None:
        for chunk_id in chunk_ids:
            translate_chunk.delay(chunk_id)

    transaction.on_commit(send)


def _dispatch_assemble(job_id: int) -> None:
    from .tasks import assemble_translation_job

    transaction.on_commit(lambda: assemble_translation_job.delay(job_id))


# --- validation ---------------------------------------------------------------------------


def languages_validate(languages: Iterable[str]) -> list[str]:
    """Target ISO codes, deduplicated, in the order given; KasautiError names a bad one."""
    result: list[str] = []
    for code in languages:
        if code not in LANGUAGE_TAGS:
            raise KasautiError(
                f"unknown target language {code!r}; choose from {', '.join(LANGUAGE_TAGS)}"
            )
        if code not in result:
            result.append(code)
    if not result:
        raise KasautiError("choose at least one target language")
    return result


# --- collection of the source strings -------------------------------------------------------


@dataclass
class SourceCollection:
    """What a job translates: the items (for assembly) and their unique strings."""

    source: str
    instances: list[pipeline.InstanceText] = field(default_factory=list)
    pairs: list[SentencePair] = field(default_factory=list)
    context_sets: list[ContextSet] = field(default_factory=list)
    strings_in_items: int = 0
    unique: list[str] = field(default_factory=list)


def _instance_queryset(*, dataset: Dataset, release_id: int | None):
    qs = Instance.objects.filter(
        dataset=dataset,
        language=SOURCE_LANGUAGE,
        source_instance__isnull=True,
        retired_at__isnull=True,
    )
    if release_id is not None:
        # A release is frozen: its members count even if retired since.
        qs = Instance.objects.filter(
            language=SOURCE_LANGUAGE,
            source_instance__isnull=True,
            memberships__release_id=release_id,
        )
    return qs


def instance_texts(rows: Iterable[dict[str, Any]]) -> list[pipeline.InstanceText]:
    """Split each instance into its translation units. The ambiguous context of a disambiguated
    instance is its ambiguous sibling's context (same version, combination and name order)."""
    rows = list(rows)
    ambiguous: dict[tuple[int, int, str], str] = {}
    for row in rows:
        if row["context_condition"] == "ambig":
            key = (row["template_version_id"], row["combination"], row["name_order"])
            ambiguous.setdefault(key, row["context"])
    texts = []
    for row in rows:
        key = (row["template_version_id"], row["combination"], row["name_order"])
        parts = (
            pipeline.split_context(row["context"], ambiguous.get(key))
            if row["context_condition"] == "disambig"
            else [row["context"]]
        )
        texts.append(
            pipeline.InstanceText(
                source_id=row["id"],
                context_parts=tuple(parts),
                question=row["question"],
                answers=(row["ans0"], row["ans1"], row["ans2"]),
            )
        )
    return texts


_INSTANCE_TEXT_FIELDS = (
    "id",
    "template_version_id",
    "combination",
    "name_order",
    "context_condition",
    "context",
    "question",
    "ans0",
    "ans1",
    "ans2",
)


def sources_collect(
    *, dataset: Dataset, source: str, release_id: int | None = None
) -> SourceCollection:
    collection = SourceCollection(source=source)
    if source == TranslationSource.INSTANCES:
        rows = _instance_queryset(dataset=dataset, release_id=release_id).values(
            *_INSTANCE_TEXT_FIELDS
        )
        collection.instances = instance_texts(rows.order_by("id"))
        collection.strings_in_items = pipeline.STRINGS_PER_INSTANCE * len(collection.instances)
        collection.unique = pipeline.unique_strings(t.strings() for t in collection.instances)
    elif source == TranslationSource.SENTENCE_PAIRS:
        collection.pairs = list(
            SentencePair.objects.filter(dataset=dataset, language=SOURCE_LANGUAGE).order_by("id")
        )
        collection.strings_in_items = 2 * len(collection.pairs)
        collection.unique = pipeline.unique_strings(
            (pair.sent_more, pair.sent_less) for pair in collection.pairs
        )
    elif source == TranslationSource.CONTEXT_SETS:
        collection.context_sets = list(
            ContextSet.objects.filter(dataset=dataset, language=SOURCE_LANGUAGE)
            .prefetch_related("sentences")
            .order_by("id")
        )
        groups = [
            (cs.context, *(s.text for s in cs.sentences.all())) for cs in collection.context_sets
        ]
        collection.strings_in_items = sum(len(group) for group in groups)
        collection.unique = pipeline.unique_strings(groups)
    else:
        raise KasautiError(f"unknown translation source {source!r}")
    return collection


def _empty_message(*, dataset: Dataset, source: str) -> str:
    what = {
        TranslationSource.INSTANCES: "live English instances (instantiate it first)",
        TranslationSource.SENTENCE_PAIRS: "English sentence pairs",
        TranslationSource.CONTEXT_SETS: "English context sets",
    }.get(source, "items")
    return f"dataset {dataset.name!r} has no {what}: nothing to translate"


# --- create -------------------------------------------------------------------------------


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
    languages = languages_validate(languages)
    if not 0.0 <= threshold <= 1.0:
        raise KasautiError("threshold must be between 0 and 1")
    if source not in TranslationSource.values:
        raise KasautiError(f"unknown translation source {source!r}")
    if release is not None and release.dataset_id != dataset.pk:
        raise KasautiError("the release belongs to another dataset")
    # The cheap emptiness check here gives the API a 400; the worker checks again.
    if not sources_collect_exists(dataset=dataset, source=source, release=release):
        raise KasautiError(_empty_message(dataset=dataset, source=source))
    with transaction.atomic():
        core_job = Job.objects.create(
            kind=Job.Kind.TRANSLATE,
            params={"dataset_id": dataset.pk, "languages": languages, "source": source},
            created_by=created_by,
        )
        job = TranslationJob.objects.create(
            dataset=dataset,
            release=release,
            languages=languages,
            threshold=threshold,
            source=source,
            created_by=created_by,
            core_job=core_job,
        )
        core_job.params = {**core_job.params, "translation_job_id": job.pk}
        core_job.save(update_fields=["params"])
        _dispatch_start(job.pk)
    return job


def sources_collect_exists(*, dataset: Dataset, source: str, release=None) -> bool:
    if source == TranslationSource.INSTANCES:
        release_id = release.pk if release is not None else None
        return _instance_queryset(dataset=dataset, release_id=release_id).exists()
    if source == TranslationSource.SENTENCE_PAIRS:
        return SentencePair.objects.filter(dataset=dataset, language=SOURCE_LANGUAGE).exists()
    return ContextSet.objects.filter(dataset=dataset, language=SOURCE_LANGUAGE).exists()


# --- job state helpers --------------------------------------------------------------------


def _core_sync(job: TranslationJob) -> None:
    """Mirror the state on the generic Job row, so /api/jobs/<id>/ tells the same story."""
    if not job.core_job_id:
        return
    core_status = {
        TranslationJob.Status.QUEUED: Job.Status.QUEUED,
        TranslationJob.Status.RUNNING: Job.Status.RUNNING,
        TranslationJob.Status.SUCCEEDED: Job.Status.SUCCEEDED,
        TranslationJob.Status.FAILED: Job.Status.FAILED,
        TranslationJob.Status.CANCELLED: Job.Status.CANCELLED,
    }[job.status]
    Job.objects.filter(pk=job.core_job_id).update(
        status=core_status,
        error=job.error,
        progress_done=job.done_strings,
        progress_total=job.total_strings,
        started_at=job.started_at,
        finished_at=job.finished_at,
        result=job.result,
    )


def translation_job_fail(*, job_id: int, error: str) -> None:
    """Mark a job failed with the reason (no-op if it already finished)."""
    with transaction.atomic():
        job = TranslationJob.objects.select_for_update().filter(pk=job_id).first()
        if job is None or job.is_finished:
            return
        job.status = TranslationJob.Status.FAILED
        job.error = error
        job.finished_at = timezone.now()
        job.eta_seconds = None
        job.save(update_fields=["status", "error", "finished_at", "eta_seconds"])
        _core_sync(job)
    logger.warning("translation job %s failed: %s", job_id, error)


def translation_chunk_fail(*, chunk_id: int, error: str) -> None:
    job_id = TranslationChunk.objects.filter(pk=chunk_id).values_list("job_id", flat=True).first()
    if job_id is not None:
        translation_job_fail(job_id=job_id, error=error)


def _check_languages(languages: list[str]) -> None:
    for code in languages:
        if code not in LANGUAGE_TAGS:
            raise KasautiError(
                f"unknown target language {code!r}; choose from {', '.join(LANGUAGE_TAGS)}"
            )
        check_lang(LANGUAGE_TAGS[code])


def _cached_hashes(*, hashes: list[str], language: str, model_version: str) -> dict[str, int]:
    found: dict[str, int] = {}
    for start in range(0, len(hashes), _QUERY_BATCH):
        batch = hashes[start : start + _QUERY_BATCH]
        found.update(
            (h, pk)
            for pk, h in TranslatedString.objects.filter(
                language=language, model_version=model_version, text_hash__in=batch
            ).values_list("id", "text_hash")
        )
    return found


# --- start: collect, skip cached, chunk, dispatch ---------------------------------------------


def translation_job_start(*, job_id: int) -> None:
    """The orchestration step (default queue). Idempotent: a job that already has chunks is
    resumed instead of being planned twice. Configuration problems fail the job at once,
    before anything is written."""
    job = TranslationJob.objects.select_related("dataset").get(pk=job_id)
    if job.is_finished:
        return
    if job.chunks.exists():
        translation_job_resume(job=job)
        return
    try:
        _check_languages(job.languages)
        versions = engines.model_versions()
        collection = sources_collect(
            dataset=job.dataset, source=job.source, release_id=job.release_id
        )
        if not collection.unique:
            raise KasautiError(_empty_message(dataset=job.dataset, source=job.source))
    except (ModelConfigurationError, KasautiError) as exc:
        translation_job_fail(job_id=job_id, error=str(exc))
        return

    model_version = translation_model_version(
        versions.forward, versions.backward, versions.embedder
    )
    hashes = {text: pipeline.text_hash(text) for text in collection.unique}
    chunk_size = settings.KASAUTI_TRANSLATION_CHUNK_SIZE
    plan: dict[str, tuple[list[list[str]], dict[str, int]]] = {}
    for language in job.languages:
        cached = _cached_hashes(
            hashes=list(hashes.values()), language=language, model_version=model_version
        )
        todo = [text for text in collection.unique if hashes[text] not in cached]
        plan[language] = (pipeline.chunk_texts(todo, chunk_size), cached)

    now = timezone.now()
    with transaction.atomic():
        job = TranslationJob.objects.select_for_update().get(pk=job_id)
        if job.is_finished or job.chunks.exists():  # cancelled or planned meanwhile
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
        job.status = TranslationJob.Status.RUNNING
        job.phase = TranslationJob.Phase.TRANSLATING
        job.started_at = job.started_at or now
        job.heartbeat_at = now
        job.strings_in_items = collection.strings_in_items
        job.unique_strings = len(collection.unique)
        job.total_strings = len(collection.unique) * len(job.languages)
        job.cached_strings = sum(p["cached"] for p in progress.values())
        job.done_strings = job.cached_strings
        job.progress_by_language = progress
        job.save()
        _core_sync(job)
        chunk_ids = list(job.chunks.order_by("index", "language").values_list("id", flat=True))
        if chunk_ids:
            _dispatch_chunks(chunk_ids)
        else:
            _dispatch_assemble(job.pk)


# --- a chunk ------------------------------------------------------------------------------


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


def translation_chunk_run(*, chunk_id: int) -> ChunkOutcome:
    """Translate, back-translate and score one chunk, then store it. Safe to run any number of
    times: strings already stored (by an earlier attempt or another job) are not translated
    again, and the write ignores conflicts."""
    chunk = TranslationChunk.objects.select_related("job").get(pk=chunk_id)
    job = chunk.job
    if job.status != TranslationJob.Status.RUNNING:
        return ChunkOutcome("skipped")  # cancelled or failed: the chunk is not wanted
    if chunk.status == TranslationChunk.Status.DONE:
        # A redelivery of a finished chunk. If the assembly message was lost with the worker
        # that finished the job's last chunk, this re-queues it (assembly is idempotent).
        with transaction.atomic():
            job = TranslationJob.objects.select_for_update().get(pk=job.pk)
            _assemble_if_complete(job)
        return ChunkOutcome("already-done")

    TranslationChunk.objects.filter(pk=chunk_id).update(attempts=F("attempts") + 1)
    model_version = job.model_version
    hashes = [pipeline.text_hash(text) for text in chunk.texts]
    existing = _cached_hashes(hashes=hashes, language=chunk.language, model_version=model_version)
    todo = [text for text, h in zip(chunk.texts, hashes, strict=True) if h not in existing]

    started = time.perf_counter()
    results = translate_texts(job=job, language=chunk.language, texts=todo) if todo else []
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
        job = TranslationJob.objects.select_for_update().get(pk=job.pk)
        # Even for a cancelled job the rows are valid cache entries: keep the work done.
        TranslatedString.objects.bulk_create(rows, ignore_conflicts=True)
        if job.status != TranslationJob.Status.RUNNING:
            return ChunkOutcome("skipped", translated=len(todo))
        ids = _cached_hashes(hashes=hashes, language=chunk.language, model_version=model_version)
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
            _progress_refresh(job)
        _assemble_if_complete(job)
    return ChunkOutcome("done", translated=len(todo))


def _progress_refresh(job: TranslationJob) -> None:
    """Recompute done/total, rate and ETA from the chunk rows (exact, whatever was redelivered).
    The caller holds the job's row lock."""
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
    job.done_strings = sum(entry["done"] for entry in progress.values())
    translated = job.done_strings - job.cached_strings
    elapsed = (now - job.started_at).total_seconds() if job.started_at else 0.0
    job.rate = translated / elapsed if translated and elapsed > 0 else None
    remaining = job.total_strings - job.done_strings
    job.eta_seconds = remaining / job.rate if job.rate else None
    job.heartbeat_at = now
    job.save(
        update_fields=[
            "progress_by_language",
            "done_strings",
            "rate",
            "eta_seconds",
            "heartbeat_at",
        ]
    )
    _core_sync(job)


def _assemble_if_complete(job: TranslationJob) -> bool:
    """Queue the assembly if every chunk is done. The caller holds the job's row lock."""
    if job.status != TranslationJob.Status.RUNNING:
        return False
    if job.chunks.filter(status=TranslationChunk.Status.PENDING).exists():
        return False
    if job.phase != TranslationJob.Phase.ASSEMBLING:
        job.phase = TranslationJob.Phase.ASSEMBLING
        job.eta_seconds = 0
        job.save(update_fields=["phase", "eta_seconds"])
    _dispatch_assemble(job.pk)
    return True


# --- assembly -----------------------------------------------------------------------------


def _job_translations(job: TranslationJob, language: str) -> dict[str, TranslatedString]:
    """Source text -> stored translation, for every string the job uses in `language`."""
    strings = TranslatedString.objects.filter(
        pk__in=TranslationJobString.objects.filter(job=job).values("string_id"),
        language=language,
    ).only("id", "source_text", "translation", "similarity")
    return {string.source_text: string for string in strings}


def translation_job_assemble(*, job_id: int) -> None:
    """Build the translated items, flag what needs a human, finish the job. Idempotent: items
    that exist are skipped, correction items are unique per string / instance."""
    with transaction.atomic():
        job = TranslationJob.objects.select_for_update().select_related("dataset").get(pk=job_id)
        if job.status != TranslationJob.Status.RUNNING:
            return
        if job.chunks.filter(status=TranslationChunk.Status.PENDING).exists():
            return  # a resumed job's stray assembly message: the last chunk will queue another
        collection = sources_collect(
            dataset=job.dataset, source=job.source, release_id=job.release_id
        )
        by_language: dict[str, dict[str, int]] = {}
        for language in job.languages:
            translations = _job_translations(job, language)
            missing = [text for text in collection.unique if text not in translations]
            if missing:
                raise KasautiError(
                    f"{len(missing)} string(s) have no {language!r} translation, e.g. "
                    f"{missing[0]!r}; resume the job"
                )
            flagged = _flag_low_similarity(job, language, translations.values())
            if job.source == TranslationSource.INSTANCES:
                created, mismatches = _assemble_instances(job, language, collection, translations)
            elif job.source == TranslationSource.SENTENCE_PAIRS:
                created, mismatches = _assemble_pairs(job, language, collection, translations), 0
            else:
                created, mismatches = (
                    _assemble_context_sets(job, language, collection, translations),
                    0,
                )
            passed = sum(1 for s in translations.values() if s.similarity >= job.threshold)
            by_language[language] = {
                "created": created,
                "passed": passed,
                "flagged": len(translations) - passed,
                "low_similarity_items": flagged,
                "option_mismatches": mismatches,
            }
        sent = job.chunks.aggregate(n=Sum("translated"))["n"] or 0
        job.result = {
            "source": job.source,
            "strings_in_items": job.strings_in_items,
            "unique_strings": job.unique_strings,
            "strings_translated": sent,
            "strings_from_cache": job.total_strings - sent,
            "by_language": by_language,
            "created": sum(entry["created"] for entry in by_language.values()),
        }
        job.status = TranslationJob.Status.SUCCEEDED
        job.phase = TranslationJob.Phase.DONE
        job.finished_at = timezone.now()
        job.heartbeat_at = job.finished_at
        job.eta_seconds = 0
        job.save()
        _core_sync(job)


def _flag_low_similarity(
    job: TranslationJob, language: str, strings: Iterable[TranslatedString]
) -> int:
    items = [
        CorrectionItem(
            job=job,
            kind=CorrectionItem.Kind.LOW_SIMILARITY,
            language=language,
            translated_string_id=string.pk,
            reason=pipeline.low_similarity_reason(string.similarity, job.threshold),
        )
        for string in strings
        if string.similarity < job.threshold
    ]
    CorrectionItem.objects.bulk_create(items, ignore_conflicts=True)
    return len(items)


_INSTANCE_COPY_FIELDS = (
    "id",
    "dataset_id",
    "template_version_id",
    "category_id",
    "example_id",
    "question_index",
    "combination",
    "name_order",
    "context_condition",
    "question_polarity",
    "pairing",
    "proper_noun",
    "placeholder_values",
    "context",
    "ans0",
    "ans1",
    "ans2",
    "option_roles",
    "answer_info",
    "label",
)


def _assemble_instances(
    job: TranslationJob,
    language: str,
    collection: SourceCollection,
    translations: dict[str, TranslatedString],
) -> tuple[int, int]:
    import json

    existing = set(
        Instance.objects.filter(
            dataset=job.dataset, language=language, source_instance__isnull=False
        ).values_list("source_instance_id", flat=True)
    )
    todo = [t for t in collection.instances if t.source_id not in existing]
    if not todo:
        return 0, 0
    originals = {
        row["id"]: row
        for row in Instance.objects.filter(pk__in=[t.source_id for t in todo]).values(
            *_INSTANCE_COPY_FIELDS
        )
    }
    now = timezone.now()
    rows: list[tuple] = []
    reasons: dict[int, list[str]] = {}

    def tr(source: str) -> str:
        return translations[source].translation if source.strip() else source

    for text in todo:
        original = originals[text.source_id]
        context = pipeline.join_context([tr(part) for part in text.context_parts])
        answers = [tr(answer) for answer in text.answers]
        question = tr(text.question)
        if original["context_condition"] == "disambig":
            problems = pipeline.option_mismatches(
                english_context=original["context"],
                english_answers=text.answers,
                roles=original["option_roles"],
                translated_context=context,
                translated_answers=answers,
            )
            if problems:
                reasons[text.source_id] = problems
        rows.append(
            (
                original["dataset_id"],
                original["template_version_id"],
                original["category_id"],
                language,
                original["example_id"],
                original["question_index"],
                original["combination"],
                original["name_order"],
                original["context_condition"],
                original["question_polarity"],
                original["pairing"],
                original["proper_noun"],
                json.dumps(original["placeholder_values"], ensure_ascii=False),
                context,
                question,
                answers[0],
                answers[1],
                answers[2],
                json.dumps(original["option_roles"]),
                json.dumps(original["answer_info"], ensure_ascii=False),
                original["label"],
                text.source_id,
                None,
                now,
            )
        )
    # Rows are built in full before COPY starts: no other query may run on the connection
    # while COPY owns it.
    created = instances_insert(rows)
    if reasons:
        new_ids = dict(
            Instance.objects.filter(
                dataset=job.dataset, language=language, source_instance_id__in=list(reasons)
            ).values_list("source_instance_id", "id")
        )
        CorrectionItem.objects.bulk_create(
            [
                CorrectionItem(
                    job=job,
                    kind=CorrectionItem.Kind.OPTION_MISMATCH,
                    language=language,
                    instance_id=new_ids[source_id],
                    reason="; ".join(problems),
                )
                for source_id, problems in reasons.items()
            ],
            ignore_conflicts=True,
        )
    return created, len(reasons)


def _assemble_pairs(
    job: TranslationJob,
    language: str,
    collection: SourceCollection,
    translations: dict[str, TranslatedString],
) -> int:
    existing = set(
        SentencePair.objects.filter(dataset=job.dataset, language=language).values_list(
            "external_id", flat=True
        )
    )
    pairs = [
        SentencePair(
            dataset_id=pair.dataset_id,
            external_id=pair.external_id,
            category_id=pair.category_id,
            language=language,
            sent_more=translations[pair.sent_more].translation,
            sent_less=translations[pair.sent_less].translation,
            direction=pair.direction,
            target_group=pair.target_group,
            parallel_id=pair.pk,
            origin=f"translation job #{job.pk}",
        )
        for pair in collection.pairs
        if pair.external_id not in existing
    ]
    SentencePair.objects.bulk_create(pairs, ignore_conflicts=True)
    return len(pairs)


def _assemble_context_sets(
    job: TranslationJob,
    language: str,
    collection: SourceCollection,
    translations: dict[str, TranslatedString],
) -> int:
    existing = set(
        ContextSet.objects.filter(dataset=job.dataset, language=language).values_list(
            "external_id", flat=True
        )
    )
    created = 0
    for original in collection.context_sets:
        if original.external_id in existing:
            continue
        translated = ContextSet.objects.create(
            dataset_id=original.dataset_id,
            external_id=original.external_id,
            category_id=original.category_id,
            language=language,
            context=translations[original.context].translation,
            target_group=original.target_group,
            origin=f"translation job #{job.pk}",
        )
        ContextSentence.objects.bulk_create(
            ContextSentence(
                context_set=translated,
                kind=sentence.kind,
                text=translations[sentence.text].translation,
                position=sentence.position,
            )
            for sentence in original.sentences.all()
        )
        created += 1
    return created


# --- cancel / resume ----------------------------------------------------------------------


def translation_job_cancel(*, job: TranslationJob) -> TranslationJob:
    """Stop a job: queued chunk tasks see the status and skip. Finished items stay."""
    with transaction.atomic():
        job = TranslationJob.objects.select_for_update().get(pk=job.pk)
        if job.is_finished:
            raise ConflictError(f"translation job #{job.pk} has already {job.status}")
        job.status = TranslationJob.Status.CANCELLED
        job.finished_at = timezone.now()
        job.eta_seconds = None
        job.save(update_fields=["status", "finished_at", "eta_seconds"])
        _core_sync(job)
    return job


def translation_job_resume(*, job: TranslationJob) -> int:
    """Re-queue whatever a job still needs: its start if it never got planned, its pending
    chunks, or its assembly. Safe to call at any time (duplicate messages are no-ops); a failed
    job is given another go. Returns the number of messages queued."""
    with transaction.atomic():
        job = TranslationJob.objects.select_for_update().get(pk=job.pk)
        if job.status in (TranslationJob.Status.SUCCEEDED, TranslationJob.Status.CANCELLED):
            raise ConflictError(f"translation job #{job.pk} has {job.status}; nothing to resume")
        now = timezone.now()
        if job.status == TranslationJob.Status.FAILED:
            job.error = ""
            job.finished_at = None
        job.heartbeat_at = now
        if not job.chunks.exists():
            job.status = TranslationJob.Status.QUEUED
            job.phase = TranslationJob.Phase.PENDING
            job.save()
            _core_sync(job)
            _dispatch_start(job.pk)
            return 1
        job.status = TranslationJob.Status.RUNNING
        job.save()
        _core_sync(job)
        pending = list(
            job.chunks.filter(status=TranslationChunk.Status.PENDING).values_list("id", flat=True)
        )
        if pending:
            _dispatch_chunks(pending)
            return len(pending)
        _assemble_if_complete(job)
        return 1


def translation_jobs_resume_stale(*, older_than: timedelta | None = None) -> list[int]:
    """Resume every unfinished job with no sign of life for `older_than` (default: the
    KASAUTI_TRANSLATION_STALE_SECONDS setting). Run at worker start-up and by
    `manage.py translation_resume_stale`."""
    if older_than is None:
        older_than = timedelta(seconds=settings.KASAUTI_TRANSLATION_STALE_SECONDS)
    cutoff = timezone.now() - older_than
    stale = TranslationJob.objects.filter(
        Q(status=TranslationJob.Status.RUNNING, heartbeat_at__lt=cutoff)
        | Q(status=TranslationJob.Status.QUEUED, created_at__lt=cutoff)
    ).values_list("id", flat=True)
    resumed = []
    for job_id in stale:
        try:
            translation_job_resume(job=TranslationJob(pk=job_id))
        except ConflictError:  # finished meanwhile
            continue
        resumed.append(job_id)
    return resumed


# --- corrections --------------------------------------------------------------------------


def correction_item_resolve(
    *, item: CorrectionItem, text: str, author=None, note: str = ""
) -> CorrectionItem:
    """Record a human correction. The previous text is kept in a revision, never overwritten
    silently."""
    with transaction.atomic():
        item = CorrectionItem.objects.select_for_update().get(pk=item.pk)
        CorrectionRevision.objects.create(
            item=item,
            previous_text=item.corrected_text,
            text=text,
            status=CorrectionItem.Status.RESOLVED,
            note=note,
            author=author,
        )
        item.corrected_text = text
        item.status = CorrectionItem.Status.RESOLVED
        item.save(update_fields=["corrected_text", "status", "updated_at"])
    return item
