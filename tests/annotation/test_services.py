"""Campaign assignment, judgements, the approval rule and adjudication, on PostgreSQL."""

from __future__ import annotations

from collections import Counter

import pytest

from apps.annotation import selectors, services
from apps.annotation.models import Assignment, CampaignItem, ItemStatus, Judgement
from apps.annotation.services import PermissionRefused
from apps.catalog.models import Finding, ReviewStatus, StereotypeTuple, TemplateVersion
from apps.core.errors import ConflictError, KasautiError
from tests.factories import CategoryFactory

from .conftest import YES_ALL

pytestmark = pytest.mark.django_db


def _campaign(templates, *people, **kwargs):
    return services.campaign_create(
        dataset=templates[0].template.dataset,
        kind="template_validation",
        annotators=list(people),
        **kwargs,
    )


def _submit(user, campaign, answers, key=None):
    assignment = selectors.assignment_next(campaign_id=campaign.pk, annotator=user)
    return services.judgement_submit(
        assignment_id=assignment.pk,
        annotator=user,
        answers=answers,
        idempotency_key=key or services.new_idempotency_key(),
    )


def test_every_item_gets_exactly_n_distinct_annotators(templates, annotator, second_annotator):
    campaign = _campaign(templates, annotator, second_annotator)
    assert campaign.annotators_per_item == 2
    per_item = Counter(Assignment.objects.filter(campaign=campaign).values_list("item", flat=True))
    assert sorted(per_item.values()) == [2, 2, 2]
    assert set(
        TemplateVersion.objects.filter(pk__in=[t.pk for t in templates]).values_list(
            "status", flat=True
        )
    ) == {ReviewStatus.IN_REVIEW}


def test_campaign_refuses_when_too_few_annotators_cover_the_language(templates, annotator):
    with pytest.raises(KasautiError, match="2 per item need at least 2 annotators"):
        _campaign(templates, annotator)
    assert not CampaignItem.objects.exists()


def test_unanimous_yes_approves_the_template(templates, annotator, second_annotator):
    campaign = _campaign(templates, annotator, second_annotator)
    _submit(annotator, campaign, YES_ALL)
    item = CampaignItem.objects.get(campaign=campaign, position=0)
    assert item.status == ItemStatus.PENDING
    _submit(second_annotator, campaign, YES_ALL)
    item.refresh_from_db()
    assert item.status == ItemStatus.APPROVED
    assert TemplateVersion.objects.get(pk=item.template_version_id).status == "approved"


def test_any_no_sends_the_item_to_adjudication(templates, annotator, second_annotator):
    campaign = _campaign(templates, annotator, second_annotator)
    _submit(annotator, campaign, YES_ALL)
    _submit(second_annotator, campaign, {**YES_ALL, "c": "no", "c_comment": "wrong group"})
    item = CampaignItem.objects.get(campaign=campaign, position=0)
    assert item.status == ItemStatus.ADJUDICATION
    assert list(selectors.adjudication_queue(campaign=campaign)) == [item]
    assert item.outcome["c"] == ["yes", "no"]


def test_open_finding_needs_the_adjudicator_even_if_everyone_approves(
    templates, annotator, second_annotator, researcher
):
    version = templates[0]
    finding = Finding.objects.create(
        dataset=version.template.dataset,
        template_version=version,
        kind="unfilled-placeholder",
        message="{{NAME3}} has no values",
    )
    campaign = _campaign(templates, annotator, second_annotator)
    _submit(annotator, campaign, YES_ALL)
    _submit(second_annotator, campaign, YES_ALL)
    item = CampaignItem.objects.get(campaign=campaign, template_version=version)
    assert item.status == ItemStatus.ADJUDICATION
    with pytest.raises(KasautiError, match=rf"\[{finding.pk}\] still open"):
        services.item_decide(item=item, verdict="approve", decided_by=researcher)
    services.item_decide(
        item=item, verdict="approve", decided_by=researcher, findings={finding.pk: "accepted"}
    )
    finding.refresh_from_db()
    assert finding.status == "accepted"
    version.refresh_from_db()
    assert version.status == "approved"


def test_the_same_idempotency_key_stores_one_judgement(templates, annotator, second_annotator):
    campaign = _campaign(templates, annotator, second_annotator)
    first, created = _submit(annotator, campaign, YES_ALL, key="k-1")
    assignment = first.assignment
    again, created_again = services.judgement_submit(
        assignment_id=assignment.pk, annotator=annotator, answers=YES_ALL, idempotency_key="k-1"
    )
    assert created and not created_again and again.pk == first.pk
    assert Judgement.objects.count() == 1


