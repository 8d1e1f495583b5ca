"""Respondents and answers from the public link (apps/surveys/services/responses.py): the
checks against the questionnaire, the length limits, demographics asked once, the response
cap under concurrent submits (real PostgreSQL, threads), erasure by code with the derived
counts recounted, and versioned questions."""

from __future__ import annotations

import threading
import unicodedata
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.utils import timezone

from apps.catalog.models import Category, StereotypeConcept
from apps.surveys.models import Answer, AnswerConcept, Respondent, Survey
from apps.surveys.questionnaire import Questionnaire
from apps.surveys.services.counts import survey_counts_refresh
from apps.surveys.services.responses import (
    CODE_ALPHABET,
    TEXT_MAX,
    AnswerInput,
    DeletionCodeUnknown,
    ResponseInvalid,
    SurveyUnavailable,
    answer_submit,
    deletion_code_for,
    demographics_save,
    respondent_erase_by_code,
    respondent_get_or_create,
    respondent_token_new,
    token_hash,
)
from apps.surveys.services.surveys import survey_close, survey_content_save

from .conftest import complete_content

pytestmark = pytest.mark.django_db


def good(**overrides) -> AnswerInput:
    values = {
        "category_key": "religion",
        "group_keys": ["muslim"],
        "text": "मुसलमान लोग ज़्यादा बच्चे पैदा करते हैं",
        "heard": True,
    }
    return AnswerInput(**{**values, **overrides})


def submit(survey, token=None, **overrides) -> Answer:
    return answer_submit(
        survey=survey, token=token or respondent_token_new(), answer=good(**overrides)
    )


def set_shape(survey, shape: str, **changes) -> Survey:
    content = {**survey.current_version.content, "answer_shape": shape, **changes}
    survey_content_save(survey=survey, content=content)
    survey.refresh_from_db()
    return survey


# --- tokens, codes, respondents --------------------------------------------------------------


def test_token_and_deletion_code_are_stored_only_hashed(survey) -> None:
    token = respondent_token_new()
    answer = submit(survey, token)
    respondent = answer.respondent
    code = deletion_code_for(token=token)
    assert len(code) == 9 and code[4] == "-"
    assert set(code.replace("-", "")) <= set(CODE_ALPHABET)
    assert not set(code) & set("0O1IL")
    assert respondent.token_hash == token_hash(token=token) != token
    stored = " ".join(
        str(v) for v in Respondent.objects.filter(pk=respondent.pk).values().get().values()
    )
    assert token not in stored and code not in stored and code.replace("-", "") not in stored
    # The same token is the same respondent, with the same code, every time.
    assert respondent_get_or_create(survey=survey, token=token).pk == respondent.pk
    assert deletion_code_for(token=token) == code
    assert deletion_code_for(token=respondent_token_new()) != code


def test_a_token_not_issued_here_is_refused(survey) -> None:
    with pytest.raises(Exception, match="not a token this site issued"):
        respondent_get_or_create(survey=survey, token="short<script>")
    assert not Respondent.objects.exists()


def test_many_answers_per_respondent(survey) -> None:
    token = respondent_token_new()
    for i in range(5):
        submit(survey, token, text=f"धारणा {i}")
    assert Respondent.objects.count() == 1
    assert Answer.objects.filter(respondent__token_hash=token_hash(token=token)).count() == 5


# --- demographics --------------------------------------------------------------------------


def test_demographics_are_asked_once(survey) -> None:
    token = respondent_token_new()
    respondent = demographics_save(
        survey=survey,
        token=token,
        values={"age": "25-34", "gender": "prefer_not", "religion": " जैन ", "income": ""},
    )
    assert respondent.demographics == {"age": "25-34", "gender": "prefer_not", "religion": "जैन"}
    assert respondent.demographics_asked
    assert respondent.demographics_version == survey.current_version
    again = demographics_save(survey=survey, token=token, values={"age": "65+"})
    assert again.pk == respondent.pk and again.demographics["age"] == "25-34"


def test_skipped_demographics_count_as_asked(survey) -> None:
    respondent = demographics_save(survey=survey, token=respondent_token_new(), values=None)
    assert respondent.demographics == {} and respondent.demographics_asked


def test_demographics_are_checked_against_the_version(survey) -> None:
    token = respondent_token_new()
    with pytest.raises(ResponseInvalid) as refused:
        demographics_save(
            survey=survey,
            token=token,
            values={"age": "12-17", "shoe_size": "44", "religion": "x" * 201},
        )
    errors = refused.value.errors
    assert errors["age"].code == "invalid" and "'12-17' is not an option" in str(errors["age"])
    assert errors["shoe_size"].code == "invalid"
    assert errors["religion"].code == "too_long" and errors["religion"].limit == 200
    assert "200 characters at most" in str(refused.value)
    assert not Respondent.objects.exists()


