"""Assembly: build the translated items (instances, sentence pairs or context sets) from the
job's strings, flag what needs a human, and finish the job. Idempotent: items that exist are
skipped, correction items are unique per string / instance."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from apps.catalog.bulk import (
    INSTANCE_COLUMNS,
    TRANSLATED_INSTANCE_COLUMNS,
    instance_row,
    instances_insert,
)
from apps.catalog.models import ContextSentence, ContextSet, Instance, SentencePair
from apps.core.errors import KasautiError
from apps.core.models import Job
from apps.core.services import job_succeed

from .. import pipeline
from ..models import (
    CorrectionItem,
    TranslatedString,
    TranslationChunk,
    TranslationJob,
    TranslationJobString,
    TranslationSource,
)
from .progress import core_job_lock
from .review import resolved_corrections, review_facts
from .sources import SourceCollection, sources_collect


def _job_translations(job: TranslationJob, language: str) -> dict[str, TranslatedString]:
    """Source text -> stored translation, for every string the job uses in `language`."""
    strings = TranslatedString.objects.filter(
        pk__in=TranslationJobString.objects.filter(job=job).values("string_id"),
        language=language,
    ).only(
        "id",
        "source_text",
        "translation",
        "similarity",
        "forward_model_version",
        "backward_model_version",
        "embedder_version",
    )
    return {string.source_text: string for string in strings}


def translation_job_assemble(*, job_id: int) -> None:
    """Build the translated items, flag what needs a human, finish the job. Idempotent: items
    that exist are skipped, correction items are unique per string / instance."""
    with transaction.atomic():
        job = TranslationJob.objects.select_related("dataset").get(pk=job_id)
        core = core_job_lock(job=job)
        if core.status != Job.Status.RUNNING:
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
        result = {
            "source": job.source,
            "strings_in_items": job.strings_in_items,
            "unique_strings": job.unique_strings,
            "strings_translated": sent,
            "strings_from_cache": core.progress_total - sent,
            "by_language": by_language,
            "created": sum(entry["created"] for entry in by_language.values()),
        }
        job.phase = TranslationJob.Phase.DONE
        job.save(update_fields=["phase"])
        # In the same transaction as the items: the job is done exactly when they exist.
        job_succeed(job_id=core.pk, result=result)


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


def _assemble_instances(
    job: TranslationJob,
    language: str,
    collection: SourceCollection,
    translations: dict[str, TranslatedString],
) -> tuple[int, int]:
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
            "id", *INSTANCE_COLUMNS
        )
    }
    now = timezone.now()
    rows: list[tuple] = []
    reasons: dict[int, list[str]] = {}
    # A string a human already confirmed or corrected is assembled with the accepted text.
    corrected = resolved_corrections(
        language=language, string_ids=[s.pk for s in translations.values()]
    )

    def tr(source: str) -> str:
        if not source.strip():
            return source
        string = translations[source]
        return corrected.get(string.pk, string.translation)

    for text in todo:
        used = {
            translations[part].pk: translations[part]
            for part in (*text.context_parts, text.question, *text.answers)
            if part.strip()
        }
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
        # The original's row (one column list: bulk.INSTANCE_COLUMNS) with the translated
        # texts, the language and the link to the source.
        rows.append(
            instance_row(
                {
                    **original,
                    "language": language,
                    "context": context,
                    "question": question,
                    "ans0": answers[0],
                    "ans1": answers[1],
                    "ans2": answers[2],
                    "source_instance_id": text.source_id,
                    "retired_at": None,
                    "created_at": now,
                    "review": review_facts(
                        strings=used.values(), threshold=job.threshold, corrected=corrected
                    ),
                },
                columns=TRANSLATED_INSTANCE_COLUMNS,
            )
        )
    # Rows are built in full before COPY starts: no other query may run on the connection
    # while COPY owns it.
    created = instances_insert(rows, columns=TRANSLATED_INSTANCE_COLUMNS)
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