def test_an_edit_keeps_the_previous_answer(templates, annotator, second_annotator):
    campaign = _campaign(templates, annotator, second_annotator)
    first, _ = _submit(annotator, campaign, YES_ALL)
    edit, _ = services.judgement_submit(
        assignment_id=first.assignment_id,
        annotator=annotator,
        answers={**YES_ALL, "a": "no"},
        idempotency_key="edit-1",
    )
    assert edit.action == "edit" and edit.previous_id == first.pk
    history = list(selectors.judgement_history(assignment=first.assignment))
    assert [j.answers["a"] for j in history] == ["yes", "no"]
    with pytest.raises(ValueError, match="append-only"):
        first.save()


def test_undo_makes_the_item_pending_again(templates, annotator, second_annotator):
    campaign = _campaign(templates, annotator, second_annotator)
    first, _ = _submit(annotator, campaign, YES_ALL)
    services.judgement_undo(
        assignment_id=first.assignment_id, annotator=annotator, idempotency_key="u1"
    )
    assert selectors.assignment_next(campaign_id=campaign.pk, annotator=annotator).pk == (
        first.assignment_id
    )
    assert Judgement.objects.filter(assignment=first.assignment).count() == 2


def test_annotators_cannot_touch_other_assignments(templates, annotator, second_annotator):
    campaign = _campaign(templates, annotator, second_annotator)
    mine = selectors.assignment_next(campaign_id=campaign.pk, annotator=annotator)
    with pytest.raises(PermissionRefused):
        services.judgement_submit(
            assignment_id=mine.pk, annotator=second_annotator, answers=YES_ALL, idempotency_key="x"
        )


def test_bad_answers_are_refused_naming_the_field(templates, annotator, second_annotator):
    campaign = _campaign(templates, annotator, second_annotator)
    with pytest.raises(KasautiError, match="b: answer yes or no"):
        _submit(annotator, campaign, {"a": "yes", "b": "maybe", "c": "yes"})
    assert not Judgement.objects.exists()


def test_adjudicator_edit_creates_a_new_version_back_in_review(
    templates, annotator, second_annotator, researcher
):
    campaign = _campaign(templates, annotator, second_annotator)
    _submit(annotator, campaign, {**YES_ALL, "b": "no"})
    _submit(second_annotator, campaign, YES_ALL)
    item = CampaignItem.objects.get(campaign=campaign, position=0)
    decision = services.item_decide(
        item=item,
        verdict="edit",
        decided_by=researcher,
        changes={"question_negative": "Who lost the ticket?"},
    )
    new = decision.new_version
    assert new.number == 2 and new.status == "in_review"
    assert TemplateVersion.objects.get(pk=item.template_version_id).status == "rejected"
    requeued = CampaignItem.objects.get(template_version=new)
    assert requeued.status == ItemStatus.PENDING
    assert set(requeued.assignments.values_list("annotator", flat=True)) == {
        annotator.pk,
        second_annotator.pk,
    }
    with pytest.raises(ConflictError):
        services.item_decide(item=item, verdict="approve", decided_by=researcher)


def test_decided_items_cannot_change(templates, annotator, second_annotator):
    campaign = _campaign(templates, annotator, second_annotator)
    first, _ = _submit(annotator, campaign, YES_ALL)
    _submit(second_annotator, campaign, YES_ALL)
    with pytest.raises(ConflictError, match="approved"):
        services.judgement_submit(
            assignment_id=first.assignment_id,
            annotator=annotator,
            answers={**YES_ALL, "a": "no"},
            idempotency_key="late",
        )


def test_agreement_and_progress_for_a_campaign(templates, annotator, second_annotator):
    campaign = _campaign(templates, annotator, second_annotator)
    plan = [(YES_ALL, YES_ALL), ({**YES_ALL, "a": "no"}, YES_ALL), ({**YES_ALL, "a": "no"},) * 2]
    for mine, theirs in plan:
        _submit(annotator, campaign, mine)
        _submit(second_annotator, campaign, theirs)
    stats = selectors.campaign_agreement(campaign=campaign)
    # Criterion a: (yes,yes), (no,yes), (no,no): po = 2/3, pe = 1/3*2/3 + 2/3*1/3 = 4/9,
    # kappa = (2/3 - 4/9)/(5/9) = 0.4.
    assert stats["fields"]["a"]["value"] == pytest.approx(0.4)
    assert stats["fields"]["b"]["undefined"] is True
    assert "one label only" in stats["fields"]["b"]["reason"]
    assert stats["pairs"]["anu × bela"]["a"]["value"] == pytest.approx(0.4)
    progress = selectors.campaign_progress(campaign=campaign)
    assert progress["judgements"]["done"] == 6 and progress["judgements"]["percent"] == 100.0
    assert progress["by_annotator"]["anu"]["done"] == 3
    assert progress["by_language"]["en"]["assigned"] == 6


