"""Done-when of issue 20, import part: a researcher imports a real-shaped Google Forms export in
the browser: uploads it, reads the preview (its columns, the guessed mapping, sample values in
Devanagari), changes one field, imports, and sees the counts; the same file again says
"0 new, 4 already present". Screenshots at 1366 and 390 px."""

from __future__ import annotations

from pathlib import Path

import pytest

from apps.surveys.models import Answer, Respondent
from tests.conftest import PASSWORD
from tests.surveys.conftest import complete_content

from .conftest import login
from .support import assert_fits, navigates, rendering_fonts, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

EXPORT = Path(__file__).parent.parent / "data" / "surveys" / "google_forms_export.csv"


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


@pytest.fixture
def hindi_survey(researcher):
    """An open survey in Hindi and Spanish, as tests/surveys/conftest.py's `survey`."""
    from apps.catalog.models import Dataset
    from apps.surveys.services.surveys import survey_create, survey_open

    survey = survey_create(
        dataset=Dataset.objects.create(name="Survey-DS", inclusion_rule="esbbq"),
        slug="estereotipos",
        languages=["hi", "es"],
        content=complete_content(["hi", "es"]),
        created_by=researcher,
    )
    return survey_open(survey=survey)


def upload(page, base: str, slug: str) -> None:
    page.goto(f"{base}/surveys/{slug}/import/")
    page.select_option("#id_format", "google-forms")
    page.set_input_files(
        "#id_file",
        files=[
            {
                "name": "Stereotypes (Responses).csv",
                "mimeType": "text/csv",
                "buffer": EXPORT.read_bytes(),
            }
        ],
    )
    with navigates(page):
        page.click("#upload-button")


def test_researcher_imports_a_google_forms_export(live_server, page, hindi_survey):
    survey = hindi_survey
    base = live_server.url
    login(page, base, "rekha", PASSWORD)
    page.goto(f"{base}/surveys/{survey.slug}/import/")
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        assert_fits(page)
        shot(page, f"survey-import-upload-{width}", full_page=True)
    page.set_viewport_size({"width": 1366, "height": 900})

    upload(page, base, survey.slug)
    assert "/import/" in page.url and page.locator("#mapping-form").is_visible()
    outlook = page.text_content("#import-outlook")
    assert "This import would create 4 answers (0 already present) and 3 respondents" in " ".join(
        outlook.split()
    )
    # The guess, pre-filled: the repeated section is a second answer section.
    assert page.input_value("select[name='text']") == "What is the stereotype? (1)"
    assert page.input_value("select[name='text.2']") == "What is the stereotype? (2)"
    assert page.input_value("select[name='demographics.age']") == "Age"
    assert "मुसलमान बहुत कट्टर होते हैं" in page.text_content("#file-columns")
    assert "empty row" in page.text_content("#import-findings")
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        assert_fits(page)
        shot(page, f"survey-import-preview-{width}", full_page=True)
        # Sample values (Latin and Devanagari) are drawn with the served Noto faces only.
        for column in ("Gender", "What is the stereotype? (1)"):
            fonts = rendering_fonts(page, f'tr[data-column="{column}"] td.samples')
            assert fonts and all(f["isCustomFont"] for f in fonts), fonts
    page.set_viewport_size({"width": 1366, "height": 900})

    # The researcher leaves the experience column out, checks, and imports.
    page.select_option("select[name='experience']", "")
    with navigates(page):
        page.click("#check-button")
    assert page.input_value("select[name='experience']") == ""
    with navigates(page):
        page.click("#import-button")
    assert page.url.endswith("/result/")
    assert " ".join(page.text_content("#import-headline").split()) == "4 new, 0 already present"
    assert page.text_content("[data-count='respondents_created']") == "3"
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        assert_fits(page)
        shot(page, f"survey-import-result-{width}", full_page=True)
    page.set_viewport_size({"width": 1366, "height": 900})
    answer = Answer.objects.get(text="मुसलमान बहुत कट्टर होते हैं")
    assert answer.experience == "" and answer.affected and answer.group_keys == ["muslim"]
    assert Respondent.objects.filter(survey=survey).count() == 3

    # The same export again: nothing new.
    upload(page, base, survey.slug)
    assert "(4 already present)" in page.text_content("#import-outlook")
    with navigates(page):
        page.click("#import-button")
    assert " ".join(page.text_content("#import-headline").split()) == "0 new, 4 already present"
    assert Answer.objects.filter(survey=survey).count() == 4


def test_problems_are_shown_and_fixed_on_the_preview(live_server, page, hindi_survey):
    """A Sheets export whose dates read both ways (3/5/2024): the preview lists the problem
    with where it is, Import stays refused until the date order is chosen."""
    survey = hindi_survey
    base = live_server.url
    login(page, base, "rekha", PASSWORD)
    data = (
        "Timestamp,What is the stereotype?,Which group or groups does it target?\n"
        "3/5/2024 16:12:33,हिंदू शाकाहारी होते हैं,हिंदू\n"
        "4/6/2024 10:00:00,Los andaluces son vagos,Andalucía\n"
    ).encode()
    page.goto(f"{base}/surveys/{survey.slug}/import/")
    page.select_option("#id_format", "google-forms")
    page.set_input_files(
        "#id_file", files=[{"name": "sheet.csv", "mimeType": "text/csv", "buffer": data}]
    )
    with navigates(page):
        page.click("#upload-button")
    problems = page.text_content("#import-problems")
    assert "sheet.csv:1" in problems and "choose the date order" in problems
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        assert_fits(page)
        shot(page, f"survey-import-problems-{width}")
    page.set_viewport_size({"width": 1366, "height": 900})
    with navigates(page):
        page.click("#import-button")
    assert page.locator("#import-problems").is_visible()
    assert Answer.objects.count() == 0
    page.select_option("select[name='date_order']", "dmy")
    with navigates(page):
        page.click("#check-button")
    assert page.locator("#import-problems").count() == 0
    assert "Dates such as 3/5/2024 read day first" in page.text_content("#import-outlook")
    with navigates(page):
        page.click("#import-button")
    assert " ".join(page.text_content("#import-headline").split()) == "2 new, 0 already present"
    answer = Answer.objects.get(text="हिंदू शाकाहारी होते हैं")
    assert (answer.submitted_at.month, answer.submitted_at.day) == (5, 3)
    assert answer.group_keys == ["hindu"] and answer.category_key == "religion"
