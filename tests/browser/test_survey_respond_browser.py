"""A respondent answers the public survey in real headless Chromium: in Hindi on a 390 px
phone with the keyboard only, and in Spanish on a 1366 px desktop with the mouse. Screenshots
of every page go to tests/browser/artifacts/survey-*.png."""

from __future__ import annotations

import pytest

from apps.surveys.models import Answer, Respondent

from .support import FONT_STATE_JS, SCRIPTS, assert_fits, navigates, rendering_fonts, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

HINDI_ANSWER = "फलाँ जगह के लोग कंजूस होते हैं, ऐसा मैंने दफ़्तर में सुना।"
SPANISH_ANSWER = "Dicen que la gente del sur es vaga y no quiere trabajar."


@pytest.fixture
def survey(transactional_db):
    """An open survey in Hindi (first) and Spanish, with the shipped default strings."""
    from apps.catalog.models import Dataset
    from apps.surveys.services.surveys import survey_create, survey_open
    from tests.surveys.conftest import complete_content

    dataset = Dataset.objects.create(name="Survey-browser", inclusion_rule="esbbq")
    created = survey_create(
        dataset=dataset,
        slug="estereotipos",
        languages=["hi", "es"],
        content=complete_content(["hi", "es"]),
    )
    return survey_open(survey=created)


def tab_to(page, selector: str, *, limit: int = 80) -> None:
    """Press Tab until `selector` has the focus (as a keyboard user moves through a page)."""
    for _ in range(limit):
        if page.evaluate("(s) => document.activeElement?.matches(s) ?? false", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} never got the focus by Tab")


def assert_devanagari_served(page, selector: str) -> None:
    """The text of `selector` (on a lang="hi" page) is drawn by the served Noto Sans Devanagari
    face, fetched from /static/fonts/, and by no system font (Chromium's own account of the
    glyphs it drew; that face covers the whole Devanagari block, so no glyph is a box)."""
    family, file, _, _ = SCRIPTS["hi"]
    assert page.evaluate("() => document.documentElement.lang") == "hi"
    text = page.locator(selector).first.text_content().strip()
    state = page.evaluate(FONT_STATE_JS, [family, file, text])
    assert "loaded" in state["faces"], state
    assert f"/static/fonts/{file}" in state["fetched"], state
    assert state["check"], state
    fonts = {f["familyName"]: f for f in rendering_fonts(page, selector)}
    assert family in fonts and fonts[family]["isCustomFont"], fonts
    assert all(f["isCustomFont"] for f in fonts.values()), fonts
    # The Devanagari face drew the words (Noto Sans only spaces and punctuation, if anything).
    assert fonts[family]["glyphCount"] > fonts.get("Noto Sans", {}).get("glyphCount", 0)


