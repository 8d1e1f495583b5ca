"""Reads of translation jobs, strings and corrections."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from apps.catalog.bulk import INSTANCE_TEXT_COLUMNS
from apps.catalog.models import Instance

from .models import CorrectionItem, TranslatedString, TranslationJob, TranslationJobString

# The instance texts one translated string makes whole; a context is joined from one or two
# strings (its ambiguous part and the disambiguating sentence), so a string may be part of it.
WHOLE_STRING_COLUMNS = tuple(column for column in INSTANCE_TEXT_COLUMNS if column != "context")


def translation_job_list(*, dataset_id: int | None = None) -> QuerySet[TranslationJob]:
    qs = TranslationJob.objects.select_related("dataset", "core_job__created_by")
    if dataset_id is not None:
        qs = qs.filter(dataset_id=dataset_id)
    return qs


def translated_string_list(
    *,
    job: TranslationJob | None = None,
    language: str = "",
    passed: bool | None = None,
) -> QuerySet[TranslatedString]:
    """Strings, optionally those a job used (produced or reused from the cache). With a job,
    pass/flag is judged by that job's threshold, not by the one stored with the string."""
    qs = TranslatedString.objects.select_related("produced_by")
    if job is not None:
        qs = qs.filter(pk__in=TranslationJobString.objects.filter(job=job).values("string_id"))
    if language:
        qs = qs.filter(language=language)
    if passed is not None:
        if job is not None:
            qs = (
                qs.filter(similarity__gte=job.threshold)
                if passed
                else qs.filter(similarity__lt=job.threshold)
            )
        else:
            qs = qs.filter(passed=passed)
    return qs.order_by("language", "similarity", "id")


def correction_list(
    *, status: str = "", language: str = "", job_id: int | None = None
) -> QuerySet[CorrectionItem]:
    qs = CorrectionItem.objects.select_related(
        "translated_string", "instance", "job"
    ).prefetch_related("revisions")
    if status:
        qs = qs.filter(status=status)
    if language:
        qs = qs.filter(language=language)
    if job_id is not None:
        qs = qs.filter(job_id=job_id)
    return qs


def string_verdicts(*, dataset_id: int, string_ids: list[int]) -> dict[int, tuple[int, float]]:
    """Each string's verdict as the jobs of a dataset judged it: string id -> (job id, that
    job's threshold) for the newest finished job of the dataset that used the string (produced
    it or took it from the cache). A string passes that job when its similarity reaches the
    threshold; the pass/fail stored with a cached string is only its producer's verdict."""
    verdicts: dict[int, tuple[int, float]] = {}
    for start in range(0, len(string_ids), 5000):
        rows = (
            TranslationJobString.objects.filter(
                job__dataset_id=dataset_id,
                job__core_job__status="succeeded",
                string_id__in=string_ids[start : start + 5000],
            )
            .order_by("job_id")
            .values_list("string_id", "job__core_job_id", "job__threshold")
        )
        for string_id, job_id, threshold in rows:
            verdicts[string_id] = (job_id, threshold)  # the newest job wins (ordered by id)
    return verdicts


OCCURRENCES_SHOWN = 3


def _marked(text: str, needle: str) -> list[tuple[str, bool]]:
    """`text` cut into (part, is the needle) pieces, for highlighting; unmarked if absent."""
    if not needle or needle not in text:
        return [(text, False)]
    pieces: list[tuple[str, bool]] = []
    for i, part in enumerate(text.split(needle)):
        if i:
            pieces.append((needle, True))
        if part:
            pieces.append((part, False))
    return pieces


def _sentences(row, needle: str) -> dict:
    return {
        "context": _marked(row.context, needle),
        "question": _marked(row.question, needle),
        "answers": [_marked(answer, needle) for answer in (row.ans0, row.ans1, row.ans2)],
    }


def string_occurrences(
    *, string: TranslatedString, dataset_id: int | None = None, limit: int = OCCURRENCES_SHOWN
) -> dict:
    """Where a translated string occurs: the English instances (context, question, options)
    that contain its source text, each beside its translation into the string's language, the
    string marked on both sides (the machine translation where the translated instance still
    has it). A short string ("sc", "obc") is judged in its sentences. At most `limit`
    different contexts, and how many instances hold the string in all."""
    text = string.source_text
    english = Instance.objects.filter(
        language="en", retired_at__isnull=True, source_instance__isnull=True
    ).filter(
        Q(context__contains=text)
        | Q(*((column, text) for column in WHOLE_STRING_COLUMNS), _connector=Q.OR)
    )
    if dataset_id is not None:
        english = english.filter(dataset_id=dataset_id)
    shown: list = []
    contexts: set[str] = set()
    for row in english.order_by("id").only("id", *INSTANCE_TEXT_COLUMNS)[:200]:
        if row.context not in contexts:
            contexts.add(row.context)
            shown.append(row)
        if len(shown) == limit:
            break
    translated = {
        row.source_instance_id: row
        for row in Instance.objects.filter(
            source_instance_id__in=[row.pk for row in shown],
            language=string.language,
            retired_at__isnull=True,
        ).only("id", "source_instance_id", *INSTANCE_TEXT_COLUMNS)
    }
    return {
        "total": english.count(),
        "rows": [
            {
                "instance": row.pk,
                "english": _sentences(row, text),
                "translated": (
                    _sentences(translated[row.pk], string.translation)
                    if row.pk in translated
                    else None
                ),
                "translated_instance": translated[row.pk].pk if row.pk in translated else None,
            }
            for row in shown
        ],
    }
