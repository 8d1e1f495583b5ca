"""The survey editor in a real browser: a researcher creates a survey in Hindi and Spanish,
types its texts (Hindi drawn with the served Noto face), sees the gap list and opening refused,
fills the rest, adds a category, and opens it. Screenshots at 1366 and 390 px wide; and the
concept list with its live verdicts."""

from __future__ import annotations

import pytest

from apps.catalog.models import Category, Dataset, EvidenceReference, StereotypeConcept
from apps.surveys.models import Survey
from apps.surveys.questionnaire import content_problems
from apps.surveys.strings import STRING_KEYS

from .support import assert_fits, navigates, rendering_fonts, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

HINDI = {
    "title": "रूढ़ियों का सर्वेक्षण: हमारे समाज में सुनी गई बातें",
    "introduction": "हम उन रूढ़ियों को इकट्ठा कर रहे हैं जो लोग सामाजिक समूहों के बारे में सुनते हैं।",
    "consent": "भाग लेना स्वैच्छिक है। आपके उत्तर बिना नाम या पते के रखे जाते हैं।",
    "submit": "जमा करें",
    "too_long": "यह उत्तर बहुत लंबा है: अधिकतम {limit} अक्षर।",
}
# Tamil: a language Kasauti ships no respondent texts for, so its strings start empty.
TAMIL = {
    "title": "நம் சமூகத்தில் உள்ள ஒரே மாதிரியான கருத்துகள்",
    "introduction": "சமூகக் குழுக்களைப் பற்றி மக்கள் கேட்கும் கருத்துகளைச் சேகரிக்கிறோம்.",
    "submit": "சமர்ப்பிக்கவும்",
    "too_long": "இந்தப் பதில் மிக நீளமானது: அதிகபட்சம் {limit} எழுத்துகள்.",
}


def assert_drawn_with_noto_devanagari(page, selector: str) -> None:
    """Every glyph of the element's text came from a served face (no system fallback), the
    Devanagari ones from the served Noto Sans Devanagari. (support.assert_served_font's tofu
    measure is tuned to its own sample sentences; what Chromium drew with is the direct check.)"""
    page.evaluate("async () => { await document.fonts.ready; }")
    fonts = rendering_fonts(page, selector)
    by_family = {f["familyName"]: f for f in fonts}
    assert all(f["isCustomFont"] for f in fonts), fonts
    assert set(by_family) <= {"Noto Sans Devanagari", "Noto Sans"}, fonts
    assert by_family["Noto Sans Devanagari"]["glyphCount"] > 10, fonts


def fill_texts(page, base: str, slug: str, lang: str, texts: dict[str, str], *, all_keys: bool):
    page.goto(f"{base}/surveys/{slug}/edit/texts/{lang}/")
    for key in STRING_KEYS:
        value = texts.get(key) or (f"[{lang}] {key}" if all_keys else "")
        if value:
            page.fill(f"#s-{key}", value)
    with navigates(page):
        page.click("#save-strings")


