"""The workbench at 1280x720 and on a tablet (768x1024, touch): the annotator's screens never
scroll sideways and the submit control is on screen without scrolling; on the tablet the
decisions are made by tapping. The researcher's pages fit the tablet's width too."""

from __future__ import annotations

import pytest

from apps.accounts.roles import ANNOTATOR
from apps.accounts.services import user_create_with_role
from apps.annotation import services
from apps.annotation.models import CampaignItem, Judgement
from apps.catalog.models import Finding, Instance
from apps.catalog.services import dataset_instantiate
from apps.translation.models import CorrectionItem, TranslatedString
from tests.factories import TemplateFactory, TemplateVersionFactory, TranslatedStringFactory

from .conftest import PASSWORD
from .support import (
    SCRIPTS,
    assert_fits,
    assert_in_viewport,
    assert_text_boxes_show_everything,
    navigates,
    shot,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

SIZES = {"desktop": (1280, 720, False), "tablet": (768, 1024, True)}


@pytest.fixture
def campaigns(demo_users):
    """A template-validation and a Tamil translation-scoring campaign for anu and bela, with a
    long finding and a long Tamil sentence (the widest content these screens get)."""
    bela = user_create_with_role(username="bela", role=ANNOTATOR, password=PASSWORD)
    for user in (demo_users["annotator"], bela):
        services.annotator_update(user=user, languages=["en", "ta"])
    first = TemplateVersionFactory()
    dataset = first.template.dataset
    TemplateVersionFactory(template=TemplateFactory(dataset=dataset))
    Finding.objects.create(
        dataset=dataset,
        template_version=first,
        file="bbq/templates/Age_with_a_very_long_file_name_from_the_published_release.csv",
        line=1234,
        field="Known_stereotyped_groups",
        kind="parse-repair",
        message="[old, elderly} repaired to [old, elderly]: "
        "the closing bracket did not match the opening one",
    )
    dataset_instantiate(dataset=dataset)
    english = Instance.objects.filter(dataset=dataset, language="en")
    long_tamil = " ".join([SCRIPTS["ta"][2]] * 3)
    for text in set(english.filter(context_condition="ambig").values_list("context", flat=True)):
        _tamil(text, long_tamil, 0.9)
    for text in set(english.values_list("question", flat=True)):
        _tamil(text, SCRIPTS["ta"][3], 0.9)
    annotators = [demo_users["annotator"], bela]
    return {
        "template_validation": services.campaign_create(
            dataset=dataset, kind="template_validation", annotators=annotators
        ),
        "translation_scoring": services.campaign_create(
            dataset=dataset,
            kind="translation_scoring",
            language="ta",
            annotators=annotators,
            sample_size=1,
        ),
    }


def _tamil(source: str, translation: str, similarity: float) -> TranslatedString:
    return TranslatedStringFactory(
        language="ta", source_text=source, translation=translation, similarity=similarity
    )


def _tap(page, selector: str) -> None:
    page.locator(selector).scroll_into_view_if_needed()
    page.tap(selector)


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("kind", ["template_validation", "translation_scoring"])
def test_annotator_screen_fits_and_submit_is_on_screen(live_server, open_as, campaigns, size, kind):
    width, height, touch = SIZES[size]
    campaign = campaigns[kind]
    page = open_as("anu", width=width, height=height, touch=touch)
    page.goto(f"{live_server.url}/annotate/campaigns/{campaign.pk}/")
    page.wait_for_selector("#judgement-form")
    assert_fits(page)
    assert_text_boxes_show_everything(page)
    assert_in_viewport(page, "#submit")
    shot(page, f"annotation_layout_{kind}_{size}")
    shot(page, f"annotation_layout_{kind}_{size}_full", full_page=True)

    if kind == "template_validation":
        answers = {"a": "yes", "b": "no", "c": "yes"}
        if touch:
            for code, value in answers.items():
                _tap(page, f"fieldset[data-field={code}] input[value={value}]")
            _tap(page, "input[name=b_comment]")
            page.keyboard.type("Touch typed.")
        else:
            for value in answers.values():
                page.keyboard.press(value[0])
            page.keyboard.press("c")
            page.keyboard.type("Touch typed.")
            page.keyboard.press("Escape")
        expected = {**answers, "b_comment": "Touch typed."} if touch else answers
    else:
        if touch:
            _tap(page, "input[name=adequacy][value='4']")
            _tap(page, "input[name=adequacy_reason]")
            page.keyboard.type("Most of it.")
            _tap(page, "input[name=fluency][value='5']")
            _tap(page, "input[name=fluency_reason]")
            page.keyboard.type("Natural.")
        else:
            page.keyboard.press("4")
            page.keyboard.type("Most of it.")
            page.keyboard.press("Enter")
            page.keyboard.press("5")
            page.keyboard.type("Natural.")
            page.keyboard.press("Escape")
        expected = {"adequacy": 4, "fluency": 5}
    # Wherever answering has scrolled the page to, the submit control is still on screen.
    assert_in_viewport(page, "#submit")
    assert_fits(page)
    shot(page, f"annotation_layout_{kind}_{size}_answered")
    with navigates(page):
        if touch:
            page.tap("#submit")
        else:
            page.keyboard.press("Enter")
    stored = Judgement.objects.get(assignment__campaign=campaign).answers
    assert {k: stored[k] for k in expected} == expected
    assert page.text_content("[data-testid=progress]").startswith("1 / ")


def test_researcher_pages_fit_a_tablet(live_server, open_as, campaigns):
    campaign = campaigns["template_validation"]
    item = CampaignItem.objects.filter(campaign=campaign).first()
    string = TranslatedString.objects.filter(language="ta").first()
    CorrectionItem.objects.create(
        kind="low_similarity", language="ta", translated_string=string, reason="0.62 < 0.75"
    )
    base = live_server.url
    page = open_as("rekha", width=768, height=1024, touch=True)
    for name, address in {
        "campaigns": "/annotate/",
        "campaign_new": "/annotate/manage/campaigns/new/",
        "dashboard": f"/annotate/manage/campaigns/{campaign.pk}/",
        "adjudicate": f"/annotate/manage/items/{item.pk}/",
        "people": "/annotate/manage/people/",
        "table3": f"/annotate/manage/datasets/{campaign.dataset_id}/table3/",
        "corrections": "/annotate/corrections/?language=ta",
    }.items():
        response = page.goto(f"{base}{address}")
        assert response.status == 200, address
        assert_fits(page)
        assert_text_boxes_show_everything(page)
        # The whole main navigation is reachable (it wraps instead of running off screen).
        for link in page.locator(".mainnav a").all():
            box = link.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 768, (name, box)
        shot(page, f"annotation_tablet_{name}", full_page=True)
