"""The coding queue pages through Django's test client: who may see and act, escaping of
whatever respondents typed, labels in the survey's language, every decision and bulk action,
conflicts, filters and pages."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from apps.core.models import Job
from apps.surveys.models import Answer, AnswerSuggestion, CodingEvent
from apps.surveys.services.coding import answer_code

from .coding_factories import answer, concept, respondent

pytestmark = pytest.mark.django_db

EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def url(survey, name="coding", *args):
    return reverse(f"surveys:{name}", args=[survey.slug, *args])


@pytest.fixture
def rclient(client, researcher):
    client.force_login(researcher)
    return client


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def test_permissions(client, survey, annotator, researcher):
    a = answer(survey)
    response = client.get(url(survey))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    client.force_login(annotator)
    assert client.get(url(survey)).status_code == 403
    response = client.post(url(survey, "coding-invalid", a.pk), {"reason": "spam"})
    assert response.status_code == 403
    a.refresh_from_db()
    assert a.status == "pending"
    client.force_login(researcher)
    assert client.get(url(survey)).status_code == 200
    assert client.get(reverse("surveys:coding", args=["no-such-survey"])).status_code == 404
    assert client.get(url(survey, "coding-invalid", a.pk)).status_code == 405


def test_answer_text_is_escaped_everywhere(rclient, survey, dataset):
    evil_concept = concept(dataset, f"concept {EVIL}")
    a = answer(survey, text=EVIL, experience=EVIL, group_text=EVIL, attribute=EVIL)
    AnswerSuggestion.objects.create(answer=a, concept=evil_concept, rank=1, score=0.9)
    html = rclient.get(url(survey)).content.decode()
    assert EVIL not in html and "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html


def test_labels_in_the_answers_language_and_exposure(rclient, survey):
    answer(survey, language="hi", text="हिंदी उत्तर", group_keys=["muslim"], affected=True)
    answer(survey, language="es", text="respuesta", group_keys=["hindu"], heard=True)
    html = rclient.get(url(survey)).content.decode()
    assert "मुसलमान" in html and "धर्म" in html  # category and group in Hindi
    assert "Hindúes" in html and "Religión" in html  # in Spanish
    assert "Muslims" not in html and "Hindus" not in html
    assert "हिंदी उत्तर" in html and 'class="badge affected">affected' in html


def test_suggestions_shown_and_accepted(rclient, survey, dataset, researcher):
    c = concept(dataset, "Women are bad drivers")
    a = answer(survey, text="women cannot drive")
    AnswerSuggestion.objects.create(answer=a, concept=c, rank=1, score=0.8123)
    html = rclient.get(url(survey)).content.decode()
    assert "Women are bad drivers" in html and "0.81" in html
    response = rclient.post(
        url(survey, "coding-code", a.pk),
        {"concept": str(c.pk), "seen": "", "back": "status=pending"},
        follow=True,
    )
    assert response.redirect_chain[-1][0].endswith("/coding/?status=pending")
    assert f"Answer #{a.pk} coded into concept #{c.pk}." in messages_of(response)
    a.refresh_from_db()
    assert a.status == "coded" and list(a.codings.values_list("concept_id", flat=True)) == [c.pk]
    c.refresh_from_db()
    assert c.survey_mentions == 1


def test_choose_any_concept_and_new_concept(rclient, survey, dataset):
    c = concept(dataset, "Andalusians are lazy")
    a1, a2 = answer(survey), answer(survey)
    rclient.post(url(survey, "coding-code", a1.pk), {"concept": f"#{c.pk} Andalusians are lazy"})
    assert a1.codings.get().concept == c
    response = rclient.post(
        url(survey, "coding-code", a2.pk),
        {
            "new": "1",
            "statement": "Los andaluces son graciosos",
            "target_groups": "Andaluces, Sevillanos",
            "attribute": "graciosos",
            "category": "Region",
            "subcategory": "sur",
            "polarity": "positive",
        },
        follow=True,
    )
    assert f"Answer #{a2.pk} coded into a new concept." in messages_of(response)
    new = a2.codings.get().concept
    assert new.target_groups == ["Andaluces", "Sevillanos"] and new.polarity == "positive"
    assert new.dataset == dataset and new.source == "survey"
    # A bad new concept and an unreadable chooser entry: messages, nothing changed.
    a3 = answer(survey)
    response = rclient.post(
        url(survey, "coding-code", a3.pk),
        {"new": "1", "statement": "", "target_groups": "", "category": "", "polarity": "x"},
        follow=True,
    )
    assert any("new concept" in m and "statement" in m for m in messages_of(response))
    response = rclient.post(url(survey, "coding-code", a3.pk), {"concept": "lazy"}, follow=True)
    assert any("choose a concept from the list" in m for m in messages_of(response))
    assert not a3.events.exists()


def test_invalid_duplicate_reopen_uncode_and_history(rclient, survey, dataset, researcher):
    who = respondent(survey)
    first, repeat = answer(survey, who, text="first"), answer(survey, who, text="again")
    html = rclient.get(url(survey)).content.decode()
    assert f'<option value="{first.pk}">#{first.pk}</option>' in html  # same respondent offered
    response = rclient.post(
        url(survey, "coding-invalid", repeat.pk),
        {"reason": "duplicate", "duplicate_of": first.pk, "seen": ""},
        follow=True,
    )
    assert any("marked invalid" in m for m in messages_of(response))
    repeat.refresh_from_db()
    assert repeat.invalid_reason == "duplicate"
    response = rclient.post(
        url(survey, "coding-invalid", first.pk), {"reason": "duplicate"}, follow=True
    )
    assert any("duplicate of" in m for m in messages_of(response))
    html = rclient.get(url(survey) + "?status=invalid").content.decode()
    assert f'id="answer-{repeat.pk}"' in html and f"(duplicate of #{first.pk})" in html
    assert "History (1)" in html
    seen = repeat.events.get().pk
    rclient.post(url(survey, "coding-reopen", repeat.pk), {"seen": seen})
    repeat.refresh_from_db()
    assert repeat.status == "pending"
    c = concept(dataset)
    answer_code(answer=first, concept_ids=[c.pk], by=researcher)
    rclient.post(url(survey, "coding-uncode", first.pk), {"concept": c.pk})
    assert not first.codings.exists()
    assert [e.action for e in first.events.all()] == ["code", "uncode"]


def test_stale_page_is_refused_with_a_conflict(rclient, survey, dataset, admin_user):
    c = concept(dataset)
    a = answer(survey)
    answer_code(answer=a, concept_ids=[c.pk], by=admin_user)  # someone else, meanwhile
    response = rclient.post(
        url(survey, "coding-invalid", a.pk), {"reason": "spam", "seen": ""}, follow=True
    )
    assert any("changed since you loaded it" in m and "ada" in m for m in messages_of(response))
    a.refresh_from_db()
    assert a.status == "coded" and a.events.count() == 1


def test_bulk_actions(rclient, survey, dataset):
    from apps.surveys.services.surveys import survey_create

    from .conftest import complete_content

    c = concept(dataset, "bulk target")
    a1, a2, a3 = answer(survey), answer(survey, affected=True), answer(survey)
    response = rclient.post(
        url(survey, "coding-bulk"),
        {"action": "code", "answer": [a1.pk, a2.pk], "concept": f"#{c.pk} bulk target"},
        follow=True,
    )
    assert "2 answer(s) coded into concept" in " ".join(messages_of(response))
    c.refresh_from_db()
    assert (c.survey_mentions, c.survey_affected) == (2, 1)
    response = rclient.post(
        url(survey, "coding-bulk"),
        {"action": "invalid", "answer": [a1.pk, a3.pk], "reason": "spam"},
        follow=True,
    )
    assert "2 answer(s) marked invalid." in messages_of(response)
    c.refresh_from_db()
    assert c.survey_mentions == 1
    # An answer of another survey in the selection: refused, nothing changed.
    other = survey_create(
        dataset=dataset, slug="otra", languages=["es"], content=complete_content(["es"])
    )
    stray = answer(other)
    before = CodingEvent.objects.count()
    response = rclient.post(
        url(survey, "coding-bulk"),
        {"action": "invalid", "answer": [a2.pk, stray.pk], "reason": "spam"},
        follow=True,
    )
    assert any(f"no answer #{stray.pk} in survey" in m for m in messages_of(response))
    assert CodingEvent.objects.count() == before
    response = rclient.post(url(survey, "coding-bulk"), {"action": "code"}, follow=True)
    assert any("bulk action" in m for m in messages_of(response))


def test_filters_search_and_keyset_pages(rclient, survey):
    from apps.surveys.selectors import CODING_PAGE_SIZE

    answers = [answer(survey, text=f"texto {i:03d}", language="es") for i in range(25)]
    answer(survey, text="needle in hindi", language="hi", category_key="region")
    html = rclient.get(url(survey)).content.decode()
    shown = re.findall(r'id="answer-(\d+)"', html)
    assert len(shown) == CODING_PAGE_SIZE and "26 matching" in html
    next_link = re.search(r'href="\?([^"]+)" id="next-page"', html).group(1).replace("&amp;", "&")
    html2 = rclient.get(url(survey) + "?" + next_link).content.decode()
    shown2 = re.findall(r'id="answer-(\d+)"', html2)
    assert len(shown2) == 26 - CODING_PAGE_SIZE and not set(shown) & set(shown2)
    assert 'id="next-page"' not in html2
    html = rclient.get(url(survey) + "?q=NEEDLE").content.decode()
    assert re.findall(r'id="answer-(\d+)"', html) == [str(Answer.objects.get(language="hi").pk)]
    html = rclient.get(url(survey) + "?language=es&category=religion").content.decode()
    assert len(re.findall(r'id="answer-(\d+)"', html)) == CODING_PAGE_SIZE
    assert "25 matching" in html
    html = rclient.get(url(survey) + "?status=coded").content.decode()
    assert 'id="queue-empty"' in html
    assert answers  # created
    # A malformed cursor shows the first page rather than an error.
    assert rclient.get(url(survey) + "?after=garbage").status_code == 200


def test_side_list_counts_and_verdicts(rclient, survey, dataset, researcher):
    passing = concept(dataset, "passes with affected")
    reported = concept(dataset, "typed count", mentions=4)
    answer_code(answer=answer(survey), concept_ids=[passing.pk], by=researcher)
    answer_code(answer=answer(survey, affected=True), concept_ids=[passing.pk], by=researcher)
    html = rclient.get(url(survey)).content.decode()
    block = html[html.index(f'id="concept-{passing.pk}"') :]
    block = block[: block.index("</li>")]
    assert "2 respondents, 1 affected" in block and 'data-verdict="passes"' in block
    block = html[html.index(f'id="concept-{reported.pk}"') :]
    block = block[: block.index("</li>")]
    assert "4 mentions" in block and 'data-counted-as="reported"' in block
    assert 'data-verdict="fails"' in block and "no evidence reference" in block


def test_compute_suggestions_button_queues_one_job(rclient, survey):
    response = rclient.post(url(survey, "coding-suggest"), {"back": ""}, follow=True)
    job = Job.objects.get(kind="survey_suggestions")
    assert job.params["survey_id"] == survey.pk
    assert any(f"job #{job.pk}" in m for m in messages_of(response))
    html = response.content.decode()
    assert f'href="/jobs/{job.pk}/" id="suggestions-job"' in html
    rclient.post(url(survey, "coding-suggest"))
    assert Job.objects.filter(kind="survey_suggestions").count() == 1
