"""Reads of translation jobs, strings and corrections."""

from __future__ import annotations

from django.db.models import QuerySet

from .models import CorrectionItem, TranslatedString, TranslationJob, TranslationJobString


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
