"""The dataset card in the browser (issue 22): a researcher reaches the card form from the
dataset page, chooses a licence and writes the card's texts (Devanagari, Bengali), a release
shows the card written from the data, raw HTML in a text shown as text, tables scrolling
inside the card at 390 px instead of widening the page."""

from __future__ import annotations

import pytest

from apps.catalog.models import Dataset, TemplateVersion, UnknownExpression
from apps.catalog.services import dataset_instantiate
from apps.releases.services import release_create
from tests.factories import CategoryFactory, TemplateVersionFactory

from .support import assert_fits, navigates, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

USES = "सामाजिक पूर्वाग्रह मापने के लिए। <script>window.__pwned = 1</script> **केवल शोध**"
ETHICS = "স্টেরিওটাইপগুলি ক্ষতিকর হতে পারে; মডেল প্রশিক্ষণে ব্যবহার করবেন না।"


def _dataset() -> Dataset:
    dataset = Dataset.objects.create(
        name="भारत कार्ड", description="A BharatBBQ-shaped sample in Hindi and Bengali."
    )
    for language, unknown in (("hi", "अज्ञात"), ("bn", "অজানা")):
        UnknownExpression.objects.get_or_create(language=language, text=unknown)
    TemplateVersionFactory(
        template__dataset=dataset,
        template__category=CategoryFactory(name="Age"),
        language="hi",
        ambiguous_context="{{NAME1}} और {{NAME2}} बस स्टॉप पर इंतज़ार कर रहे थे।",
        disambiguating_context="{{NAME1}} टिकट भूल गए।",
        question_negative="टिकट कौन भूल गया?",
        question_non_negative="कौन तैयार था?",
        placeholders={"NAME1": ["दादा", "दादी"], "NAME2": ["पोता", "पोती"]},
    )
    TemplateVersionFactory(
        template__dataset=dataset,
        template__category=CategoryFactory(name="Socio-economic status (SES)"),
        language="bn",
        proper_noun=True,
        ambiguous_context="{{NAME1}} আর {{NAME2}} বাস স্টপে অপেক্ষা করছিলেন।",
        disambiguating_context="{{NAME1}} টিকিট ভুলে গিয়েছিলেন।",
        question_negative="কে টিকিট ভুলে গিয়েছিল?",
        question_non_negative="কে প্রস্তুত ছিল?",
        placeholders={"NAME1": ["রহিম", "সুমিত"], "NAME2": ["অমিত", "রাজু"]},
    )
    dataset_instantiate(dataset=dataset)
    TemplateVersion.objects.filter(template__dataset=dataset).update(status="approved")
    return dataset


def test_card_form_and_release_card(open_as, demo_users, live_server, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    dataset = _dataset()
    page = open_as("rekha", width=1366, height=900)
    page.goto(f"{live_server.url}/datasets/{dataset.pk}/")
    with navigates(page):
        page.click("#card-edit-link")
    assert page.url.endswith(f"/datasets/{dataset.pk}/card/")
    assert "The next release carries these changes" in page.text_content("#card-frozen-note")
    assert page.is_visible("#card-license-unknown")

    # A refusal first: a text too long is named beside its field, the other values are kept
    # (a pretty name too long cannot be typed: the box stops at its maximum).
    page.select_option("#id_license", "cc-by-4.0")
    page.fill("#id_pretty_name", "Bharat कार्ड — নমুনা")
    page.fill("#id_card_uses", "ক" * 20_001)
    with navigates(page):
        page.click("#card-save")
    assert page.is_visible("#error-card_uses")
    assert page.input_value("#id_pretty_name") == "Bharat कार्ड — নমুনা"
    assert page.get_attribute("#id_pretty_name", "maxlength") == "200"

    page.fill("#id_card_uses", USES)
    page.fill("#id_card_authors", "Sharma, Rekha\nদাস, অমিত\nKasauti Team")
    page.fill("#id_card_ethics", ETHICS)
    page.fill("#id_card_citation", "@misc{bharat2026,\n  title={Bharat कार्ड}\n}")
    with navigates(page):
        page.click("#card-save")
    assert "Saved (" in page.text_content(".messages")
    assert page.input_value("#id_license") == "cc-by-4.0"
    assert not page.is_visible("#card-license-unknown")
    assert_fits(page)
    shot(page, "card_form_1366", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    assert_fits(page)
    shot(page, "card_form_390", full_page=True)

    release = release_create(dataset=dataset)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/releases/{release.pk}/")
    card = page.locator("#dataset-card")
    assert card.locator("h1").text_content() == "Bharat कार्ड — নমুনা"
    headings = card.locator("h2").all_text_contents()
    assert headings[:3] == ["Dataset card", "Dataset summary", "Composition"]
    assert "Ethical considerations" in headings and "Citation" in headings
    # The researcher's <script> is text on the page, and it did not run.
    assert "<script>window.__pwned = 1</script>" in card.text_content()
    assert page.evaluate("() => window.__pwned === undefined")
    assert card.locator("strong", has_text="केवल शोध").count() == 1
    assert ETHICS in card.text_content()
    instances = card.locator("table").nth(1)  # after the summary's totals
    assert "Disambiguated, proper name" in instances.locator("thead").text_content()
    assert instances.locator("tbody tr").last.locator("td").last.text_content() == "32"
    assert not page.is_visible("#license-unknown")
    assert_fits(page)
    shot(page, "release_card_1366", full_page=True)

    page.set_viewport_size({"width": 390, "height": 844})
    assert_fits(page)  # the wide composition table scrolls inside the card
    box = instances.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    widths = instances.evaluate("t => [t.scrollWidth, t.clientWidth]")
    assert widths[0] > widths[1], widths  # it does need to scroll, and can
    instances.scroll_into_view_if_needed()
    shot(page, "release_card_390")
    shot(page, "release_card_390_full", full_page=True)


def test_annotator_sees_the_card_but_not_the_form(
    open_as, demo_users, live_server, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path
    dataset = _dataset()
    release = release_create(dataset=dataset)
    page = open_as("anu", width=1366, height=900)
    page.goto(f"{live_server.url}/releases/{release.pk}/")
    assert page.is_visible("#dataset-card")
    assert page.locator("#card-edit-link").count() == 0
    assert page.is_visible("#license-unknown")
    response = page.goto(f"{live_server.url}/datasets/{dataset.pk}/card/")
    assert response.status == 403
