"""Template authoring in a real browser: a researcher writes a template in Hindi, sees the
exact count, the first instances (drawn with the served Noto face) and a finding beside its
field change as they type, fixes it, saves with the keyboard, edits again and sees the diff; a
second researcher's save in another browser is refused with both diffs and their text kept.
Screenshots at 1366 and 390 px wide."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from apps.accounts.roles import RESEARCHER
from apps.accounts.services import user_create_with_role
from apps.catalog.models import Category, Dataset, Template, UnknownExpression

from .conftest import PASSWORD
from .support import assert_fits, navigates, rendering_fonts, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

AMBIGUOUS = "{{NAME1}} और {{NAME2}} बस स्टॉप पर इंतज़ार कर रहे थे।"
NO_NAMES = "किसी के पास टिकट नहीं था।"
DISAMBIGUATING = "{{NAME1}} टिकट भूल गया था; {{NAME2}} के पास दो टिकट थे।"


@pytest.fixture(autouse=True)
def patient_expect():
    """The preview answers after a 250 ms pause and a request: on the shared 2-core machine,
    under other tests' load, give each expectation 15 s instead of Playwright's 5."""
    expect.set_options(timeout=15_000)
    yield
    expect.set_options(timeout=5_000)


@pytest.fixture
def setup(transactional_db, demo_users):
    dataset = Dataset.objects.create(name="BharatBBQ-hi")
    for i, text in enumerate(["पता नहीं", "कहा नहीं जा सकता"]):
        UnknownExpression.objects.get_or_create(language="hi", text=text, defaults={"position": i})
    user_create_with_role(username="ravi", role=RESEARCHER, password=PASSWORD)
    return dataset


def count(page) -> str:
    return page.locator("#preview-count").text_content()


def assert_devanagari_drawn(page, selector: str) -> None:
    page.evaluate("async () => { await document.fonts.ready; }")
    fonts = rendering_fonts(page, selector)
    by_family = {f["familyName"]: f for f in fonts}
    assert all(f["isCustomFont"] for f in fonts), fonts
    assert by_family["Noto Sans Devanagari"]["glyphCount"] > 10, fonts


def test_researcher_writes_and_edits_a_hindi_template(live_server, open_as, setup):
    dataset = setup
    base = live_server.url
    page = open_as("rekha", width=1366, height=900)
    page.goto(f"{base}/datasets/{dataset.pk}/templates/new/")
    page.fill("#id_external_id", "Age-hi-01")
    page.select_option("#id_category", label="Age")
    page.fill("#id_language", "hi")
    page.fill("#id_ambiguous_context", AMBIGUOUS)
    page.fill("#id_disambiguating_context", NO_NAMES)
    page.fill("#id_question_negative", "टिकट कौन भूल गया?")
    page.fill("#id_question_non_negative", "कौन तैयार था?")
    page.fill("#id_ph-NAME1-values", "दादा | old\nदादी | old")
    page.fill("#id_ph-NAME2-values", "पोता | young\nपोती | young")
    page.fill("#id_stereotyped_groups", "old")
    # The count: 2 x 2 values x 4 instances; the finding sits beside the disambiguating context.
    expect(page.locator("#preview-count")).to_have_text("16")
    finding = page.locator("#findings-disambiguating_context li")
    expect(finding).to_contain_text("cannot disambiguate")
    described = page.get_attribute("#id_disambiguating_context", "aria-describedby")
    assert "findings-disambiguating_context" in described.split()
    expect(page.locator("#preview-errors")).to_have_text("1")
    # Typing changes the count: a third NAME2 value.
    page.locator("#id_ph-NAME2-values").press("End")
    page.locator("#id_ph-NAME2-values").type("\nनाती | young")
    expect(page.locator("#preview-count")).to_have_text("24")
    # A WORD list added with the keyboard multiplies it once a text uses it.
    page.focus("#add-word-list")
    page.keyboard.press("Enter")
    # (WORD1 is the empty list the page starts with; the new one is WORD2.)
    expect(page.locator("#id_ph-WORD2-values")).to_be_focused()
    page.keyboard.type("सुबह\nशाम")
    expect(page.locator("#findings-WORD2 li")).to_contain_text("defined but never used")
    page.fill("#id_ambiguous_context", AMBIGUOUS.replace("इंतज़ार", "{{WORD2}} इंतज़ार"))
    expect(page.locator("#preview-count")).to_have_text("48")
    expect(page.locator("#findings-WORD2 li")).to_have_count(0)
    # The preview is in Devanagari, drawn with the served face.
    first = page.locator("#preview-instances li.instance").first
    expect(first.locator(".context")).to_contain_text("दादा और पोता बस स्टॉप पर सुबह इंतज़ार")
    assert page.get_attribute("#preview-instances", "lang") == "hi"
    assert_devanagari_drawn(page, "#preview-instances li.instance .context")
    assert page.get_attribute("#id_ambiguous_context", "lang") == "hi"
    shot(page, "authoring_new_finding_1366", full_page=True)
    # Fixing the text removes the finding.
    page.fill("#id_disambiguating_context", DISAMBIGUATING)
    expect(finding).to_have_count(0)
    expect(page.locator("#preview-errors")).to_have_text("0")
    assert page.locator("#preview-instances li.instance").count() == 12

    # Narrow screen: the count stays in view, nothing is wider than the screen.
    page.set_viewport_size({"width": 390, "height": 844})
    page.focus("#id_question_negative")
    assert_fits(page)
    box = page.locator("#preview-summary").bounding_box()
    assert box["y"] + box["height"] <= 844 and box["y"] > 600, box
    shot(page, "authoring_new_390")
    shot(page, "authoring_new_390_full", full_page=True)
    page.set_viewport_size({"width": 1366, "height": 900})

    # Keyboard-only save: the last field's Tab leads to the save button, Enter saves.
    page.focus("#id_notes")
    page.keyboard.press("Tab")
    expect(page.locator("#save-template")).to_be_focused()
    with navigates(page):
        page.keyboard.press("Enter")
    template = Template.objects.get(external_id="Age-hi-01")
    assert page.url == f"{base}/templates/{template.pk}/?saved=1"
    expect(page.locator(".messages")).to_contain_text("Saved Age-hi-01 v1 (draft)")
    version = template.versions.get()
    assert version.problems == [] and version.placeholders["NAME2"] == ["पोता", "पोती", "नाती"]

    # Edit again (keyboard: the Edit link), change a question, see the diff.
    page.focus("#edit-template")
    with navigates(page):
        page.keyboard.press("Enter")
    expect(page.locator("#preview-count")).to_have_text("48")
    page.fill("#id_question_negative", "टिकट किसने खोया?")
    with navigates(page):
        page.click("#save-template")
    assert page.url.endswith("?saved=2")
    diff = page.locator("#saved-diff")
    expect(diff).to_contain_text("Negative question")
    expect(diff.locator("ins")).to_contain_text("किसने खोया?")
    expect(diff.locator("del")).to_contain_text("कौन भूल गया?")
    shot(page, "authoring_saved_diff_1366", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    assert_fits(page)
    shot(page, "authoring_saved_diff_390", full_page=True)


def test_a_concurrent_edit_from_another_browser_is_refused(live_server, open_as, setup):
    dataset = setup
    base = live_server.url
    category = Category.objects.get(name="Age")
    from apps.catalog.services import template_create

    version = template_create(
        dataset=dataset,
        external_id="Age-hi-02",
        category=category,
        content={
            "language": "hi",
            "ambiguous_context": AMBIGUOUS,
            "disambiguating_context": DISAMBIGUATING,
            "question_negative": "टिकट कौन भूल गया?",
            "question_non_negative": "कौन तैयार था?",
            "answer_negative": "{{NAME1}}",
            "answer_non_negative": "{{NAME2}}",
            "placeholders": {"NAME1": ["दादा", "दादी"], "NAME2": ["पोता", "पोती"]},
            "stereotyped_groups": ["दादा", "दादी"],
        },
    )
    url = f"{base}/templates/{version.template_id}/edit/"
    rekha = open_as("rekha", width=1366, height=900)
    ravi = open_as("ravi", width=1366, height=900)
    rekha.goto(url)
    ravi.goto(url)
    rekha.fill("#id_question_negative", "टिकट किसने खोया?")
    with navigates(rekha):
        rekha.click("#save-template")
    ravi.fill("#id_question_non_negative", "कौन समय पर था?")
    with navigates(ravi):
        ravi.click("#save-template")
    expect(ravi.locator("#conflict")).to_contain_text("Version 2 was saved while you edited")
    expect(ravi.locator("#conflict-theirs ins")).to_contain_text("किसने खोया?")
    expect(ravi.locator("#conflict-yours")).to_contain_text("समय पर")
    expect(ravi.locator("#id_question_non_negative")).to_have_value("कौन समय पर था?")
    assert version.template.versions.count() == 2
    shot(ravi, "authoring_conflict_1366", full_page=True)
    ravi.set_viewport_size({"width": 390, "height": 844})
    assert_fits(ravi)
    shot(ravi, "authoring_conflict_390", full_page=True)
    # Saving over the newer version on purpose keeps both changes.
    with navigates(ravi):
        ravi.click("#save-over")
    assert re.search(r"\?saved=3$", ravi.url)
    latest = version.template.versions.order_by("-number").first()
    assert latest.question_negative == "टिकट किसने खोया?"
    assert latest.question_non_negative == "कौन समय पर था?"


def test_annotator_gets_403(live_server, open_as, setup):
    page = open_as("anu")
    response = page.goto(f"{live_server.url}/templates/new/")
    assert response.status == 403


def test_a_list_from_a_vocabulary_chosen_with_the_keyboard(live_server, open_as, setup):
    """The values' source is a radio pair (arrow keys), the vocabulary a select: the count
    follows the vocabulary's entries of the groups named."""
    from apps.catalog.models import Vocabulary, VocabularyEntry

    vocabulary = Vocabulary.objects.create(name="बुज़ुर्ग", language="hi")
    for i, (value, group) in enumerate([("दादा", "M"), ("नाना", "M"), ("दादी", "F")]):
        VocabularyEntry.objects.create(vocabulary=vocabulary, value=value, group=group, position=i)
    page = open_as("rekha", width=1366, height=900)
    page.goto(f"{live_server.url}/datasets/{setup.pk}/templates/new/")
    page.fill("#id_language", "hi")
    page.fill("#id_ambiguous_context", AMBIGUOUS)
    page.fill("#id_disambiguating_context", DISAMBIGUATING)
    page.fill("#id_question_negative", "टिकट कौन भूल गया?")
    page.fill("#id_question_non_negative", "कौन तैयार था?")
    page.fill("#id_ph-NAME2-values", "पोता\nपोती")
    expect(page.locator("#findings-NAME1")).to_contain_text("no values are given for NAME1")
    page.focus("#id_ph-NAME1-mode_0")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#id_ph-NAME1-mode_1")).to_be_checked()
    expect(page.locator("#list-NAME1 .list-values")).to_be_hidden()
    page.keyboard.press("Tab")
    expect(page.locator("#id_ph-NAME1-vocabulary")).to_be_focused()
    page.select_option("#id_ph-NAME1-vocabulary", label="बुज़ुर्ग (hi)")
    expect(page.locator("#preview-count")).to_have_text("24")  # 3 x 2 x 4
    page.keyboard.press("Tab")
    page.keyboard.type("M")
    expect(page.locator("#preview-count")).to_have_text("16")  # 2 x 2 x 4
    expect(page.locator("#findings-NAME1 li")).to_have_count(0)
    # No stereotyped groups yet: the roles of the written instances are unclear (a warning).
    expect(page.locator("#preview-warnings")).to_have_text("1")
    expect(page.locator("#findings-stereotyped_groups")).to_contain_text("cannot tell which")
    page.fill("#id_stereotyped_groups", "M")
    expect(page.locator("#preview-warnings")).to_have_text("0")
    # HTML typed in a field is shown as text in the live preview, never as markup.
    page.fill("#id_question_negative", "<b>टिकट</b> <img src=x onerror=alert(1)> कौन भूल गया?")
    question = page.locator("#preview-instances li.instance .question").first
    expect(question).to_contain_text("<b>टिकट</b> <img src=x")
    assert page.locator("#preview-instances b, #preview-instances img").count() == 0
    shot(page, "authoring_vocabulary_1366")
