"""From annotation decisions to a reviewed release, through the services only: what the
annotators and the adjudicator decide is written onto catalog fields, and the release (which
reads only those) takes exactly what passed."""

from __future__ import annotations

import importlib
import json

import pytest
from django.apps import apps as django_apps

from apps.accounts.roles import ANNOTATOR
from apps.accounts.services import user_create_with_role
from apps.annotation import selectors, services
from apps.annotation.models import CampaignItem, ItemStatus
from apps.catalog.models import ContextSentence, ContextSet, Instance, StereotypeTuple
from apps.catalog.services import dataset_instantiate
from apps.core.errors import KasautiError
from apps.releases.services import release_create, release_file_path
from tests.factories import CategoryFactory, DatasetFactory, TemplateVersionFactory

from .conftest import YES_ALL

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def _rows(release, kind):
    release_file = release.files.get(kind=kind, format="jsonl")
    return [json.loads(line) for line in release_file_path(release_file=release_file).open()]


def _work(campaign, answers_for):
    """Every annotator of the campaign answers each of their items: answers_for(user, item)."""
    for user in campaign.annotators.order_by("username"):
        while assignment := selectors.assignment_next(campaign_id=campaign.pk, annotator=user):
            services.judgement_submit(
                assignment_id=assignment.pk,
                annotator=user,
                answers=answers_for(user, assignment.item),
                idempotency_key=services.new_idempotency_key(),
            )


def test_adjudicator_edit_goes_back_to_review_and_the_release_takes_the_new_version(
    annotator, second_annotator, researcher
):
    version = TemplateVersionFactory()
    dataset = version.template.dataset
    dataset_instantiate(dataset=dataset)
    old_ids = set(Instance.objects.filter(template_version=version).values_list("id", flat=True))
    campaign = services.campaign_create(
        dataset=dataset, kind="template_validation", annotators=[annotator, second_annotator]
    )
    # The two annotators disagree on criterion b: adjudication.
    _work(campaign, lambda user, item: {**YES_ALL, "b": "no"} if user == annotator else YES_ALL)
    item = CampaignItem.objects.get(campaign=campaign, template_version=version)
    assert item.status == ItemStatus.ADJUDICATION

    new_question = "कौन टिकट भूल गया?"
    decision = services.item_decide(
        item=item,
        verdict="edit",
        decided_by=researcher,
        changes={"question_negative": new_question},
    )
    new = decision.new_version
    assert new.status == "in_review" and new.number == 2
    # The edited version is not reviewed yet: nothing to release as reviewed.
    dataset_instantiate(dataset=dataset)
    with pytest.raises(KasautiError, match="content=as_published"):
        release_create(dataset=dataset)

    # Back to the same annotators, who both approve now.
    _work(campaign, lambda user, item: YES_ALL)
    new.refresh_from_db()
    assert new.status == "approved"
    release = release_create(dataset=dataset)
    members = set(release.memberships.values_list("instance_id", flat=True))
    assert members and not members & old_ids
    assert members == set(
        Instance.objects.filter(template_version=new, retired_at__isnull=True).values_list(
            "id", flat=True
        )
    )
    rows = _rows(release, "instances")
    assert len(rows) == 16 == release.counts["total"]
    assert {r["additional_metadata"]["review_status"] for r in rows} == {"approved"}
    negative = [r for r in rows if r["question_polarity"] == "neg"]
    assert negative and {r["question"] for r in negative} == {new_question}
    assert release.counts["excluded"]["instances"]["template_not_approved"] == 0


@pytest.fixture
def third_annotator(db):
    user = user_create_with_role(username="chand", role=ANNOTATOR, password="x")
    services.annotator_update(user=user, languages=["en", "hi"])
    return user


