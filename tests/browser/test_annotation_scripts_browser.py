"""Indic text on the annotator's screens, in a real browser: adequacy/fluency scoring in each of
the five scripts (Devanagari, Bengali, Odia, Tamil, Telugu) by keyboard, and translation
correction (confirm one, edit another) in Tamil and Hindi with its history. Every screen checks
the `lang` attribute and that the script is drawn with the Noto face served from
/static/fonts/ (not a system font, not tofu)."""

from __future__ import annotations

import pytest

from apps.accounts.roles import ANNOTATOR
from apps.accounts.services import user_create_with_role
from apps.annotation import services
from apps.annotation.models import Judgement
from apps.catalog.models import Instance
from apps.catalog.services import dataset_instantiate
from apps.translation.models import CorrectionItem, CorrectionRevision
from tests.factories import TemplateVersionFactory, TranslatedStringFactory

from .conftest import PASSWORD
from .support import SCRIPTS, assert_served_font, navigates, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def _string(language: str, source: str, translation: str, similarity: float, **extra):
    return TranslatedStringFactory(
        language=language,
        source_text=source,
        translation=translation,
        similarity=similarity,
        **extra,
    )


@pytest.mark.parametrize("language", list(SCRIPTS))
def test_adequacy_and_fluency_by_keyboard_in_each_script(live_server, open_as, language):
    family, _, context, question = SCRIPTS[language]
    annotator = user_create_with_role(username="anu", role=ANNOTATOR, password=PASSWORD)
    services.annotator_update(user=annotator, languages=[language])
    dataset = TemplateVersionFactory().template.dataset
    dataset_instantiate(dataset=dataset)
    english = Instance.objects.filter(dataset=dataset, language="en")
    for source in set(english.filter(context_condition="ambig").values_list("context", flat=True)):
        _string(language, source, context, 0.91)
    for source in set(english.values_list("question", flat=True)):
        _string(language, source, question, 0.88)
    campaign = services.campaign_create(
        dataset=dataset,
        kind="translation_scoring",
        language=language,
        annotators=[annotator],
        annotators_per_item=1,
        sample_size=1,
    )

    page = open_as("anu")
    page.goto(f"{live_server.url}/annotate/campaigns/{campaign.pk}/")
    plan = [
        (5, "Every fact is kept.", 4, "Reads well, slightly formal."),
        (3, "Half of the meaning is lost.", 5, "Natural phrasing."),
    ]
    shown = []
    for number, (adequacy, why_a, fluency, why_f) in enumerate(plan):
        page.wait_for_selector("#target-text")
        assert page.get_attribute("#source-text", "lang") == "en"
        shown.append(page.text_content("#target-text").strip())
        assert_served_font(page, "#target-text", language)
        page.keyboard.press(str(adequacy))
        page.keyboard.type(why_a)
        page.keyboard.press("Enter")  # the justification is done: on to fluency
        page.keyboard.press(str(fluency))
        page.keyboard.type(why_f)
        assert page.is_checked(f"input[name=adequacy][value='{adequacy}']")
        assert page.is_checked(f"input[name=fluency][value='{fluency}']")
        if number == 0:
            shot(page, f"annotation_scoring_{language}")
        with navigates(page):
            page.keyboard.press("Enter")
    page.wait_for_selector("#all-done")

    # The two screens showed the context and the question, in the script.
    assert sorted(shown) == sorted([context, question])
    stored = [j.answers for j in Judgement.objects.order_by("assignment__position", "id")]
    assert [
        (a["adequacy"], a["adequacy_reason"], a["fluency"], a["fluency_reason"]) for a in stored
    ] == plan


def test_correction_confirm_and_edit_in_tamil_and_hindi_with_history(live_server, open_as):
    annotator = user_create_with_role(username="anu", role=ANNOTATOR, password=PASSWORD)
    services.annotator_update(user=annotator, languages=["ta", "hi"])
    confirm = CorrectionItem.objects.create(
        kind="low_similarity",
        language="ta",
        reason="0.70 < 0.75",
        translated_string=_string(
            "ta",
            "The grandfather and the grandson were waiting at the bus stop.",
            SCRIPTS["ta"][2],
            0.70,
            back_translation="Grandfather and grandson waited at the bus stop.",
        ),
    )
    edit = CorrectionItem.objects.create(
        kind="low_similarity",
        language="ta",
        reason="0.52 < 0.75",
        translated_string=_string("ta", "Who forgot the ticket?", "டிக்கெட் யார்?", 0.52),
    )
    hindi = CorrectionItem.objects.create(
        kind="low_similarity",
        language="hi",
        reason="0.62 < 0.75",
        translated_string=_string(
            "hi", "The grandfather forgot the ticket.", "दादाजी टिकट भूल गए।", 0.62
        ),
    )
    base = live_server.url
    page = open_as("anu", width=1024, height=768)

    page.goto(f"{base}/annotate/corrections/?language=ta")
    assert page.text_content("#machine-text") == SCRIPTS["ta"][2]
    assert page.text_content("#similarity") == "0.700"
    assert page.text_content("#back-text") == "Grandfather and grandson waited at the bus stop."
    assert_served_font(page, "#machine-text", "ta")
    assert page.get_attribute("#correction-text", "lang") == "ta"
    shot(page, "annotation_correction_ta")
    with navigates(page):
        page.keyboard.press("c")  # the machine translation is right
    assert page.text_content("#machine-text") == "டிக்கெட் யார்?"
    page.keyboard.press("e")
    page.keyboard.press("Control+a")
    page.keyboard.type(SCRIPTS["ta"][3])
    with navigates(page):
        page.keyboard.press("Control+Enter")
    page.wait_for_selector("#queue-empty")

    page.goto(f"{base}/annotate/corrections/?language=hi")
    page.keyboard.press("e")
    page.keyboard.press("End")
    page.keyboard.press("Backspace")
    page.keyboard.type(" थे।")
    with navigates(page):
        page.keyboard.press("Control+Enter")
    page.wait_for_selector("#queue-empty")

    def revision(item):
        row = CorrectionRevision.objects.get(item=item)
        return row.text, row.author.username

    assert revision(confirm) == (SCRIPTS["ta"][2], "anu")
    assert revision(edit) == (SCRIPTS["ta"][3], "anu")
    assert revision(hindi) == ("दादाजी टिकट भूल गए थे।", "anu")
    assert set(CorrectionItem.objects.values_list("status", flat=True)) == {"resolved"}

    # The history of a resolved item: the machine output first, then who changed it, when.
    for item, language, texts in (
        (edit, "ta", ["டிக்கெட் யார்?", SCRIPTS["ta"][3]]),
        (hindi, "hi", ["दादाजी टिकट भूल गए।", "दादाजी टिकट भूल गए थे।"]),
    ):
        page.goto(f"{base}/annotate/corrections/?item={item.pk}")
        entries = page.locator("#history li")
        assert entries.count() == 2
        assert [entries.nth(i).locator("[lang]").text_content() for i in range(2)] == texts
        assert "machine" in entries.nth(0).text_content()
        assert "anu" in entries.nth(1).text_content()
        assert entries.nth(1).locator("[lang]").get_attribute("lang") == language
        assert_served_font(page, "#history li:nth-child(2) [lang]", language)
        shot(page, f"annotation_correction_history_{language}", full_page=True)
