"""Reads of translation jobs, strings and corrections."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from .models import CorrectionItem, TranslatedString, TranslationJob, TranslationJobString


def translation_job_list(*, dataset_id: int | None = None) -> QuerySet[TranslationJob]:
    qs = TranslationJob.objects.select_related("dataset", "created_by")
    if dataset_id is not None:
        qs = qs.filter(dataset_id=dataset_id)
    return qs


def translation_job_is_stale(job: TranslationJob) -> bool:
    """No sign of life for longer than the stale limit: offer (or run) a resume."""
    if job.is_finished:
        return False
    last = job.heartbeat_at or job.created_at
    limit = timedelta(seconds=settings.KASAUTI_TRANSLATION_STALE_SECONDS)
    return timezone.now() - last > limit


def translated_string_list(
    *,
    job: TranslationJob | None = None,
    language: str = "",
    passed: bool | None = None,
) -> QuerySet[TranslatedString]:
    """Strings, optionally those a job used (produced or reused from the cache). With a job,
    pass/flag is judged by that job's threshold, not by the one stored with the string."""
    qs = TranslatedString.objects.all()
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
    qs = CorrectionItem.objects.select_related("translated_string", "instance").prefetch_related(
        "revisions"
    )
    if status:
        qs = qs.filter(status=status)
    if language:
        qs = qs.filter(language=language)
    if job_id is not None:
        qs = qs.filter(job_id=job_id)
    return qs
