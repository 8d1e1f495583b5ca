"""Issue 20's journey end to end, in Chromium, one researcher: a Google Forms export of a
Hindi/Spanish survey is imported through the preview page; suggestions are computed with the
configured embedder; the researcher codes the answers by accepting suggestions in the coding
queue; a concept's derived count passes EsBBQ's rule (2 respondents, one affected) while the
other fails; the reports page shows the funnel, and `survey_funnel --json` prints the same.

Each step has its own detailed browser test (test_survey_import_browser,
test_survey_coding_browser, test_survey_reports_browser); this one checks that they connect."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from apps.catalog.models import Category, Dataset, StereotypeConcept
from apps.surveys.models import Answer
from apps.surveys.services.suggestions import suggestions_compute
from apps.surveys.services.surveys import survey_create, survey_open
from tests.surveys.conftest import complete_content

from .support import navigates, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

# As Google Forms exports it: a Timestamp column, question titles as headers, checkbox answers
# joined with ", ", an answer with a line break in quotes. Three respondents, three answers.
EXPORT = (
    "Timestamp,Which social category is it about?,Which group or groups does it target?,"
    "What is the stereotype?,How do you know this stereotype?,"
    "Describe the experience (optional)\r\n"
    "2024/03/05 4:12:33 PM GMT+5:30,धर्म,मुसलमान,मुसलमान बहुत कट्टर होते हैं,"
    '"I have heard it, I have been affected by it","मेरे पड़ोसी ने कहा,\nफिर सबने माना।"\r\n'
    "2024/03/05 6:01:02 PM GMT+5:30,धर्म,मुसलमान,मुसलमान कट्टर होते हैं,I have heard it,\r\n"
    "2024/03/06 9:15:00 AM GMT+5:30,क्षेत्र,अंडालूसिया,Andaluces son vagos,I have heard it,\r\n"
)
FANATICAL = "Muslims are fanatical"
LAZY = "Andalusians are lazy"


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


def test_import_code_with_suggestions_and_see_the_funnel(open_as, demo_users, live_server):
    researcher = demo_users["researcher"]
    dataset = Dataset.objects.create(name="Rudhi", inclusion_rule="esbbq")
    survey = survey_open(
        survey=survey_create(
            dataset=dataset,
            slug="rudhi",
            languages=["hi", "es"],
            content=complete_content(["hi", "es"]),
            created_by=researcher,
        )
    )
    religion = Category.objects.get_or_create(name="Religion")[0]
    region = Category.objects.get_or_create(name="Region")[0]
    for category, statement, group in (
        (religion, FANATICAL, "Muslims"),
        (region, LAZY, "Andalusians"),
        (religion, "Hindus are vegetarian", "Hindus"),
    ):
        StereotypeConcept.objects.create(
            category=category,
            dataset=dataset,
            statement=statement,
            target_groups=[group],
            source="survey",
            validation_status="validated",
        )
    page = open_as("rekha", width=1366, height=900)
    base = f"{live_server.url}/surveys/{survey.slug}"

    # 1. Import the export through the preview.
    page.goto(f"{base}/import/")
    page.select_option("#id_format", "google-forms")
    page.set_input_files(
        "#id_file",
        files=[
            {"name": "Rudhi (Responses).csv", "mimeType": "text/csv", "buffer": EXPORT.encode()}
        ],
    )
    with navigates(page):
        page.click("#upload-button")
    assert page.input_value("select[name='text']") == "What is the stereotype?"
    with navigates(page):
        page.click("#import-button")
    assert " ".join(page.text_content("#import-headline").split()) == "3 new, 0 already present"
    assert Answer.objects.filter(survey=survey, source="google-forms").count() == 3

    # 2. Suggestions with the configured embedder (the job's own service; the button and the
    #    worker are test_survey_coding_browser's).
    result = suggestions_compute(survey=survey)
    assert result["answers"] == 3

    # 3. Code every answer by accepting the suggestion naming its concept.
    page.goto(f"{base}/coding/")
    for text, statement in (
        ("मुसलमान बहुत कट्टर होते हैं", FANATICAL),
        ("मुसलमान कट्टर होते हैं", FANATICAL),
        ("Andaluces son vagos", LAZY),
    ):
        answer = Answer.objects.get(survey=survey, text=text)
        card = page.locator(f"#answer-{answer.pk}")
        assert card.locator("button.accept").count() == 3  # every concept, ranked
        with navigates(page):
            card.locator("button.accept", has_text=statement).click()
    assert page.locator("article.answer").count() == 0
    fanatical = StereotypeConcept.objects.get(statement=FANATICAL)
    lazy = StereotypeConcept.objects.get(statement=LAZY)
    side = page.locator(f"#concept-{fanatical.pk}")
    assert "2 respondents, 1 affected" in side.text_content()
    assert side.locator("[data-verdict]").get_attribute("data-verdict") == "passes"
    assert page.locator(f"#concept-{lazy.pk} [data-verdict]").get_attribute("data-verdict") == (
        "fails"
    )
    shot(page, "survey-journey-coded-1366")

    # 4. The funnel, on the page and from the command.
    page.goto(f"{base}/reports/")
    overall = page.locator("#funnel-overall th").all_text_contents()
    assert overall[:5] == ["Overall", "3", "3", "2", "1"]
    shot(page, "survey-journey-reports-1366", full_page=True)
    out = StringIO()
    call_command("survey_funnel", "--survey", survey.slug, "--json", stdout=out)
    funnel = json.loads(out.getvalue())
    assert (funnel["answers"], funnel["valid"], funnel["unique"], funnel["kept"]) == (3, 3, 2, 1)
    assert funnel["by_category"]["Religion"]["kept"] == 1
    assert funnel["by_category"]["Region"]["kept"] == 0
