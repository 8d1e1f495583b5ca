"""A researcher codes survey answers in Chromium: queues the suggestion job (a real Celery
worker embeds the answers and concepts with the configured model), accepts the top suggestion
with the keyboard and with a click, watches the concept's derived count and inclusion verdict
change, marks answers invalid in bulk; script typed by a respondent stays text. The queue fits a
1366 px screen and a 390 px phone."""

from __future__ import annotations

import hashlib

import pytest
from django.utils import timezone

from apps.catalog.models import Category, Dataset, StereotypeConcept
from apps.core.models import Job
from apps.surveys.models import Answer, Respondent
from apps.surveys.services.surveys import survey_create, survey_open
from tests.core.test_worker_jobs import wait_for_job
from tests.surveys.conftest import complete_content

from .support import assert_fits, navigates, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.celery_worker,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

EVIL = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
CONCEPTS = [
    "Women are bad drivers",
    "Muslims are violent",
    "Andalusians are lazy",
    "Old people cannot use computers",
    "Rich people are greedy",
    "Poor people are dirty",
]


def _setup(researcher):
    dataset = Dataset.objects.create(name="encuesta", inclusion_rule="esbbq")
    survey = survey_open(
        survey=survey_create(
            dataset=dataset,
            slug="encuesta",
            languages=["hi", "es"],
            content=complete_content(["hi", "es"]),
            created_by=researcher,
        )
    )
    category = Category.objects.get_or_create(name="Gender")[0]
    concepts = {
        s: StereotypeConcept.objects.create(
            category=category,
            dataset=dataset,
            statement=s,
            target_groups=[s.split(" are ")[0].split(" cannot")[0]],
            source="survey",
            validation_status="validated",
        )
        for s in CONCEPTS
    }

    def answer(n, text, **fields):
        who = Respondent.objects.create(
            survey=survey, token_hash=hashlib.sha256(f"b{n}".encode()).hexdigest()
        )
        return Answer.objects.create(
            survey=survey,
            version=survey.current_version,
            respondent=who,
            language=fields.pop("language", "es"),
            category_key="religion",
            text=text,
            submitted_at=timezone.now() + timezone.timedelta(seconds=n),
            **fields,
        )

    answers = [
        answer(1, "a woman behind the wheel is a danger on the road", heard=True),
        answer(2, "my neighbour says women should not be allowed to drive", affected=True),
        answer(3, EVIL, experience=EVIL),
        answer(4, "मुसलमान हिंसक होते हैं", language="hi", group_keys=["muslim"]),
        answer(5, "asdf asdf asdf"),
    ]
    return survey, concepts, answers


def test_researcher_codes_answers_with_suggestions(
    celery_worker_process, open_as, demo_users, live_server
):
    survey, concepts, answers = _setup(demo_users["researcher"])
    women = concepts["Women are bad drivers"]
    page = open_as("rekha", width=1366, height=900)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    base = f"{live_server.url}/surveys/{survey.slug}/coding/"
    page.goto(base)
    assert page.locator("article.answer").count() == 5
    # Typed HTML is shown as text and runs nothing.
    evil = page.locator(f"#answer-{answers[2].pk} .answer-text")
    assert evil.text_content() == EVIL
    assert page.evaluate("() => window.__pwned") is None and not dialogs
    # The Hindi answer's group is labelled in Hindi, from its own questionnaire version.
    assert "मुसलमान" in page.locator(f"#answer-{answers[3].pk} .answer-meta").text_content()

    with navigates(page):
        page.click("#compute-suggestions")
    job = Job.objects.get(kind="survey_suggestions")
    job = wait_for_job(job.pk, timeout=240)
    assert job.status == Job.Status.SUCCEEDED, job.error
    page.goto(base)
    assert page.locator("#suggestions-job").text_content() == f"job #{job.pk}"
    first = page.locator(f"#answer-{answers[0].pk}")
    assert women.statement in first.locator("button.accept[data-rank='1']").text_content()
    shot(page, "survey-coding-1366")
    assert_fits(page)
    first.locator("details.new-concept summary").click()
    assert first.locator("textarea[name=statement]").input_value() == answers[0].text
    first.locator("details.new-concept").scroll_into_view_if_needed()
    shot(page, "survey-coding-1366-new-concept")
    first.locator("details.new-concept summary").click()

    # Keyboard: j moves to the first answer, 1 accepts its top suggestion.
    page.locator("h1").click()
    page.keyboard.press("j")
    with navigates(page):
        page.keyboard.press("1")
    assert "coded into concept" in page.locator(".messages").text_content()
    assert page.locator(f"#answer-{answers[0].pk}").count() == 0  # left the pending queue
    side = page.locator(f"#concept-{women.pk}")
    assert "1 respondent, 0 affected" in side.text_content()
    assert side.locator("[data-verdict]").get_attribute("data-verdict") == "fails"

    # A click on the second answer's top suggestion: 2 respondents, one affected -> passes.
    second = page.locator(f"#answer-{answers[1].pk}")
    assert women.statement in second.locator("button.accept[data-rank='1']").text_content()
    with navigates(page):
        second.locator("button.accept[data-rank='1']").click()
    side = page.locator(f"#concept-{women.pk}")
    assert "2 respondents, 1 affected" in side.text_content()
    assert side.locator("[data-verdict]").get_attribute("data-verdict") == "passes"

    # Bulk: the script and the gibberish are spam.
    page.check(f"#answer-{answers[2].pk} input.pick")
    page.check(f"#answer-{answers[4].pk} input.pick")
    page.select_option("#bulk-action", "invalid")
    assert page.locator("#bulk-concept").is_hidden()
    page.select_option("#bulk-reason", "spam")
    with navigates(page):
        page.click("#bulk-apply")
    assert "2 answer(s) marked invalid." in page.locator(".messages").text_content()
    assert page.locator("article.answer").count() == 1
    assert set(Answer.objects.values_list("status", flat=True)) == {"coded", "invalid", "pending"}

    # History of a coded answer, in the "Coded" tab.
    with navigates(page):
        page.click("a[data-status-tab='coded']")
    history = page.locator(f"#answer-{answers[1].pk} details.history")
    history.locator("summary").click()
    assert f"Coded into concepts: #{women.pk} by rekha" in " ".join(history.text_content().split())
    with navigates(page):
        page.click("a[data-status-tab='invalid']")
    assert page.locator(f"#answer-{answers[2].pk} .answer-text").text_content() == EVIL
    assert page.evaluate("() => window.__pwned") is None and not dialogs

    phone = open_as("rekha", width=390, height=844, touch=True)
    phone.goto(base)
    assert phone.locator("article.answer").count() == 1
    assert_fits(phone)
    shot(phone, "survey-coding-390")
    phone.goto(base + "?status=all")
    assert_fits(phone)
    phone.locator(f"#answer-{answers[1].pk}").scroll_into_view_if_needed()
    shot(phone, "survey-coding-390-answer")
    phone.locator("#concept-list").scroll_into_view_if_needed()
    shot(phone, "survey-coding-390-concepts")