def test_tuple_votes_decide_the_reviewed_release(annotator, second_annotator, third_annotator):
    dataset = DatasetFactory()
    category = CategoryFactory(name="Region")
    tuples = {
        term: StereotypeTuple.objects.create(
            dataset=dataset, category=category, identity_term=term, attribute="thrifty"
        )
        for term in ("Marwari", "Bengali")
    }
    # Marwari gets [1, 1, 0], Bengali [1, 0, 0]; Tamil comes later, nobody votes on it.
    campaign = services.campaign_create(
        dataset=dataset,
        kind="tuple_vote",
        annotators=[annotator, second_annotator, third_annotator],
    )
    StereotypeTuple.objects.create(
        dataset=dataset, category=category, identity_term="Tamil", attribute="thrifty"
    )
    yes_by = {"Marwari": {annotator.pk, second_annotator.pk}, "Bengali": {annotator.pk}}

    def vote(user, item):
        yes = user.pk in yes_by[item.stereotype_tuple.identity_term]
        return {"stereotypical": "yes" if yes else "no"}

    _work(campaign, vote)
    release = release_create(dataset=dataset)
    assert [(t["identity_term"], sorted(t["votes"])) for t in _rows(release, "tuples")] == [
        ("Marwari", [0, 1, 1])
    ]
    assert release.counts["excluded"]["tuples"] == {"not_voted": 1, "voted_not_stereotypical": 1}
    bengali = CampaignItem.objects.get(stereotype_tuple=tuples["Bengali"])
    assert bengali.outcome["stereotypical"] is False and bengali.outcome["score"] == 1


FIXED = "दलित लोग पढ़ाई में कमज़ोर होते हैं।"


def test_two_tier_sentence_review_decides_the_reviewed_release(
    annotator, second_annotator, researcher, researcher_client
):
    dataset = DatasetFactory()
    caste = CategoryFactory(name="Caste")
    sets = {
        name: ContextSet.objects.create(
            dataset=dataset, external_id=name, category=caste, language="hi"
        )
        for name in ("s1", "s2")
    }
    texts = {
        "keep": ("s1", "stereotype", "ब्राह्मण लोग पढ़े-लिखे होते हैं।"),
        "drop": ("s1", "stereotype", "यह वाक्य अधूरा"),
        "fix": ("s1", "anti_stereotype", "दलित लोग पढ़ाई में कमज़ोर होते है।"),
        "s2-keep": ("s2", "stereotype", "वह पुजारी है।"),
        "s2-social-drop": ("s2", "anti_stereotype", "वह किसान है।"),
    }
    sentence = {
        key: ContextSentence.objects.create(
            context_set=sets[set_name], kind=kind, text=text, position=position
        )
        for position, (key, (set_name, kind, text)) in enumerate(texts.items())
    }
    by_id = {s.pk: key for key, s in sentence.items()}
    people = [annotator, second_annotator]

    language = services.campaign_create(
        dataset=dataset, kind="sentence_review", annotators=people, tier="language"
    )

    def language_review(user, item):
        key = by_id[item.context_sentence_id]
        if key == "drop":
            return {"decision": "drop"}
        if key == "fix":
            return {"decision": "fix", "text": FIXED}
        return {"decision": "keep"}

    _work(language, language_review)
    states = dict(
        ContextSentence.objects.filter(context_set__dataset=dataset).values_list(
            "text", "review_decision"
        )
    )
    assert states[FIXED] == "fix" and states["यह वाक्य अधूरा"] == "drop"
    # Language review alone is not enough.
    with pytest.raises(KasautiError, match="content=as_published"):
        release_create(dataset=dataset)

    social = services.campaign_create(
        dataset=dataset, kind="sentence_review", annotators=people, tier="social_science"
    )
    assert social.items.count() == 4  # the dropped sentence is not reviewed again

    def social_review(user, item):
        key = by_id[item.context_sentence_id]
        if key == "s2-social-drop":  # the annotators disagree: the adjudicator decides
            return {"decision": "drop" if user == annotator else "keep"}
        return {"decision": "keep"}

    _work(social, social_review)
    disputed = CampaignItem.objects.get(
        campaign=social, context_sentence=sentence["s2-social-drop"]
    )
    assert disputed.status == ItemStatus.ADJUDICATION
    services.item_decide(item=disputed, verdict="reject", decided_by=researcher)
    dropped = ContextSentence.objects.get(pk=sentence["s2-social-drop"].pk)
    assert (dropped.review_tier, dropped.review_decision) == ("social_science", "drop")

    # The catalog API shows each sentence's review state.
    listed = researcher_client.get("/api/context-sets/", {"dataset": dataset.pk}).json()
    states = {
        s["text"]: (s["review_tier"], s["review_decision"])
        for context_set in listed["results"]
        for s in context_set["sentences"]
    }
    assert states[FIXED] == ("social_science", "keep")
    assert states["यह वाक्य अधूरा"] == ("language", "drop")
    assert states["वह किसान है।"] == ("social_science", "drop")

    release = release_create(dataset=dataset)
    (row,) = _rows(release, "context_sets")
    assert row["external_id"] == "s1"
    assert row["stereotypes"] == ["ब्राह्मण लोग पढ़े-लिखे होते हैं।"]
    assert row["anti_stereotypes"] == [FIXED]
    assert release.counts["excluded"]["context_sets"] == {
        "no_stereotype_left": 0,
        "no_anti_stereotype_left": 1,
        "no_sentence_left": 0,
    }
    assert release.counts["excluded"]["context_sentences"] == {
        "not_reviewed": 0,
        "awaiting_social_science_review": 0,
        "dropped_in_language_review": 1,
        "dropped_in_social_science_review": 1,
        "set_left_out": 1,
    }


