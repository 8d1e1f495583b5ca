"""The survey app's kinds of background job (apps/core/registry.py JobKind)."""

from __future__ import annotations

from django.urls import reverse

from apps.core.models import Job
from apps.core.registry import JobKind, JobLink

SUGGESTIONS = "survey_suggestions"


def _suggestions_links(job: Job) -> list[JobLink]:
    slug = job.params.get("survey_slug")
    if not slug:
        return []
    return [JobLink(f"Coding queue of {slug}", reverse("surveys:coding", args=[slug]))]


def _suggestions_summary(job: Job) -> list[str]:
    result = job.result or {}
    if not result:
        return []
    lines = [
        f"{result.get('suggestions', 0):,} suggestion(s) for {result.get('answers', 0):,} "
        f"answer(s) waiting to be coded, against {result.get('concepts', 0):,} concept(s)."
    ]
    timings = result.get("timings") or {}
    if timings:
        lines.append(
            "seconds: " + ", ".join(f"{key} {value:.2f}" for key, value in timings.items())
        )
    return lines


SUGGESTIONS_KIND = JobKind(
    name=SUGGESTIONS,
    label="Suggest concepts for survey answers",
    task="apps.surveys.tasks.compute_suggestions",
    summary=_suggestions_summary,
    links=_suggestions_links,
)

JOB_KINDS: list = [SUGGESTIONS_KIND]
