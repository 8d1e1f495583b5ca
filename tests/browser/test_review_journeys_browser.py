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
from .support import assert_fits, navigates, shot, wait_job_page

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


def _judge(campaign, user, keys_by_template: dict[str, str]) -> None:
    from apps.annotation import selectors

    while (a := selectors.assignment_next(campaign_id=campaign.pk, annotator=user)) is not None:
        keys = keys_by_template[a.item.template_version.template.external_id]
        services.judgement_submit(
            assignment_id=a.pk,
            annotator=user,
            answers={c: "yes" if k == "y" else "no" for c, k in zip("abc", keys, strict=True)},
            idempotency_key=services.new_idempotency_key(),
        )


@pytest.mark.celery_worker
def test_release_after_an_adjudicators_edit(
    live_server, open_as, people, dataset, celery_worker_process
):
    """2.1: edit → the release form says what is not instantiated → a reviewed release works
    at once → the annotators approve the new version → a background job instantiates it → the
    next release takes it."""
    from apps.annotation.models import CampaignItem
    from apps.catalog.models import Instance, TemplateVersion
    from apps.core.models import Job
    from apps.releases.models import Release
    from tests.core.test_worker_jobs import wait_for_job

    campaign = services.campaign_create(
        dataset=dataset,
        kind="template_validation",
        annotators=[people["anu"], people["bela"]],
        created_by=people["rekha"],
    )
    _judge(campaign, people["anu"], {"T-age": "yyy", "T-bus": "yyy", "T-rail": "yyn"})
    _judge(campaign, people["bela"], {"T-age": "yyy", "T-bus": "yyy", "T-rail": "yyy"})
    rail = CampaignItem.objects.get(
        campaign=campaign, template_version__template__external_id="T-rail"
    )
    base = live_server.url
    rekha = open_as("rekha", width=1366, height=800)
    rekha.goto(f"{base}/annotate/manage/items/{rail.pk}/")
    rekha.fill(
        "textarea[name=ambiguous_context]",
        "A {{NAME1}} and a {{NAME2}} were waiting at the railway station.",
    )
    rekha.fill("input[name=note]", "c: the bus stop did not fit a railway template")
    with navigates(rekha):
        rekha.click("#edit")
    v2 = TemplateVersion.objects.get(template__external_id="T-rail", number=2)
    assert v2.status == "in_review"

    # The release form says what is stale, per content choice, before anything is submitted.
    rekha.goto(f"{base}/datasets/{dataset.pk}/releases/")
    stale = rekha.text_content("#release-stale")
    assert "Everything, as published: T-rail v2 (in review)" in " ".join(stale.split())
    assert "it can be made now" in stale
    shot(rekha, "release_stale_in_review_1366", full_page=True)
    assert_fits(rekha)
    narrow = open_as("rekha", width=390, height=844, touch=True)
    narrow.goto(f"{base}/datasets/{dataset.pk}/releases/")
    shot(narrow, "release_stale_in_review_390", full_page=True)
    assert_fits(narrow)

    # A reviewed release works now (the edited template is not part of it).
    with navigates(rekha):
        rekha.click("#release-button")
    assert wait_job_page(rekha) == "succeeded", Job.objects.filter(kind="release").last().error
    first = Release.objects.get(dataset=dataset)
    assert first.counts["total"] == 32  # T-age and T-bus

    # The annotators approve v2: a background instantiation job of the catalog's kind.
    _judge(campaign, people["anu"], {"T-rail": "yyy"})
    _judge(campaign, people["bela"], {"T-rail": "yyy"})
    v2.refresh_from_db()
    assert v2.status == "approved"
    job = wait_for_job(Job.objects.get(kind="instantiate").pk, timeout=90)
    assert job.status == "succeeded", job.error
    assert Instance.objects.filter(template_version=v2, retired_at__isnull=True).count() == 16

    rekha.goto(f"{base}/datasets/{dataset.pk}/releases/")
    assert rekha.locator("#release-stale").count() == 0
    with navigates(rekha):
        rekha.click("#release-button")
    assert wait_job_page(rekha) == "succeeded"
    second = Release.objects.get(dataset=dataset, number=2)
    assert second.counts["total"] == 48
    assert second.memberships.filter(instance__template_version=v2).count() == 16
    rekha.goto(f"{base}/datasets/{dataset.pk}/releases/")
    shot(rekha, "release_after_adjudication_1366", full_page=True)