def test_backfill_copies_earlier_decisions_onto_the_catalog(annotator, second_annotator):
    """Migration annotation 0003: decisions made before the catalog recorded them are copied
    over, the last decided item of a sentence winning; nothing else changes."""
    dataset = DatasetFactory()
    context_set = ContextSet.objects.create(
        dataset=dataset, external_id="c1", category=CategoryFactory(name="Caste"), language="hi"
    )
    kept, dropped = (
        ContextSentence.objects.create(context_set=context_set, kind=kind, text=text)
        for kind, text in (("stereotype", "वह पुजारी है।"), ("anti_stereotype", "वह किसान है।"))
    )
    people = [annotator, second_annotator]
    first = services.campaign_create(dataset=dataset, kind="sentence_review", annotators=people)
    _work(first, lambda user, item: {"decision": "keep"})
    second = services.campaign_create(
        dataset=dataset, kind="sentence_review", annotators=people, tier="social_science"
    )
    _work(
        second,
        lambda user, item: {"decision": "keep" if item.context_sentence_id == kept.pk else "drop"},
    )
    expected = list(
        ContextSentence.objects.order_by("id").values_list("text", "review_tier", "review_decision")
    )
    assert expected == [
        ("वह पुजारी है।", "social_science", "keep"),
        ("वह किसान है।", "social_science", "drop"),
    ]
    ContextSentence.objects.update(review_tier="", review_decision="", reviewed_at=None)
    migration = importlib.import_module("apps.annotation.migrations.0003_sentence_review_facts")
    migration.record_sentence_reviews(django_apps, None)
    assert (
        list(
            ContextSentence.objects.order_by("id").values_list(
                "text", "review_tier", "review_decision"
            )
        )
        == expected
    )
    assert not ContextSentence.objects.filter(reviewed_at__isnull=True).exists()


