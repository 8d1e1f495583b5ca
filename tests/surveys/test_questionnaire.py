"""The questionnaire's gaps, versioning of edits, and when the public link takes answers."""

from __future__ import annotations

import copy
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.core.errors import ConflictError, KasautiError
from apps.surveys.models import Answer, Respondent, SurveyVersion
from apps.surveys.questionnaire import Questionnaire, content_problems, default_content
from apps.surveys.services.surveys import (
    SurveyNotReady,
    survey_availability,
    survey_close,
    survey_content_save,
    survey_create,
    survey_open,
)

from .conftest import complete_content


def _answer(survey, *, version=None) -> Answer:
    respondent = Respondent.objects.create(
        survey=survey, token_hash=f"t{Respondent.objects.count()}"
    )
    return Answer.objects.create(
        survey=survey,
        version=version or survey.current_version,
        respondent=respondent,
        language="hi",
        text="एक रूढ़िवादिता",
        submitted_at=timezone.now(),
    )


def test_a_language_without_default_texts_lists_every_gap_by_language_and_key():
    content = default_content(languages=["hi", "or"])
    problems = content_problems(content)
    # Odia has no default texts: every string and every demographic label is a gap, named.
    assert "or: strings.submit is empty" in problems
    assert "or: demographics[age] has no label" in problems
    assert "or: demographics[gender].options[woman] has no label" in problems


def test_keys_must_be_unique_and_plain():
    content = complete_content(["es"])
    content["categories"].append(copy.deepcopy(content["categories"][0]))
    content["categories"][-1]["groups"][0]["key"] = "Bad Key"
    problems = content_problems(content)
    assert "categories: key 'religion' appears twice" in problems
    assert any("categories[religion].groups: key 'Bad Key'" in p for p in problems)


def test_open_is_refused_with_the_gaps_listed_and_changes_nothing(dataset):
    survey = survey_create(dataset=dataset, slug="gaps", languages=["ta"])
    with pytest.raises(SurveyNotReady) as caught:
        survey_open(survey=survey)
    assert "ta: strings.title is empty" in caught.value.problems
    survey.refresh_from_db()
    assert survey.status == "draft"


def test_slug_is_unique(dataset, survey):
    with pytest.raises(ConflictError):
        survey_create(dataset=dataset, slug=survey.slug, languages=["es"])


def test_edits_change_an_unanswered_version_in_place_and_version_an_answered_one(survey):
    first = survey.current_version
    content = copy.deepcopy(first.content)
    content["strings"]["es"]["submit"] = "Enviar respuesta"
    assert survey_content_save(survey=survey, content=content) == first  # no answers yet
    answer = _answer(survey)

    content = copy.deepcopy(content)
    content["strings"]["es"]["submit"] = "Mandar"
    content["categories"][0]["groups"][0]["labels"]["es"] = "Personas musulmanas"
    second = survey_content_save(survey=survey, content=content)
    assert second.number == 2 and second != first
    survey.refresh_from_db()
    assert survey.current_version == second

    # The old answer is read in the words it was given to.
    answer.refresh_from_db()
    old = Questionnaire(answer.version.content, "es")
    assert answer.version == first
    assert old.text("submit") == "Enviar respuesta"
    assert old.group_label("religion", "muslim") == "Musulmanes"
    assert SurveyVersion.objects.filter(survey=survey).count() == 2


def test_saving_the_same_content_makes_no_version(survey):
    _answer(survey)
    same = copy.deepcopy(survey.current_version.content)
    assert survey_content_save(survey=survey, content=same) == survey.current_version


def test_an_open_survey_cannot_be_given_gaps(survey):
    content = copy.deepcopy(survey.current_version.content)
    content["strings"]["hi"]["submit"] = "  "
    with pytest.raises(SurveyNotReady) as caught:
        survey_content_save(survey=survey, content=content)
    assert caught.value.problems == ["hi: strings.submit is empty"]


def test_text_is_nfc_normalised_on_save(survey):
    content = copy.deepcopy(survey.current_version.content)
    # A decomposed ñ (n + combining tilde) is stored composed; Devanagari round-trips as is.
    content["strings"]["es"]["title"] = "Estereotipos en Espan\u0303a"
    content["strings"]["hi"]["title"] = "समाज में रूढ़ियाँ"
    version = survey_content_save(survey=survey, content=content)
    version.refresh_from_db()
    assert version.content["strings"]["es"]["title"] == "Estereotipos en España"
    assert version.content["strings"]["hi"]["title"] == "समाज में रूढ़ियाँ"


def test_availability_reasons(survey):
    now = timezone.now()
    assert survey_availability(survey=survey, now=now).accepting
    survey.opens_at = now + timedelta(days=1)
    assert survey_availability(survey=survey, now=now).reason == "not_open"
    survey.opens_at, survey.closes_at = None, now
    assert survey_availability(survey=survey, now=now).reason == "closed"
    survey.closes_at, survey.response_cap = None, 1
    assert survey_availability(survey=survey, now=now).accepting
    _answer(survey)
    assert survey_availability(survey=survey, now=now).reason == "full"
    survey.response_cap = None
    survey_close(survey=survey)
    assert survey_availability(survey=survey, now=now).reason == "closed"


def test_a_draft_is_not_available(dataset):
    survey = survey_create(dataset=dataset, slug="draft", languages=["es"])
    assert survey_availability(survey=survey).reason == "draft"


def test_dates_must_be_in_order(dataset):
    now = timezone.now()
    with pytest.raises(KasautiError, match="close after it opens"):
        survey_create(dataset=dataset, slug="d", languages=["es"], opens_at=now, closes_at=now)