def test_hindi_respondent_on_a_phone_with_the_keyboard_only(browser, live_server, survey):
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="hi-IN")
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        page.goto(f"{live_server.url}/s/{survey.slug}/")
        assert page.evaluate("() => document.documentElement.lang") == "hi"
        assert_devanagari_served(page, "h1")
        assert_fits(page)
        shot(page, "survey-hi-390-start", full_page=True)

        # Consent by keyboard: Tab to the box, Space ticks it, Tab, Enter starts.
        tab_to(page, "#consent")
        page.keyboard.press("Space")
        assert page.is_checked("#consent")
        tab_to(page, "#start-form button[type=submit]")
        with navigates(page):
            page.keyboard.press("Enter")
        assert "/about-you/" in page.url
        assert_devanagari_served(page, "h1")
        assert_fits(page)
        shot(page, "survey-hi-390-about-you", full_page=True)

        # Age: Space picks the first band, ArrowDown the next one; then Continue.
        tab_to(page, "input[name=d_age]")
        page.keyboard.press("Space")
        page.keyboard.press("ArrowDown")
        assert page.is_checked("#d_age_1")
        tab_to(page, "button[name=continue]")
        with navigates(page):
            page.keyboard.press("Enter")
        assert "/answer/" in page.url

        # An empty submit: the errors are in Hindi and the first field in error has the focus.
        tab_to(page, "#answer-form button[type=submit]")
        with navigates(page):
            page.keyboard.press("Enter")
        assert page.locator(".sv-error").count() >= 2
        assert page.evaluate("() => document.activeElement.id") == "a_category_religion"
        assert_devanagari_served(page, ".sv-error")
        assert_fits(page)
        shot(page, "survey-hi-390-errors")

        # The groups of the category picked appear once it is picked.
        assert page.locator("#f_groups").is_hidden()
        page.keyboard.press("Space")  # the focused first category: धर्म
        assert page.locator("#f_groups").is_visible()
        assert page.locator('.sv-subset[data-category="region"]').is_hidden()
        tab_to(page, "#a_group_religion_muslim")
        page.keyboard.press("Space")
        tab_to(page, "#a_text")
        page.keyboard.type(HINDI_ANSWER)
        tab_to(page, "#a_heard")
        page.keyboard.press("Space")
        tab_to(page, "#a_affected")
        page.keyboard.press("Space")
        assert_fits(page)
        shot(page, "survey-hi-390-answer", full_page=True)
        tab_to(page, "#answer-form button[type=submit]")
        with navigates(page):
            page.keyboard.press("Enter")
        assert "/thanks/" in page.url
        code = page.text_content("#deletion-code").strip()
        assert len(code) == 9 and code[4] == "-"
        assert_devanagari_served(page, "h1")
        assert_fits(page)
        shot(page, "survey-hi-390-thanks")

        # Another one, then finish.
        tab_to(page, "#another")
        with navigates(page):
            page.keyboard.press("Enter")
        tab_to(page, "input[name=category]")
        page.keyboard.press("Space")
        tab_to(page, "#a_group_text_religion")
        page.keyboard.type("जैन")
        tab_to(page, "#a_text")
        page.keyboard.type("दूसरी धारणा")
        tab_to(page, "#a_witnessed")
        page.keyboard.press("Space")
        tab_to(page, "#answer-form button[type=submit]")
        with navigates(page):
            page.keyboard.press("Enter")
        tab_to(page, "#finish")
        with navigates(page):
            page.keyboard.press("Enter")
        assert page.text_content("#deletion-code").strip() == code
        shot(page, "survey-hi-390-done")
    finally:
        context.close()

    answers = list(Answer.objects.order_by("pk"))
    assert [a.text for a in answers] == [HINDI_ANSWER, "दूसरी धारणा"]
    assert answers[0].group_keys == ["muslim"] and answers[0].affected and answers[0].heard
    assert answers[1].group_text == "जैन" and answers[1].witnessed
    assert {a.language for a in answers} == {"hi"}
    assert Respondent.objects.get().demographics == {"age": "25-34"}


def test_spanish_respondent_on_a_desktop(browser, live_server, survey):
    context = browser.new_context(viewport={"width": 1366, "height": 900}, locale="es-ES")
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        page.goto(f"{live_server.url}/s/{survey.slug}/")
        # The survey's first language is Hindi: the switcher turns the page Spanish.
        with navigates(page):
            page.click(".sv-langs a[lang=es]")
        assert page.evaluate("() => document.documentElement.lang") == "es"
        assert page.text_content("h1") == "Los estereotipos en nuestra sociedad"
        shot(page, "survey-es-1366-start")
        page.check("#consent")
        with navigates(page):
            page.click("text=Empezar")
        shot(page, "survey-es-1366-about-you")
        with navigates(page):
            page.click("text=Saltar estas preguntas")
        assert "/answer/?lang=es" in page.url
        page.check("#a_category_region")
        page.check("#a_group_region_andalusia")
        page.fill("#a_text", SPANISH_ANSWER)
        page.check("#a_heard")
        page.fill("#a_experience", "<b>En el trabajo</b>, varias veces.")
        shot(page, "survey-es-1366-answer", full_page=True)
        with navigates(page):
            page.click("text=Enviar")
        assert page.text_content("h1") == "Gracias, tu respuesta se ha guardado"
        code = page.text_content("#deletion-code").strip()
        assert_fits(page)
        shot(page, "survey-es-1366-thanks")

        page.goto(f"{live_server.url}/s/{survey.slug}/delete/?lang=es")
        page.fill("#d_code", code.lower())
        shot(page, "survey-es-1366-delete")
        with navigates(page):
            page.click("text=Borrar mis respuestas >> nth=-1")
        assert page.text_content("#deleted") == "Tus respuestas se han borrado."
        shot(page, "survey-es-1366-deleted")
    finally:
        context.close()
    assert not Answer.objects.exists() and not Respondent.objects.exists()