def test_social_science_review_takes_the_sentences_the_language_review_passes_now(
    annotator, second_annotator
):
    """The second tier is chosen from the catalog's current review state: a sentence that a
    later language campaign dropped is not sent on, and one the social scientists already
    decided is not reviewed again."""
    dataset = DatasetFactory()
    context_set = ContextSet.objects.create(
        dataset=dataset, external_id="c1", category=CategoryFactory(name="Caste"), language="hi"
    )
    first, second, third = (
        ContextSentence.objects.create(context_set=context_set, kind=kind, text=text, position=i)
        for i, (kind, text) in enumerate(
            [
                ("stereotype", "वह पुजारी है।"),
                ("anti_stereotype", "वह किसान है।"),
                ("anti_stereotype", "वह शिक्षक है।"),
            ]
        )
    )
    people = [annotator, second_annotator]
    language = services.campaign_create(
        dataset=dataset, kind="sentence_review", annotators=people, tier="language"
    )
    _work(language, lambda user, item: {"decision": "keep"})
    # A second language campaign over the same sentences drops the second one.
    again = services.campaign_create(
        dataset=dataset, kind="sentence_review", annotators=people, tier="language"
    )
    _work(
        again,
        lambda user, item: {
            "decision": "drop" if item.context_sentence_id == second.pk else "keep"
        },
    )
    social = services.campaign_create(
        dataset=dataset, kind="sentence_review", annotators=people, tier="social_science"
    )
    assert set(social.items.values_list("context_sentence_id", flat=True)) == {first.pk, third.pk}
    _work(social, lambda user, item: {"decision": "keep"})
    # Everything the language review passed is decided: a new second-tier campaign has no items.
    with pytest.raises(KasautiError):
        services.campaign_create(
            dataset=dataset, kind="sentence_review", annotators=people, tier="social_science"
        )


def _edit_one_of_two(annotator, second_annotator, researcher):
    """Two instantiated templates; both annotators approve `kept`, disagree on `edited`, which
    the adjudicator edits ("Save edit as new version"): v2 in review, not instantiated."""
    kept = TemplateVersionFactory()
    dataset = kept.template.dataset
    edited = TemplateVersionFactory(template__dataset=dataset)
    dataset_instantiate(dataset=dataset)
    campaign = services.campaign_create(
        dataset=dataset, kind="template_validation", annotators=[annotator, second_annotator]
    )
    _work(
        campaign,
        lambda user, item: (
            {**YES_ALL, "b": "no"}
            if user == annotator and item.template_version_id == edited.pk
            else YES_ALL
        ),
    )
    item = CampaignItem.objects.get(campaign=campaign, template_version=edited)
    decision = services.item_decide(
        item=item,
        verdict="edit",
        decided_by=researcher,
        note="b: the second name read oddly",
        changes={"question_negative": "कौन टिकट भूल गया?"},
    )
    return dataset, campaign, kept, decision.new_version


def test_reviewed_release_after_an_adjudicator_edit_needs_no_instantiation(
    annotator, second_annotator, researcher
):
    """Issue 18 2.1: the edited version is in review and not instantiated; a reviewed release
    does not include it, so it is not refused for it (it takes the approved template)."""
    dataset, _, kept, new = _edit_one_of_two(annotator, second_annotator, researcher)
    release = release_create(dataset=dataset, content="reviewed")
    assert release.counts["total"] == 16
    members = set(release.memberships.values_list("instance__template_version_id", flat=True))
    assert members == {kept.pk}
    # Everything-as-published would freeze the stale version 1: refused, naming the template
    # and its version.
    with pytest.raises(KasautiError, match=rf"{new.template.external_id} v2 \(in review\)"):
        release_create(dataset=dataset, content="as_published")


def test_approving_a_new_version_queues_its_instantiation(annotator, second_annotator, researcher):
    from apps.core.models import Job

    dataset, campaign, _, new = _edit_one_of_two(annotator, second_annotator, researcher)
    assert not Job.objects.filter(kind="instantiate").exists()
    _work(campaign, lambda user, item: YES_ALL)
    new.refresh_from_db()
    assert new.status == "approved"
    job = Job.objects.get(kind="instantiate")
    assert job.params["dataset_id"] == dataset.pk and job.status == "queued"
    # Until it ran, a reviewed release says what is stale.
    with pytest.raises(KasautiError, match=rf"{new.template.external_id} v2 \(approved\)"):
        release_create(dataset=dataset, content="reviewed")