def test_tuple_votes_store_the_score(annotator, second_annotator, researcher):
    from apps.accounts.roles import ANNOTATOR
    from apps.accounts.services import user_create_with_role
    from tests.factories import DatasetFactory

    third = user_create_with_role(username="chand", role=ANNOTATOR, password="x")
    services.annotator_update(user=third, languages=["en"])
    dataset = DatasetFactory()
    category = CategoryFactory(name="Religion")
    tup = StereotypeTuple.objects.create(
        dataset=dataset, category=category, identity_term="X", attribute="thrifty"
    )
    campaign = services.campaign_create(
        dataset=dataset, kind="tuple_vote", annotators=[annotator, second_annotator, third]
    )
    assert campaign.annotators_per_item == 3
    for user, vote in ((annotator, "yes"), (second_annotator, "no"), (third, "yes")):
        _submit(user, campaign, {"stereotypical": vote})
    tup.refresh_from_db()
    assert sorted(tup.votes) == [0, 1, 1]  # in slot order
    item = CampaignItem.objects.get(campaign=campaign)
    assert item.outcome["stereotypical"] is True and item.outcome["score"] == 2


def test_sentence_review_second_tier_sees_only_what_the_first_kept(annotator, second_annotator):
    from apps.catalog.models import ContextSentence, ContextSet
    from tests.factories import DatasetFactory

    dataset = DatasetFactory()
    context_set = ContextSet.objects.create(
        dataset=dataset, external_id="c1", category=CategoryFactory(name="Caste")
    )
    kept, dropped = (
        ContextSentence.objects.create(context_set=context_set, kind=kind, text=text)
        for kind, text in (("stereotype", "Kept sentence."), ("anti_stereotype", "Bad one."))
    )
    first = services.campaign_create(
        dataset=dataset, kind="sentence_review", annotators=[annotator, second_annotator]
    )
    for user in (annotator, second_annotator):
        while a := selectors.assignment_next(campaign_id=first.pk, annotator=user):
            decision = "keep" if a.item.context_sentence_id == kept.pk else "drop"
            services.judgement_submit(
                assignment_id=a.pk,
                annotator=user,
                answers={"decision": decision},
                idempotency_key=services.new_idempotency_key(),
            )
    assert sorted(first.items.values_list("outcome__decision", flat=True)) == ["drop", "keep"]
    second = services.campaign_create(
        dataset=dataset,
        kind="sentence_review",
        annotators=[annotator, second_annotator],
        tier="social_science",
    )
    assert list(second.items.values_list("context_sentence", flat=True)) == [kept.pk]
    assert dropped.pk not in second.items.values_list("context_sentence", flat=True)


def test_only_the_chosen_targets_go_into_the_campaign(templates, annotator, second_annotator):
    """The template page's "Send to validation" sends one version, not every draft."""
    chosen = templates[1]
    campaign = _campaign(templates, annotator, second_annotator, only=[chosen.pk])
    assert list(campaign.items.values_list("template_version_id", flat=True)) == [chosen.pk]
    assert campaign.params["only"] == [chosen.pk]
    chosen.refresh_from_db()
    assert chosen.status == ReviewStatus.IN_REVIEW
    assert TemplateVersion.objects.get(pk=templates[0].pk).status == ReviewStatus.DRAFT
    # A chosen version the kind would not take (approved) is named; nothing is written.
    approved = templates[2]
    TemplateVersion.objects.filter(pk=approved.pk).update(status=ReviewStatus.APPROVED)
    before = CampaignItem.objects.count()
    with pytest.raises(KasautiError, match=rf"template version {approved.pk} cannot be annotated"):
        _campaign(templates, annotator, second_annotator, only=[templates[0].pk, approved.pk])
    assert CampaignItem.objects.count() == before