def test_researcher_sets_up_a_hindi_and_tamil_survey(live_server, open_as, demo_users):
    Dataset.objects.create(name="BharatBBQ-hi", inclusion_rule="bharatbbq")
    base = live_server.url
    page = open_as("rekha", width=1366, height=900)

    # The top bar's Surveys link leads to the (empty) list.
    with navigates(page):
        page.click("#surveys-link")
    assert page.url == f"{base}/surveys/"
    with navigates(page):
        page.click("#new-survey")
    page.select_option("#id_dataset", label="BharatBBQ-hi")
    page.fill("#id_slug", "rudhiyan")
    page.check("input[name=languages][value=hi]")
    page.check("input[name=languages][value=ta]")
    shot(page, "survey_editor_new_1366", full_page=True)
    with navigates(page):
        page.click("#create-survey")
    assert page.url == f"{base}/surveys/rudhiyan/"
    survey = Survey.objects.get(slug="rudhiyan")
    assert survey.current_version.content["languages"] == ["hi", "ta"]

    # Some Hindi texts typed over the shipped ones; Tamil still missing.
    fill_texts(page, base, "rudhiyan", "hi", HINDI, all_keys=False)
    assert page.get_attribute("#s-title", "lang") == "hi"
    assert page.input_value("#s-title") == HINDI["title"]
    shot(page, "survey_editor_texts_hi_1366", full_page=True)

    page.goto(f"{base}/surveys/rudhiyan/")
    assert page.text_content("h1 span[lang=hi]") == HINDI["title"]
    assert_drawn_with_noto_devanagari(page, "h1 span[lang=hi]")
    gaps = page.text_content("#gap-count")
    assert "gaps" in gaps
    assert "ta: strings.start is empty" in page.text_content("#gaps")
    assert "hi: strings." not in page.text_content("#gaps")
    # Opening is refused, and the gaps are listed on the page, grouped by where to fill them.
    with navigates(page):
        page.click("#open-survey")
    refused = page.locator("#open-refused")
    assert refused.is_visible()
    assert "The survey was not opened: everything below must be filled in first" in (
        refused.text_content()
    )
    assert "ta: strings.title is empty" in refused.text_content()
    assert refused.locator("a[href='/surveys/rudhiyan/edit/texts/ta/']").count() == 1
    shot(page, "survey_editor_open_refused_1366", full_page=True)
    survey.refresh_from_db()
    assert survey.status == "draft"

    # The rest of the texts in both languages.
    fill_texts(page, base, "rudhiyan", "hi", HINDI, all_keys=True)
    fill_texts(page, base, "rudhiyan", "ta", TAMIL, all_keys=True)
    assert page.locator("#empty-count").text_content() == "all filled in"

    # A category with two groups, from the blank rows.
    page.goto(f"{base}/surveys/rudhiyan/edit/questions/")
    page.fill("input[name=c0-key]", "religion")
    page.fill("input[name=c0-category]", "Religion")
    page.fill("input[name=c0-label-hi]", "धर्म")
    page.fill("input[name=c0-label-ta]", "மதம்")
    page.fill("input[name=c0-g0-key]", "muslim")
    page.fill("input[name=c0-g0-label-hi]", "मुसलमान")
    page.fill("input[name=c0-g0-label-ta]", "முஸ்லிம்கள்")
    page.fill("input[name=c0-g1-key]", "hindu")
    page.fill("input[name=c0-g1-label-hi]", "हिंदू")
    page.fill("input[name=c0-g1-label-ta]", "இந்துக்கள்")
    with navigates(page):
        page.click("#save-questions")
    category = Survey.objects.get(slug="rudhiyan").current_version.content["categories"][0]
    assert [g["key"] for g in category["groups"]] == ["muslim", "hindu"]
    shot(page, "survey_editor_questions_1366", full_page=True)

    # Demographic labels: every empty Tamil label filled in (Hindi ones ship).
    page.goto(f"{base}/surveys/rudhiyan/edit/demographics/")
    for lang in ("hi", "ta"):
        boxes = page.locator(f"#demographics-form .card:not(.new-row) input[lang={lang}]")
        for i in range(boxes.count()):
            box = boxes.nth(i)
            if not box.input_value() and "new-row" not in (
                box.evaluate("el => el.closest('tr')?.className || ''")
            ):
                box.fill("उत्तर" if lang == "hi" else "பதில்")
    with navigates(page):
        page.click("#save-demographics")
    shot(page, "survey_editor_demographics_1366")
    content = Survey.objects.get(slug="rudhiyan").current_version.content
    assert content_problems(content) == []

    page.goto(f"{base}/surveys/rudhiyan/")
    assert "complete" in page.text_content("#gap-count")
    with navigates(page):
        page.click("#open-survey")
    assert page.text_content("#survey-status").strip() == "Open"
    assert Survey.objects.get(slug="rudhiyan").status == "open"
    assert page.get_attribute("#public-url", "href") == "/s/rudhiyan/"
    shot(page, "survey_editor_open_1366", full_page=True)
    assert_fits(page)