@pytest.mark.celery_worker
def test_approved_new_version_is_instantiated_by_a_worker_and_released(
    celery_worker_process, annotator, second_annotator, researcher, settings, tmp_path
):
    from apps.core.models import Job
    from tests.core.test_worker_jobs import wait_for_job

    dataset, campaign, kept, new = _edit_one_of_two(annotator, second_annotator, researcher)
    _work(campaign, lambda user, item: YES_ALL)
    job = wait_for_job(Job.objects.get(kind="instantiate").pk)
    assert job.status == "succeeded", job.error
    assert job.result["created"] == 16
    release = release_create(dataset=dataset, content="reviewed")
    versions = set(release.memberships.values_list("instance__template_version_id", flat=True))
    assert versions == {kept.pk, new.pk} and release.counts["total"] == 32


def test_release_form_says_what_is_stale(annotator, second_annotator, researcher):
    from django.test import Client

    dataset, campaign, _, new = _edit_one_of_two(annotator, second_annotator, researcher)
    client = Client()
    client.force_login(researcher)
    label = f"{new.template.external_id} v2 (in review)"
    html = client.get(f"/datasets/{dataset.pk}/releases/").content.decode()
    stale = html.split('id="release-stale"', 1)[1].split("</div>", 1)[0]
    assert label in stale and "Everything, as published" in stale
    assert "Reviewed only" not in stale  # in review: a reviewed release does not take it
    _work(campaign, lambda user, item: YES_ALL)  # approved: an instantiation job is queued
    html = client.get(f"/datasets/{dataset.pk}/releases/").content.decode()
    stale = html.split('id="release-stale"', 1)[1].split("</div>", 1)[0]
    assert f"{new.template.external_id} v2 (approved)" in stale and "Reviewed only" in stale
    assert 'href="/jobs/' in stale  # the queued instantiation job
    dataset_instantiate(dataset=dataset)
    html = client.get(f"/datasets/{dataset.pk}/releases/").content.decode()
    assert 'id="release-stale"' not in html


def test_tuple_campaign_keeps_the_imported_votes_and_says_which_decide(
    annotator, second_annotator, third_annotator, researcher
):
    """Issue 18 4.5: a tuple imported with votes [1, 1, 0] is voted again by a campaign
    ([0, 0, 0]): both are kept; the campaign's decide (releases read `votes`); a re-import of the
    same file updates the imported votes only; the pages show both and the rule."""
    from django.test import Client

    dataset = DatasetFactory()
    category = CategoryFactory(name="Region")
    tup = StereotypeTuple.objects.create(
        dataset=dataset,
        category=category,
        identity_term="Marwari",
        attribute="thrifty",
        votes=[1, 1, 0],
        imported_votes=[1, 1, 0],
    )
    campaign = services.campaign_create(
        dataset=dataset,
        kind="tuple_vote",
        annotators=[annotator, second_annotator, third_annotator],
    )
    _work(campaign, lambda user, item: {"stereotypical": "no"})
    tup.refresh_from_db()
    assert tup.imported_votes == [1, 1, 0]
    assert tup.votes == [0, 0, 0] and tup.votes_source == "campaign"
    item = CampaignItem.objects.get(stereotype_tuple=tup)
    assert item.outcome["imported_votes"] == [1, 1, 0]
    release = release_create(dataset=dataset, content="as_published")
    assert [t["votes"] for t in _rows(release, "tuples")] == [[0, 0, 0]]

    client = Client()
    client.force_login(researcher)
    dataset_page = client.get(f"/datasets/{dataset.pk}/").content.decode()
    row = dataset_page.split(f'id="tuple-{tup.pk}"', 1)[1].split("</tr>", 1)[0]
    assert "1 1 0" in row and "0 0 0" in row and "campaign" in row
    assert "The votes of the latest tuple-vote campaign decide" in dataset_page
    dashboard = client.get(f"/annotate/manage/campaigns/{campaign.pk}/").content.decode()
    votes = dashboard.split('id="tuple-votes"', 1)[1].split("</table>", 1)[0]
    assert "Marwari" in votes and "1 1 0" in votes and "0 0 0" in votes
    assert "The votes of the latest tuple-vote campaign decide" in dashboard
