"""Create and edit surveys, and open and close them.

The questionnaire lives in SurveyVersion.content (apps/surveys/questionnaire.py). A version
that answers point to is frozen: saving an edit then makes a new version, so old answers stay
readable in the words they were given to (the issue's "versioned questions").
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.catalog.models import Dataset
from apps.core.errors import ConflictError, KasautiError
from apps.core.text import is_language_code

from ..models import Answer, Survey, SurveyVersion
from ..questionnaire import content_normalise, content_problems, default_content
from ..strings import DEFAULT_STRINGS


class SurveyNotReady(KasautiError):
    """The questionnaire has gaps (a language without its strings, say): listed, one a line."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(
            "the survey cannot open until these are filled in:\n"
            + "\n".join(f"  {p}" for p in problems)
        )


@transaction.atomic
def survey_create(
    *,
    dataset: Dataset,
    slug: str,
    languages: list[str],
    content: dict | None = None,
    created_by: Any = None,
    opens_at: datetime | None = None,
    closes_at: datetime | None = None,
    response_cap: int | None = None,
) -> Survey:
    """A draft survey with its first version: `content`, or the default questionnaire in
    `languages` (default strings and EsBBQ's demographic questions)."""
    if Survey.objects.filter(slug=slug).exists():
        raise ConflictError(f"a survey with the link name {slug!r} already exists")
    _dates_check(opens_at=opens_at, closes_at=closes_at)
    survey = Survey.objects.create(
        dataset=dataset,
        slug=slug,
        opens_at=opens_at,
        closes_at=closes_at,
        response_cap=response_cap,
        created_by=created_by,
    )
    content = content_normalise(content or default_content(languages=languages))
    version = SurveyVersion.objects.create(
        survey=survey, number=1, content=content, created_by=created_by
    )
    survey.current_version = version
    survey.save(update_fields=["current_version"])
    return survey


def _dates_check(*, opens_at: datetime | None, closes_at: datetime | None) -> None:
    if opens_at and closes_at and closes_at <= opens_at:
        raise KasautiError("closes_at: the survey must close after it opens")


@transaction.atomic
def survey_content_save(*, survey: Survey, content: dict, saved_by: Any = None) -> SurveyVersion:
    """Save an edited questionnaire. The current version is changed in place while no answer
    points to it; once one does, a new version is made and becomes current. An open survey
    cannot be given a questionnaire with gaps."""
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    content = content_normalise(content)
    if survey.status == Survey.Status.OPEN:
        problems = content_problems(content)
        if problems:
            raise SurveyNotReady(problems)
    current = survey.current_version
    if current is not None and current.content == content:
        return current
    if current is not None and not Answer.objects.filter(version=current).exists():
        current.content = content
        current.save(update_fields=["content"])
        return current
    number = (current.number if current else 0) + 1
    version = SurveyVersion.objects.create(
        survey=survey, number=number, content=content, created_by=saved_by
    )
    survey.current_version = version
    survey.save(update_fields=["current_version"])
    return version


@transaction.atomic
def survey_settings_update(
    *,
    survey: Survey,
    opens_at: datetime | None,
    closes_at: datetime | None,
    response_cap: int | None,
) -> Survey:
    _dates_check(opens_at=opens_at, closes_at=closes_at)
    survey.opens_at, survey.closes_at, survey.response_cap = opens_at, closes_at, response_cap
    survey.save(update_fields=["opens_at", "closes_at", "response_cap"])
    return survey


@transaction.atomic
def survey_open(*, survey: Survey) -> Survey:
    """Publish the link. Refused, with every gap listed, while the questionnaire has gaps."""
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    problems = content_problems(survey.current_version.content)
    if problems:
        raise SurveyNotReady(problems)
    survey.status = Survey.Status.OPEN
    survey.save(update_fields=["status"])
    return survey


def survey_close(*, survey: Survey) -> Survey:
    survey.status = Survey.Status.CLOSED
    survey.save(update_fields=["status"])
    return survey


@dataclass(frozen=True)
class Availability:
    accepting: bool
    # "" when accepting; else "draft", "not_open", "closed" or "full": which page to show.
    reason: str = ""


def survey_availability(*, survey: Survey, now: datetime | None = None) -> Availability:
    """Whether the public link takes answers now, and if not, why (the page says so kindly)."""
    now = now or timezone.now()
    if survey.status == Survey.Status.DRAFT:
        return Availability(False, "draft")
    if survey.status == Survey.Status.CLOSED or (survey.closes_at and now >= survey.closes_at):
        return Availability(False, "closed")
    if survey.opens_at and now < survey.opens_at:
        return Availability(False, "not_open")
    cap = survey.response_cap
    if cap is not None and Answer.objects.filter(survey=survey).count() >= cap:
        return Availability(False, "full")
    return Availability(True)


@transaction.atomic
def survey_delete(*, survey: Survey) -> None:
    """Delete a draft that no one has answered (a survey made by mistake). A survey with
    answers, or one that was ever opened, is closed instead: its answers are research data."""
    survey = Survey.objects.select_for_update().get(pk=survey.pk)
    if survey.status != Survey.Status.DRAFT:
        raise ConflictError(
            f"survey {survey.slug!r} is {survey.status}: only a draft can be deleted"
        )
    if Answer.objects.filter(survey=survey).exists():
        raise ConflictError(f"survey {survey.slug!r} has answers: close it instead of deleting it")
    # current_version protects its version from deletion; let go of it first.
    Survey.objects.filter(pk=survey.pk).update(current_version=None)
    survey.refresh_from_db()
    survey.delete()


def survey_languages_check(*, languages: list[str]) -> list[str]:
    """The language codes, checked: at least one, each a language code (hi, es, pt-BR), none
    twice. Returns them in order; raises KasautiError naming the bad code."""
    codes = [code.strip() for code in languages if code.strip()]
    if not codes:
        raise KasautiError("languages: choose at least one language")
    for code in codes:
        if not is_language_code(code):
            raise KasautiError(
                f"languages: {code!r} is not a language code (two or three lowercase letters, "
                "e.g. hi, es, mni)"
            )
    twice = sorted({code for code in codes if codes.count(code) > 1})
    if twice:
        raise KasautiError(f"languages: {', '.join(twice)} listed twice")
    return codes


def survey_languages_set(
    *, survey: Survey, languages: list[str], saved_by: Any = None
) -> SurveyVersion:
    """Change the survey's own languages (the first is the default). A language added starts
    from Kasauti's default texts where it has them, else empty (the gaps list says what to
    fill in); a language removed takes its strings and labels with it. Saved as any edit is
    (a new version once the current one has answers)."""
    languages = survey_languages_check(languages=languages)
    content = copy.deepcopy(survey.current_version.content)
    content["languages"] = languages
    content["strings"] = {
        lang: content.get("strings", {}).get(lang) or dict(DEFAULT_STRINGS.get(lang, {}))
        for lang in languages
    }

    def relabel(item: dict) -> None:
        labels = item.get("labels") or {}
        item["labels"] = {lang: labels.get(lang, "") for lang in languages}

    for category in content.get("categories") or []:
        relabel(category)
        for group in category.get("groups") or []:
            relabel(group)
    for question in content.get("demographics") or []:
        relabel(question)
        for option in question.get("options") or []:
            relabel(option)
    return survey_content_save(survey=survey, content=content, saved_by=saved_by)
