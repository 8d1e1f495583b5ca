"""The translation app's kind of background job, plugged into core's job system: core owns
status, progress, heartbeat, cancel, resume and the page; this says what the job links to,
how its parts (languages) progress, and how it is re-queued."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.urls import reverse

from apps.catalog.models import LANGUAGE_NAMES
from apps.core.models import Job
from apps.core.registry import JobKind, JobLink, JobPart

TRANSLATE = "translate"
STRINGS_PER_PAGE = 50


def _translation(job: Job):
    from .models import TranslationJob

    return TranslationJob.objects.filter(core_job=job).select_related("dataset").first()


def _links(job: Job) -> list[JobLink]:
    dataset_id = job.params.get("dataset_id")
    if not dataset_id:
        return []
    name = job.params.get("dataset_name") or f"dataset #{dataset_id}"
    links = [JobLink(f"Dataset {name}", reverse("web:dataset", args=[dataset_id]))]
    translation = _translation(job)
    if job.status == Job.Status.SUCCEEDED and translation is not None:
        if translation.source == "instances":
            for language in translation.languages:
                url = reverse("web:instances", args=[dataset_id])
                links.append(JobLink(f"View instances ({language})", f"{url}?language={language}"))
        url = reverse("correction-list")
        links.append(JobLink("Corrections to review", f"{url}?job={job.pk}&status=open"))
    return links


def _summary(job: Job) -> list[str]:
    result = job.result or {}
    lines = [
        f"{result.get('created', 0):,} item(s) created from {result.get('unique_strings', 0):,} "
        f"unique strings ({result.get('strings_translated', 0):,} translated, "
        f"{result.get('strings_from_cache', 0):,} from the cache)."
    ]
    for language, entry in sorted((result.get("by_language") or {}).items()):
        lines.append(
            f"{language}: {entry['created']:,} created, {entry['passed']:,} strings passed, "
            f"{entry['flagged']:,} flagged for review, {entry['option_mismatches']:,} "
            "answer-option mismatches"
        )
    return lines


def _parts(job: Job) -> list[JobPart]:
    translation = _translation(job)
    if translation is None:
        return []
    progress = translation.progress_by_language or {}
    return [
        JobPart(
            f"{LANGUAGE_NAMES.get(code, code)} ({code})",
            progress.get(code, {}).get("done", 0),
            progress.get(code, {}).get("total", 0),
        )
        for code in translation.languages
    ]


def _page_context(job: Job, request) -> dict[str, Any]:
    from . import selectors

    translation = _translation(job)
    if translation is None:
        return {}
    language = request.GET.get("language", "")
    passed = {"1": True, "0": False}.get(request.GET.get("passed", ""))
    strings = selectors.translated_string_list(job=translation, language=language, passed=passed)
    query = request.GET.copy()
    query.pop("page", None)
    return {
        "translation": translation,
        "page_obj": Paginator(strings, STRINGS_PER_PAGE).get_page(request.GET.get("page")),
        "language": language,
        "passed": request.GET.get("passed", ""),
        "query": query.urlencode(),
    }


def _resume(job: Job) -> None:
    # The core job's translation job: queue what it still needs.
    from .models import TranslationJob
    from .services.control import translation_job_requeue

    translation_job_requeue(job=TranslationJob.objects.get(core_job=job))


TRANSLATE_KIND = JobKind(
    name=TRANSLATE,
    label="Translate",
    task="apps.translation.tasks.start_translation_job",
    summary=_summary,
    links=_links,
    parts=_parts,
    page_template="translation/job_extra.html",
    page_context=_page_context,
    resume=_resume,
)