# --- answers -------------------------------------------------------------------------------


def test_answer_is_saved_with_the_version_language_and_exposure(survey) -> None:
    answer = answer_submit(
        survey=survey,
        token=respondent_token_new(),
        answer=good(group_keys=["muslim", "hindu", "muslim"], affected=True, experience="अनुभव"),
        language="es",
    )
    answer.refresh_from_db()
    assert answer.version == survey.current_version
    assert answer.language == "es" and answer.respondent.language == "es"
    assert answer.group_keys == ["muslim", "hindu"]
    assert (answer.heard, answer.witnessed, answer.affected) == (True, False, True)
    assert answer.status == Answer.Status.PENDING and answer.source == "web"


def test_unknown_language_falls_back_to_the_first(survey) -> None:
    answer = answer_submit(
        survey=survey, token=respondent_token_new(), answer=good(), language="fr"
    )
    assert answer.language == "hi"


@pytest.mark.parametrize(
    ("overrides", "field", "code"),
    [
        ({"category_key": ""}, "category_key", "required"),
        ({"category_key": "caste"}, "category_key", "invalid"),
        ({"group_keys": ["andalusia"]}, "group_keys", "invalid"),
        ({"text": "   "}, "text", "required"),
        ({"heard": False}, "exposure", "required"),
        ({"group_text": "g" * 301}, "group_text", "too_long"),
        ({"experience": "e" * (TEXT_MAX + 1)}, "experience", "too_long"),
    ],
)
def test_bad_answers_are_refused_naming_the_field(survey, overrides, field, code) -> None:
    with pytest.raises(ResponseInvalid) as refused:
        submit(survey, **overrides)
    assert refused.value.errors[field].code == code, refused.value.errors
    assert not Answer.objects.exists() and not Respondent.objects.exists()


def test_a_100_kb_answer_is_refused_with_the_limit_named(survey) -> None:
    with pytest.raises(ResponseInvalid) as refused:
        submit(survey, text="क" * 100_000)
    error = refused.value.errors["text"]
    assert error.code == "too_long" and error.limit == TEXT_MAX
    assert "2,000 characters at most" in str(refused.value)
    assert "100,000 given" in str(refused.value)
    assert not Answer.objects.exists()


def test_the_limit_counts_characters_after_nfc(survey) -> None:
    # "ऩ" typed decomposed (न + nukta) is two code points; stored composed it is one.
    decomposed = unicodedata.normalize("NFD", "\u0929") * TEXT_MAX
    assert len(decomposed) == 2 * TEXT_MAX
    answer = submit(survey, text=decomposed)
    assert answer.text == unicodedata.normalize("NFC", decomposed)
    assert len(answer.text) == TEXT_MAX


def test_html_is_kept_as_typed(survey) -> None:
    typed = '<script>alert("x")</script> <b>लोग</b> & more'
    answer = submit(survey, text=typed, experience="<img src=x onerror=alert(1)>")
    answer.refresh_from_db()
    assert answer.text == typed
    assert answer.experience == "<img src=x onerror=alert(1)>"


def test_typed_in_group_only_where_the_category_allows_it(survey) -> None:
    answer = submit(survey, group_keys=[], group_text="जैन")
    assert answer.group_text == "जैन" and answer.group_keys == []
    content = survey.current_version.content
    content["categories"][0]["allow_other"] = False
    survey_content_save(survey=survey, content=content)
    survey.refresh_from_db()
    with pytest.raises(ResponseInvalid) as refused:
        submit(survey, group_keys=[], group_text="जैन")
    assert refused.value.errors["group_text"].code == "invalid"


def test_answer_shapes(survey) -> None:
    survey = set_shape(survey, "tuple")
    with pytest.raises(ResponseInvalid) as refused:
        submit(survey, attribute="")
    assert set(refused.value.errors) == {"text", "attribute"}
    with pytest.raises(ResponseInvalid) as refused:
        submit(survey, text="", group_keys=[], attribute="आलसी")
    assert refused.value.errors["group_keys"].code == "required"
    tuple_answer = submit(survey, text="", attribute="आलसी")
    assert (tuple_answer.attribute, tuple_answer.group_keys) == ("आलसी", ["muslim"])

    survey = set_shape(survey, "either")
    assert submit(survey, text="", attribute="आलसी").attribute == "आलसी"
    assert submit(survey, attribute="").text
    with pytest.raises(ResponseInvalid) as refused:
        submit(survey, text="", attribute="")
    assert refused.value.errors["text"].code == "required"

    survey = set_shape(survey, "free_text", ask_experience=False)
    with pytest.raises(ResponseInvalid) as refused:
        submit(survey, attribute="आलसी", experience="कुछ")
    assert set(refused.value.errors) == {"attribute", "experience"}


