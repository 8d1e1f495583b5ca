"""The annotation workbench in a real browser, driven by the keyboard: two annotators validate
templates blind, the researcher adjudicates; adequacy/fluency scoring in Devanagari with the
served fonts; correction of a flagged translation; a tuple vote. A screenshot of each screen
is saved as a test artifact."""

from __future__ import annotations

import pytest

from apps.accounts.roles import ANNOTATOR
from apps.accounts.services import user_create_with_role
from apps.annotation import services
from apps.annotation.models import CampaignItem, Judgement
from apps.catalog.models import StereotypeTuple, TemplateVersion
from apps.catalog.services import dataset_instantiate
from apps.translation.models import CorrectionItem, CorrectionRevision, TranslatedString
from apps.translation.pipeline import text_hash
from tests.factories import CategoryFactory, TemplateFactory, TemplateVersionFactory

from .conftest import PASSWORD

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def _login(page, base, username):
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")


@pytest.fixture
def people(demo_users):
    bela = user_create_with_role(username="bela", role=ANNOTATOR, password=PASSWORD)
    services.annotator_update(user=demo_users["annotator"], languages=["en", "hi"])
    services.annotator_update(user=bela, languages=["en", "hi"])
    return {**demo_users, "bela": bela}


@pytest.fixture
def two_templates(transactional_db):
    first = TemplateVersionFactory()
    TemplateVersionFactory(template=TemplateFactory(dataset=first.template.dataset))
    dataset_instantiate(dataset=first.template.dataset)
    return first.template.dataset


def _fonts_loaded(page) -> list[str]:
    return page.evaluate(
        """async () => {
            await document.fonts.ready;
            return [...document.fonts].filter(f => f.status === "loaded").map(f => f.family);
        }"""
    )


def test_two_annotators_validate_blind_and_the_researcher_adjudicates(
    live_server, browser, people, two_templates, artifacts_dir
):
    base = live_server.url
    researcher = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    _login(researcher, base, "rekha")
    researcher.goto(f"{base}/annotate/manage/campaigns/new/")
    researcher.select_option("select[name=dataset]", str(two_templates.pk))
    researcher.select_option("select[name=kind]", "template_validation")
    researcher.check(f"input[name=annotators][value='{people['annotator'].pk}']")
    researcher.check(f"input[name=annotators][value='{people['bela'].pk}']")
    researcher.screenshot(path=str(artifacts_dir / "annotation_campaign_new.png"))
    researcher.click("#campaign-form button[type=submit]")
    researcher.wait_for_selector("#progress")
    campaign_id = int(researcher.url.rstrip("/").split("/")[-1])

    # Anu says no to criterion (c) on the first template, yes to everything else.
    plans = {"anu": [["y", "y", "n"], ["y", "y", "y"]], "bela": [["y", "y", "y"]] * 2}
    for name, plan in plans.items():
        page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
        _login(page, base, name)
        page.goto(f"{base}/annotate/campaigns/{campaign_id}/")
        for number, keys in enumerate(plan):
            page.wait_for_selector("#judgement-form")
            # Blind: the page never shows anyone else's answers.
            assert "bela" not in page.content() or name == "bela"
            for key in keys:
                page.keyboard.press(key)
            if number == 0:
                page.screenshot(path=str(artifacts_dir / f"annotation_validate_{name}.png"))
            page.keyboard.press("Enter")
            page.wait_for_load_state("load")
        page.wait_for_selector("#all-done")
        page.context.close()

    assert Judgement.objects.count() == 4
    researcher.goto(f"{base}/annotate/manage/campaigns/{campaign_id}/")
    assert "undefined" in researcher.text_content("#agreement")
    researcher.screenshot(path=str(artifacts_dir / "annotation_dashboard.png"), full_page=True)
    researcher.click("#queue a")
    researcher.wait_for_selector("#side-by-side")
    assert researcher.locator("#side-by-side td.no").count() == 1
    researcher.screenshot(path=str(artifacts_dir / "annotation_adjudicate.png"), full_page=True)
    researcher.keyboard.press("a")
    researcher.wait_for_selector("#progress")
    statuses = set(TemplateVersion.objects.values_list("status", flat=True))
    assert statuses == {"approved"}
    assert CampaignItem.objects.filter(decisions__verdict="approve").count() == 1
    researcher.context.close()