def test_survey_editor_on_a_phone(live_server, open_as, demo_users):
    from apps.surveys.services.surveys import survey_create
    from tests.surveys.conftest import complete_content

    dataset = Dataset.objects.create(name="EsBBQ-es", inclusion_rule="esbbq")
    survey_create(dataset=dataset, slug="estereotipos", languages=["hi", "ta"])
    base = live_server.url
    page = open_as("rekha", width=390, height=844, touch=True)
    page.goto(f"{base}/surveys/estereotipos/")
    assert_fits(page)
    with navigates(page):
        page.click("#open-survey")
    assert page.locator("#open-refused").is_visible()
    assert_fits(page)
    shot(page, "survey_editor_open_refused_390")
    shot(page, "survey_editor_detail_390", full_page=True)

    page.goto(f"{base}/surveys/estereotipos/edit/texts/hi/")
    page.fill("#s-title", HINDI["title"])
    page.fill("#s-introduction", HINDI["introduction"])
    assert_fits(page)
    shot(page, "survey_editor_texts_hi_390")

    survey = Survey.objects.get(slug="estereotipos")
    from apps.surveys.services.surveys import survey_content_save

    survey_content_save(survey=survey, content=complete_content(["hi", "ta"]))
    page.goto(f"{base}/surveys/estereotipos/edit/questions/")
    assert_fits(page)
    shot(page, "survey_editor_questions_390", full_page=True)
    page.goto(f"{base}/surveys/estereotipos/edit/demographics/")
    assert_fits(page)
    shot(page, "survey_editor_demographics_390")
    page.goto(f"{base}/surveys/")
    assert_fits(page)
    shot(page, "survey_editor_list_390")


@pytest.mark.parametrize("width", [1366, 390])
def test_concept_list_with_verdicts(live_server, open_as, demo_users, width):
    religion = Category.objects.get_or_create(name="Religion")[0]
    es = Dataset.objects.create(name="EsBBQ-es", inclusion_rule="esbbq")
    bharat = Dataset.objects.create(name="BharatBBQ-hi", inclusion_rule="bharatbbq")

    def concept(dataset, statement, *, mentions=0, survey=None, evidence=True):
        c = StereotypeConcept.objects.create(
            category=religion,
            dataset=dataset,
            statement=statement,
            target_groups=["x"],
            mentions=mentions,
            survey_mentions=survey[0] if survey else None,
            survey_affected=survey[1] if survey else None,
            source="survey",
            validation_status="validated",
        )
        if evidence:
            EvidenceReference.objects.create(concept=c, kind="news_report", url="https://e.org/")
        return c

    kept = concept(es, "Los andaluces son vagos", survey=(2, 1))
    short = concept(es, "Los catalanes son tacaños", mentions=5, survey=(1, 0))
    reported = concept(bharat, "बनिया व्यापार में चतुर होते हैं", mentions=4)
    no_evidence = concept(bharat, "मुसलमान हिंसक होते हैं", survey=(3, 2), evidence=False)
    page = open_as("rekha", width=width, height=900)
    page.goto(f"{live_server.url}/concepts/")
    assert page.locator(f"#concept-{kept.pk} [data-usable=yes]").count() == 1
    assert "2 respondents (1 affected)" in page.text_content(f"#concept-{kept.pk} .counts")
    assert page.text_content(f"#concept-{short.pk} .counts").strip() == "1 respondent (0 affected)"
    assert page.text_content(f"#concept-{reported.pk} .counts").strip() == "4 reported"
    assert "no evidence reference" in page.text_content(f"#concept-{no_evidence.pk} .verdict")
    assert_fits(page)
    shot(page, f"concept_list_verdicts_{width}", full_page=True)
    page.select_option("#id_dataset", label="EsBBQ-es")
    with navigates(page):
        page.click("#concept-filter button")
    assert page.locator("#concepts tbody tr").count() == 2
    assert page.is_visible("#inclusion-form")
    shot(page, f"concept_list_esbbq_{width}", full_page=True)
    page.goto(f"{live_server.url}/concepts/{short.pk}/")
    assert_fits(page)
    shot(page, f"concept_detail_{width}", full_page=True)
