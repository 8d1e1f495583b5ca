"""A researcher opens a survey's reports in Chromium at 1366 and 390 px: the funnel, the
responses over time and the demographic bar charts are inline SVG with a title, a description
and a table; Hindi labels are drawn with the served Devanagari face; small cells show "< 5"
with no bar; the page fits a phone's width."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from apps.catalog.models import Category, Dataset
from apps.catalog.services import concept_create
from apps.surveys.models import Answer, AnswerConcept, Respondent
from apps.surveys.services.counts import survey_counts_refresh
from apps.surveys.services.surveys import survey_create
from tests.browser.support import assert_fits, assert_served_font, shot
from tests.surveys.conftest import complete_content

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

GENDER = {
    "labels": {"hi": "आप किस लिंग की पहचान रखते हैं?", "es": "¿Con qué género se identifica?"},
    "options": {
        "woman": {"hi": "महिला", "es": "Mujer"},
        "man": {"hi": "पुरुष", "es": "Hombre"},
        "non_binary": {"hi": "नॉन-बाइनरी", "es": "No binario"},
        "other": {"hi": "अन्य", "es": "Otro"},
    },
}
AGE_LABELS = {"hi": "आयु वर्ग", "es": "Edad"}


def reports_survey():
    """A Hindi + Spanish survey with 48 respondents over 12 days, answers coded into concepts
    of two categories (some kept), and demographics with small cells."""
    dataset = Dataset.objects.create(name="Encuesta-DS", inclusion_rule="esbbq")
    content = complete_content(["hi", "es"])
    content["strings"]["hi"]["prefer_not_to_say"] = "बताना नहीं चाहते"
    content["strings"]["es"]["prefer_not_to_say"] = "Prefiero no decirlo"
    for question in content["demographics"]:
        if question["key"] == "gender":
            question["labels"] = dict(GENDER["labels"])
            for option in question["options"]:
                option["labels"] = dict(GENDER["options"][option["key"]])
        if question["key"] == "age":
            question["labels"] = dict(AGE_LABELS)
    survey = survey_create(
        dataset=dataset, slug="rudhiyan", languages=["hi", "es"], content=content
    )
    religion = Category.objects.get_or_create(name="Religion")[0]
    region = Category.objects.get_or_create(name="Region")[0]
    concepts = [
        concept_create(
            category=religion if n % 2 else region,
            statement=f"रूढ़ि {n}",
            evidence=[{"url": "https://example.org/a", "note": "a"}],
            dataset=dataset,
            source="survey",
            validation_status="validated" if n != 5 else "pending",  # one not kept
        )
        for n in range(6)
    ]
    start = datetime(2026, 2, 1, 9, tzinfo=UTC)
    genders = ["woman"] * 22 + ["man"] * 19 + ["non_binary"] * 2 + ["prefer_not"] * 5
    ages = ["18-24"] * 12 + ["25-34"] * 20 + ["35-44"] * 9 + ["65+"] * 3 + ["prefer_not"] * 4
    for n in range(48):
        who = Respondent.objects.create(
            survey=survey,
            token_hash=f"{n:064x}",
            language="hi" if n % 3 else "es",
            demographics={"gender": genders[n], "age": ages[n], "region_birth": "Kerala"},
            demographics_version=survey.current_version,
            demographics_asked=True,
        )
        for m in range(1 + n % 3):
            answer = Answer.objects.create(
                survey=survey,
                version=survey.current_version,
                respondent=who,
                language=who.language,
                category_key="religion" if m % 2 == 0 else "region",
                text="<script>alert('x')</script> मुसलमान ऐसे होते हैं",
                affected=n % 5 == 0,
                submitted_at=start + timedelta(days=(n * 7 + m) % 12, hours=m),
                status=Answer.Status.INVALID if n % 11 == 0 else Answer.Status.PENDING,
            )
            if n % 4 != 3 and answer.status != Answer.Status.INVALID:
                AnswerConcept.objects.create(answer=answer, concept=concepts[(n + m) % 6])
                if n % 6 == 0:
                    AnswerConcept.objects.create(answer=answer, concept=concepts[(n + 1) % 6])
                answer.status = Answer.Status.CODED
                answer.save(update_fields=["status"])
    survey_counts_refresh(concept_ids=[c.pk for c in concepts])
    return survey


@pytest.mark.parametrize(("width", "language"), [(1366, "es"), (1366, "hi"), (390, "hi")])
def test_reports_page(open_as, live_server, demo_users, width, language):
    survey = reports_survey()
    page = open_as("rekha", width=width, height=900, touch=width < 500)
    page.goto(f"{live_server.url}/surveys/{survey.slug}/reports/?lang={language}")
    assert page.text_content("h1").strip() == f"Reports: {survey.slug}"
    # Every chart is an SVG with a title and a description, and a table beside it.
    svgs = page.locator("main svg[role=img]")
    assert svgs.count() == 2 + 11  # funnel, time, one per demographic question
    for index in range(svgs.count()):
        chart = svgs.nth(index)
        labelled_by = chart.get_attribute("aria-labelledby").split()
        assert [page.locator(f"#{i}").evaluate("e => e.tagName") for i in labelled_by] == [
            "title",
            "desc",
        ]
    assert page.locator("#funnel-table").is_visible()
    assert page.locator("#time-table").count() == 1
    assert page.locator("#table-gender").count() == 1
    funnel = page.locator("#funnel-overall th, #funnel-overall td").all_text_contents()
    assert funnel[0] == "Overall" and int(funnel[1]) == Answer.objects.count()
    # The funnel's bars are drawn: four, the longest one 80 % of the chart's width.
    bars = page.locator("#funnel-chart rect.bar")
    assert bars.count() == 4
    assert max(float(bars.nth(i).get_attribute("width").rstrip("%")) for i in range(4)) == 80
    # Gender: non-binary (2) is under 5: "< 5", a dashed marker, no bar.
    gender = page.locator("#chart-gender g.row")
    labels = page.locator("#chart-gender text.label").all_text_contents()
    expected = GENDER["options"]["non_binary"][language]
    row = gender.nth(labels.index(expected))
    assert row.locator("text.value").text_content() == "< 5"
    assert row.locator("rect.marker").count() == 1 and row.locator("rect.bar").count() == 0
    assert "2" not in row.text_content().replace(expected, "")
    woman = gender.nth(labels.index(GENDER["options"]["woman"][language]))
    assert woman.locator("text.value").text_content() == "22"
    # The answers' script never runs and never reaches the page as markup.
    assert page.evaluate("() => document.querySelectorAll('main script').length") == 0
    if language == "hi":
        first_label = "#chart-gender g.row:first-of-type > text.label"
        assert page.text_content(first_label) == "महिला"
        assert_served_font(page, first_label, "hi")
        assert_served_font(page, "#demographic-gender figcaption", "hi")
    else:
        assert "Mujer" in labels and "Prefiero no decirlo" in labels
    assert_fits(page)
    name = f"survey_reports_{language}_{width}"
    shot(page, name, full_page=True)
    # The sections as they look on screen (a full page on a phone is too tall to read).
    for section in ("funnel-heading", "time-heading", "demographics-heading", "demographic-gender"):
        page.locator(f"#{section}").evaluate("e => e.scrollIntoView()")
        shot(page, f"{name}_{section}")
    page.locator("#time-table-details summary").click()
    assert page.locator("#time-table").is_visible()
    rows = page.locator("#time-table tbody tr")
    assert rows.count() == 12