def test_adequacy_fluency_in_devanagari_by_keyboard(
    live_server, browser, people, two_templates, artifacts_dir
):
    from apps.catalog.models import Instance

    for i, text in enumerate(
        sorted(
            set(
                Instance.objects.filter(context_condition="ambig").values_list("context", flat=True)
            )
        )
        + sorted(set(Instance.objects.values_list("question", flat=True)))
    ):
        TranslatedString.objects.create(
            text_hash=text_hash(text),
            language="hi",
            model_version="m",
            source_text=text,
            translation=f"दादा और पोता बस स्टॉप पर इंतज़ार कर रहे थे {i}",
            back_translation=text,
            similarity=0.9,
            threshold=0.75,
            passed=True,
            forward_model_version="f",
            backward_model_version="b",
            embedder_version="e",
        )
    campaign = services.campaign_create(
        dataset=two_templates,
        kind="translation_scoring",
        language="hi",
        annotators=[people["annotator"], people["bela"]],
        sample_size=1,
    )
    page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    _login(page, base := live_server.url, "anu")
    page.goto(f"{base}/annotate/campaigns/{campaign.pk}/")
    for number in range(2):
        page.wait_for_selector("#target-text")
        assert page.get_attribute("#target-text", "lang") == "hi"
        page.keyboard.press("5")
        page.keyboard.type("All meaning is there.")
        page.keyboard.press("Enter")
        page.keyboard.press("4")
        page.keyboard.type("Slightly formal.")
        if number == 0:
            assert any("Devanagari" in family for family in _fonts_loaded(page))
            page.screenshot(path=str(artifacts_dir / "annotation_adequacy_fluency.png"))
        page.keyboard.press("Enter")
        page.wait_for_load_state("load")
    page.wait_for_selector("#all-done")
    answers = [j.answers for j in Judgement.objects.order_by("id")]
    assert [(a["adequacy"], a["fluency"]) for a in answers] == [(5, 4), (5, 4)]
    assert answers[0]["adequacy_reason"] == "All meaning is there."
    # Undo of the last submission within the session, by keyboard.
    last = Judgement.objects.order_by("id").last().assignment
    page.goto(f"{base}/annotate/assignments/{last.pk}/")
    page.keyboard.press("u")
    page.wait_for_selector(".messages")
    assert Judgement.objects.filter(assignment=last).last().action == "undo"
    page.context.close()


def test_correction_and_tuple_vote_by_keyboard(live_server, browser, people, artifacts_dir):
    string = TranslatedString.objects.create(
        text_hash="x" * 64,
        language="hi",
        model_version="m",
        source_text="The grandfather forgot the ticket.",
        translation="दादाजी टिकट भूल गए।",
        back_translation="Grandpa forgot ticket.",
        similarity=0.62,
        threshold=0.75,
        passed=False,
        forward_model_version="f",
        backward_model_version="b",
        embedder_version="e",
    )
    item = CorrectionItem.objects.create(
        kind="low_similarity", language="hi", translated_string=string, reason="0.62 < 0.75"
    )
    base = live_server.url
    page = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
    _login(page, base, "anu")
    page.goto(f"{base}/annotate/corrections/?language=hi")
    page.wait_for_selector("#machine-text")
    assert page.text_content("#machine-text") == "दादाजी टिकट भूल गए।"
    page.screenshot(path=str(artifacts_dir / "annotation_correction.png"))
    page.keyboard.press("e")
    page.keyboard.press("Control+a")
    page.keyboard.type("दादाजी टिकट भूल गए थे।")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("#queue-empty")
    revision = CorrectionRevision.objects.get(item=item)
    assert revision.text == "दादाजी टिकट भूल गए थे।" and revision.author.username == "anu"

    dataset = TemplateFactory().dataset
    StereotypeTuple.objects.create(
        dataset=dataset,
        category=CategoryFactory(name="Caste"),
        identity_term="Baniya",
        attribute="business minded",
    )
    campaign = services.campaign_create(
        dataset=dataset,
        kind="tuple_vote",
        annotators=[people["annotator"]],
        annotators_per_item=1,
    )
    page.goto(f"{base}/annotate/campaigns/{campaign.pk}/")
    page.wait_for_selector("#identity")
    page.screenshot(path=str(artifacts_dir / "annotation_tuple_vote.png"))
    page.keyboard.press("y")
    page.keyboard.press("Enter")
    page.wait_for_selector("#all-done")
    assert StereotypeTuple.objects.get(dataset=dataset).votes == [1]
    page.context.close()
