"""Issue 18 journeys in a real browser: undo from wherever the annotator is (4.4), item
numbers that match the URL (2.9), the adjudication page (2.7) and a release after an
adjudicator's edit (2.1). Screenshots are saved in tests/browser/artifacts/."""

from __future__ import annotations

import pytest

from apps.accounts.roles import ANNOTATOR
from apps.accounts.services import user_create_with_role
from apps.annotation import services
from apps.annotation.models import Assignment, Judgement
from apps.catalog.models import StereotypeConcept
from apps.catalog.services import dataset_instantiate
from tests.factories import CategoryFactory, TemplateFactory, TemplateVersionFactory

from .conftest import PASSWORD
from .support import assert_fits, navigates, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


@pytest.fixture
def people(demo_users):
    bela = user_create_with_role(username="bela", role=ANNOTATOR, password=PASSWORD)
    services.annotator_update(user=demo_users["annotator"], languages=["en"])
    services.annotator_update(user=bela, languages=["en"])
    return {"anu": demo_users["annotator"], "bela": bela, "rekha": demo_users["researcher"]}


@pytest.fixture
def dataset(transactional_db):
    """Three instantiated templates: T-age (with a concept), T-bus, T-rail."""
    category = CategoryFactory(name="Age")
    concept = StereotypeConcept.objects.create(
        category=category, statement="Old people are forgetful.", target_groups=["old"]
    )
    first = TemplateVersionFactory(
        template=TemplateFactory(external_id="T-age", category=category), concept=concept
    )
    dataset = first.template.dataset
    for name in ("T-bus", "T-rail"):
        TemplateVersionFactory(
            template=TemplateFactory(dataset=dataset, external_id=name, category=category)
        )
    dataset_instantiate(dataset=dataset)
    return dataset


def test_u_undoes_the_last_submission_from_the_next_item(live_server, open_as, people, dataset):
    campaign = services.campaign_create(
        dataset=dataset,
        kind="template_validation",
        annotators=[people["anu"], people["bela"]],
        created_by=people["rekha"],
    )
    base = live_server.url
    for width, height in ((1366, 800), (390, 844)):
        anu = open_as("anu", width=width, height=height, touch=width < 500)
        anu.goto(f"{base}/annotate/campaigns/{campaign.pk}/")
        assert anu.text_content(".workbar strong") == "1"
        for key in "yyy":
            anu.keyboard.press(key)
        with navigates(anu):
            anu.keyboard.press("Enter")
        # The next item is shown, and says what `u` will take back.
        assert anu.text_content(".workbar strong") == "2"
        assert "Undo my last submission (item 1)" in anu.text_content("#undo")
        shot(anu, f"annotation_undo_offer_{width}")
        assert_fits(anu)
        with navigates(anu):
            anu.keyboard.press("u")
        assert "undone" in anu.text_content(".messages")
        assert anu.text_content(".workbar strong") == "1"
        assert anu.text_content("[data-testid=progress]") == "0 / 3 done"
        first = Assignment.objects.get(annotator=people["anu"], position=0)
        actions = list(
            Judgement.objects.filter(assignment=first)
            .order_by("id")
            .values_list("action", flat=True)
        )
        assert actions[-2:] == ["submit", "undo"]  # the submission stays in the history
        assert anu.locator("#undo-form").count() == 0
        # j goes to /at/2/, which says "Item 2".
        with navigates(anu):
            anu.keyboard.press("j")
        assert anu.url.endswith(f"/annotate/campaigns/{campaign.pk}/at/2/")
        assert anu.text_content(".workbar strong") == "2"