# --- availability and the cap --------------------------------------------------------------


def test_closed_not_open_and_full_surveys_take_no_answers(survey) -> None:
    now = timezone.now()
    survey.opens_at = now + timedelta(days=1)
    survey.save()
    with pytest.raises(SurveyUnavailable) as refused:
        submit(survey)
    assert refused.value.reason == "not_open"
    survey.opens_at, survey.response_cap = None, 1
    survey.save()
    submit(survey)
    with pytest.raises(SurveyUnavailable) as refused:
        submit(survey)
    assert refused.value.reason == "full"
    survey.response_cap = None
    survey.save()
    survey_close(survey=survey)
    with pytest.raises(SurveyUnavailable) as refused:
        submit(survey)
    assert refused.value.reason == "closed"
    assert Answer.objects.count() == 1


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_concurrent_submits_do_not_overshoot_the_cap(survey) -> None:
    """12 respondents submit at once into a survey with room for 5 (2 taken): exactly 3 get in,
    each of the others is told it is full. Real PostgreSQL, one connection per thread."""
    survey.response_cap = 5
    survey.save()
    submit(survey)
    submit(survey)
    barrier = threading.Barrier(12)
    outcomes: list[str] = []
    lock = threading.Lock()

    def respondent() -> None:
        try:
            barrier.wait()
            submit(Survey.objects.get(pk=survey.pk))
            result = "saved"
        except SurveyUnavailable as refused:
            result = refused.reason
        except Exception as error:  # pragma: no cover - reported by the assertion below
            result = repr(error)
        finally:
            connections.close_all()
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=respondent) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(outcomes) == ["full"] * 9 + ["saved"] * 3, outcomes
    assert Answer.objects.filter(survey=survey).count() == 5
    assert connection.vendor == "postgresql"


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_capped_submits_far_from_the_cap_do_not_wait_for_each_other(survey) -> None:
    """Far from the cap a submit takes a shared (KEY SHARE) lock, not the exclusive one."""
    from django.test.utils import CaptureQueriesContext

    survey.response_cap = 10_000
    survey.save()
    with CaptureQueriesContext(connection) as queries:
        submit(survey)
    sql = " ".join(q["sql"] for q in queries.captured_queries)
    assert "FOR KEY SHARE" in sql and "FOR UPDATE" not in sql
    survey.response_cap = 2
    survey.save()
    with CaptureQueriesContext(connection) as queries:
        submit(survey)
    sql = " ".join(q["sql"] for q in queries.captured_queries)
    assert "FOR UPDATE" in sql  # near the cap: the exact, exclusive path
    assert Answer.objects.count() == 2


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_waves_of_concurrent_submits_fill_the_cap_exactly(survey, monkeypatch) -> None:
    """Both paths at once: the in-flight bound lowered to 15 (still above the 14 threads +
    this test's connection), cap 30, three waves of 14 concurrent submits: the first wave
    goes through the shared path, the second mixes both, the third finds the survey full."""
    from apps.surveys.services import responses

    monkeypatch.setattr(responses, "_connections_bound", lambda alias: 15)
    survey.response_cap = 30
    survey.save()
    outcomes: list[str] = []
    lock = threading.Lock()

    def respondent(barrier) -> None:
        try:
            barrier.wait()
            submit(Survey.objects.get(pk=survey.pk))
            result = "saved"
        except SurveyUnavailable as refused:
            result = refused.reason
        except Exception as error:  # pragma: no cover - reported by the assertion below
            result = repr(error)
        finally:
            connections.close_all()
        with lock:
            outcomes.append(result)

    for _ in range(3):
        barrier = threading.Barrier(14)
        threads = [threading.Thread(target=respondent, args=(barrier,)) for _ in range(14)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    assert sorted(outcomes) == ["full"] * 12 + ["saved"] * 30, outcomes
    assert Answer.objects.filter(survey=survey).count() == 30


# --- erasure -------------------------------------------------------------------------------


def test_erase_by_code_removes_answers_demographics_and_recounts(survey, dataset) -> None:
    category = Category.objects.create(name="Religion-erase")
    concept = StereotypeConcept.objects.create(
        category=category, dataset=dataset, statement="S", mentions=7
    )
    other = StereotypeConcept.objects.create(category=category, dataset=dataset, statement="T")
    keep, leave = respondent_token_new(), respondent_token_new()
    demographics_save(survey=survey, token=leave, values={"age": "18-24"})
    leaving = [submit(survey, leave, affected=True), submit(survey, leave)]
    staying = [submit(survey, keep), submit(survey, keep)]
    for answer in [*leaving, staying[0]]:
        AnswerConcept.objects.create(answer=answer, concept=concept)
    AnswerConcept.objects.create(answer=leaving[1], concept=other)
    survey_counts_refresh(concept_ids=[concept.pk, other.pk])
    concept.refresh_from_db()
    other.refresh_from_db()
    assert (concept.survey_mentions, concept.survey_affected) == (2, 1)
    assert other.survey_mentions == 1

    # Typed as someone copies it off paper: lower case, spaces instead of the dash.
    code = deletion_code_for(token=leave).lower().replace("-", " ")
    erased = respondent_erase_by_code(survey=survey, code=code)
    assert (erased.respondents, erased.answers, erased.concepts_recounted) == (1, 2, 2)
    assert not Respondent.objects.filter(token_hash=token_hash(token=leave)).exists()
    assert set(Answer.objects.values_list("pk", flat=True)) == {a.pk for a in staying}
    concept.refresh_from_db()
    other.refresh_from_db()
    assert (concept.survey_mentions, concept.survey_affected) == (1, 0)
    # No coded answer left: back to the typed, reported count.
    assert other.survey_mentions is None and other.mentions == 0
    assert concept.mentions == 7


def test_unknown_code_changes_nothing(survey) -> None:
    token = respondent_token_new()
    submit(survey, token)
    with pytest.raises(DeletionCodeUnknown, match="no answers match that deletion code"):
        respondent_erase_by_code(survey=survey, code="AAAA-AAAA")
    with pytest.raises(DeletionCodeUnknown):
        respondent_erase_by_code(survey=survey, code="")
    assert Answer.objects.count() == 1 and Respondent.objects.count() == 1


def test_a_code_only_erases_in_its_own_survey(survey, dataset, researcher) -> None:
    from apps.surveys.services.surveys import survey_create, survey_open

    second = survey_open(
        survey=survey_create(
            dataset=dataset,
            slug="second",
            languages=["hi"],
            content=complete_content(["hi"]),
            created_by=researcher,
        )
    )
    token = respondent_token_new()
    submit(survey, token)
    with pytest.raises(DeletionCodeUnknown):
        respondent_erase_by_code(survey=second, code=deletion_code_for(token=token))
    assert Answer.objects.count() == 1


# --- versions ------------------------------------------------------------------------------


def test_an_edited_survey_keeps_old_answers_on_the_old_version(survey) -> None:
    first = survey.current_version
    old = submit(survey, group_keys=["hindu"])
    content = complete_content(["hi", "es"])
    content["categories"][0]["groups"] = [
        {"key": "sikh", "labels": {"hi": "सिख", "es": "Sijs"}},
    ]
    content["strings"]["hi"]["stereotype_label"] = "नया प्रश्न"
    second = survey_content_save(survey=survey, content=content)
    survey.refresh_from_db()
    assert second.pk != first.pk and second.number == 2
    assert survey.current_version == second
    old.refresh_from_db()
    assert old.version == first
    # Old answers read in the words they were given to.
    reader = Questionnaire(old.version.content, old.language)
    assert reader.group_label("religion", "hindu") == "हिंदू"
    assert reader.text("stereotype_label") != "नया प्रश्न"
    # New answers are checked against the new version; a form drawn from the old one still
    # answers the old questions.
    with pytest.raises(ResponseInvalid):
        submit(survey, group_keys=["hindu"])
    assert submit(survey, group_keys=["sikh"]).version == second
    from_old_form = answer_submit(
        survey=survey,
        token=respondent_token_new(),
        answer=good(group_keys=["hindu"]),
        version=first,
    )
    assert from_old_form.version == first


# --- shipped strings -----------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "hi", "es", "ca"])
def test_shipped_languages_have_every_string_and_label(language) -> None:
    from apps.surveys.questionnaire import content_problems, default_content
    from apps.surveys.strings import DEFAULT_STRINGS, STRING_KEYS

    assert set(DEFAULT_STRINGS[language]) == set(STRING_KEYS)
    assert content_problems(default_content(languages=[language])) == []
    assert "{limit}" in DEFAULT_STRINGS[language]["too_long"]


def test_the_hindi_texts_have_no_latin_script() -> None:
    import re

    from apps.surveys.strings import DEFAULT_DEMOGRAPHICS, DEFAULT_STRINGS

    texts = [v.replace("{limit}", "") for v in DEFAULT_STRINGS["hi"].values()]
    for question in DEFAULT_DEMOGRAPHICS:
        texts += [question["labels"]["hi"], *(o["labels"]["hi"] for o in question["options"])]
    assert [t for t in texts if re.search("[A-Za-z]", t)] == []
    assert all(unicodedata.is_normalized("NFC", t) for t in texts)