def test_agreement_and_adjudication_pages(live_server, open_as, people, dataset):
    """2.7: criteria by their question, Cohen's κ named, raw agreement and the prevalence note,
    the adjudicator's note and a word-level diff in the version history."""
    from apps.annotation.models import CampaignItem

    campaign = services.campaign_create(
        dataset=dataset,
        kind="template_validation",
        annotators=[people["anu"], people["bela"]],
        created_by=people["rekha"],
    )
    # 8 of 9 (item, criterion) pairs agree; bela says yes to all: κ 0 at raw agreement 89%.
    _judge(campaign, people["anu"], {"T-age": "yyy", "T-bus": "yyy", "T-rail": "yyn"})
    _judge(campaign, people["bela"], {"T-age": "yyy", "T-bus": "yyy", "T-rail": "yyy"})
    base = live_server.url
    for width, height in ((1366, 800), (390, 844)):
        page = open_as("rekha", width=width, height=height, touch=width < 500)
        page.goto(f"{base}/annotate/manage/campaigns/{campaign.pk}/")
        overall = " ".join(page.inner_text("#agreement tbody tr >> nth=0").split())
        assert overall.startswith("Overall (all criteria) 0.000 Cohen's κ, n=9; raw agreement 89%")
        assert "“yes” is 94% of the judgements; chance agreement is already 89%" in overall
        assert "cohen_kappa" not in page.content()
        shot(page, f"annotation_agreement_{width}", full_page=True)
        assert_fits(page)
    rail = CampaignItem.objects.get(
        campaign=campaign, template_version__template__external_id="T-rail"
    )
    page = open_as("rekha", width=1366, height=800)
    page.goto(f"{base}/annotate/manage/items/{rail.pk}/")
    headers = page.locator("#side-by-side th.criterion").all_text_contents()
    assert headers[2] == "(c) The placeholder terms represent the intended social groups."
    page.fill(
        "textarea[name=ambiguous_context]",
        "A {{NAME1}} and a {{NAME2}} were waiting at the railway station.",
    )
    page.fill("input[name=note]", "c: a railway template should not mention a bus stop")
    with navigates(page):
        page.click("#edit")
    new_item = CampaignItem.objects.get(campaign=campaign, template_version__number=2)
    for width, height in ((1366, 800), (390, 844)):
        view = open_as("rekha", width=width, height=height, touch=width < 500)
        for name, url in (
            ("adjudicate", f"{base}/annotate/manage/items/{new_item.pk}/"),
            ("template", f"{base}/templates/{new_item.template_version.template_id}/"),
        ):
            view.goto(url)
            history = view.locator("#versions tbody tr >> nth=0")
            assert "c: a railway template should not mention a bus stop" in history.text_content()
            context = history.locator(".diff > div >> nth=0")
            assert context.locator("del").all_text_contents() == ["bus stop."]
            assert context.locator("ins").all_text_contents() == ["railway station."]
            shot(view, f"version_history_{name}_{width}", full_page=True)


def test_tuple_votes_people_and_table3_pages_fit(live_server, open_as, people, admin_user_3):
    """4.5 and 3.1 pages at 1366 and 390 px: both votes and the rule on the dataset page and
    the campaign dashboard; the People page shows a superuser annotator read-only."""
    from apps.catalog.models import StereotypeTuple
    from tests.factories import DatasetFactory

    dataset = DatasetFactory(name="tuples-demo")
    category = CategoryFactory(name="Region")
    tup = StereotypeTuple.objects.create(
        dataset=dataset,
        category=category,
        identity_term="मारवाड़ी",
        attribute="कंजूस",
        language="hi",
        votes=[1, 1, 0],
        imported_votes=[1, 1, 0],
    )
    chand = user_create_with_role(username="chand", role=ANNOTATOR, password=PASSWORD)
    services.annotator_update(user=chand, languages=["hi"])
    services.annotator_update(user=people["anu"], languages=["en", "hi"])
    services.annotator_update(user=people["bela"], languages=["en", "hi"])
    campaign = services.campaign_create(
        dataset=dataset,
        kind="tuple_vote",
        annotators=[people["anu"], people["bela"], chand],
        created_by=people["rekha"],
    )
    from apps.annotation import selectors

    for user in (people["anu"], people["bela"], chand):
        a = selectors.assignment_next(campaign_id=campaign.pk, annotator=user)
        services.judgement_submit(
            assignment_id=a.pk,
            annotator=user,
            answers={"stereotypical": "no"},
            idempotency_key=services.new_idempotency_key(),
        )
    tup.refresh_from_db()
    assert tup.votes == [0, 0, 0] and tup.imported_votes == [1, 1, 0]
    base = live_server.url
    for width, height in ((1366, 800), (390, 844)):
        page = open_as("rekha", width=width, height=height, touch=width < 500)
        page.goto(f"{base}/datasets/{dataset.pk}/")
        row = " ".join(page.inner_text(f"#tuple-{tup.pk}").split())
        assert "0 0 0" in row and "tuple-vote campaign" in row and "1 1 0" in row
        shot(page, f"tuple_votes_dataset_{width}", full_page=True)
        page.goto(f"{base}/annotate/manage/campaigns/{campaign.pk}/")
        votes = " ".join(page.inner_text("#tuple-votes").split())
        assert "1 1 0" in votes and "0 0 0" in votes
        shot(page, f"tuple_votes_dashboard_{width}", full_page=True)
        assert_fits(page)
        page.goto(f"{base}/annotate/manage/people/")
        row = page.locator("#people tr", has_text="ada")
        assert row.locator("button").count() == 0
        assert "managed by an administrator" in row.inner_text()
        shot(page, f"people_{width}", full_page=True)
        assert_fits(page)


@pytest.fixture
def admin_user_3(transactional_db):
    """A superuser who also holds the annotator role."""
    from django.contrib.auth.models import Group

    from apps.accounts.roles import ADMIN

    user = user_create_with_role(username="ada", role=ADMIN, password=PASSWORD)
    user.groups.add(Group.objects.get(name=ANNOTATOR))
    return user
