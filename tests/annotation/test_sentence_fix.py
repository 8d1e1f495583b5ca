"""Sentence review "fix" changes the sentence (with a revision: before, after, who, when), and
the next tier judges the fixed text. Disagreements are fixed by the adjudicator."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.annotation import selectors, services
from apps.annotation.models import CampaignItem, SentenceRevision
from apps.catalog.models import ContextSentence, ContextSet
from apps.core.errors import KasautiError
from tests.factories import CategoryFactory, DatasetFactory

pytestmark = pytest.mark.django_db

ORIGINAL = "दलित लोग पढ़ाई में कमज़ोर होते है।"
FIXED = "दलित लोग पढ़ाई में कमज़ोर होते हैं।"
# The same fix typed decomposed (NFD): stored NFC, so both annotators agree.
FIXED_NFD = "दलित लोग पढ़ाई में कमज़ोर होते हैं।".replace("ज़", "ज\u093c")


@pytest.fixture
def sentence(db):
    context_set = ContextSet.objects.create(
        dataset=DatasetFactory(),
        external_id="c1",
        category=CategoryFactory(name="Caste"),
        language="hi",
    )
    return ContextSentence.objects.create(context_set=context_set, kind="stereotype", text=ORIGINAL)


def _review(dataset, people, answers_by_user, tier="language"):
    campaign = services.campaign_create(
        dataset=dataset,
        kind="sentence_review",
        language="hi",
        annotators=people,
        tier=tier,
    )
    seen = {}
    for user in people:
        while a := selectors.assignment_next(campaign_id=campaign.pk, annotator=user):
            seen[user.username] = a.item.context_sentence.text
            services.judgement_submit(
                assignment_id=a.pk,
                annotator=user,
                answers=answers_by_user[user.username],
                idempotency_key=services.new_idempotency_key(),
            )
    return campaign, seen


def test_agreed_fix_rewrites_the_sentence_and_the_next_tier_sees_it(
    sentence, annotator, second_annotator
):
    dataset = sentence.context_set.dataset
    people = [annotator, second_annotator]
    first, seen = _review(
        dataset,
        people,
        {
            annotator.username: {"decision": "fix", "text": FIXED},
            second_annotator.username: {"decision": "fix", "text": FIXED_NFD},
        },
    )
    assert set(seen.values()) == {ORIGINAL}
    sentence.refresh_from_db()
    assert sentence.text == FIXED
    (revision,) = SentenceRevision.objects.filter(context_sentence=sentence)
    assert (revision.text_before, revision.text_after) == (ORIGINAL, FIXED)
    assert revision.decided_by is None and revision.item.campaign_id == first.pk

    second, seen = _review(
        dataset,
        people,
        {u.username: {"decision": "keep"} for u in people},
        tier="social_science",
    )
    assert set(seen.values()) == {FIXED}  # the second tier judges the fixed text
    assert SentenceRevision.objects.filter(context_sentence=sentence).count() == 1


def test_disagreement_is_fixed_by_the_adjudicator_with_history_in_api(
    sentence, annotator, second_annotator, researcher, researcher_client
):
    dataset = sentence.context_set.dataset
    _review(
        dataset,
        [annotator, second_annotator],
        {
            annotator.username: {"decision": "fix", "text": FIXED},
            second_annotator.username: {"decision": "keep"},
        },
    )
    item = CampaignItem.objects.get(context_sentence=sentence)
    assert item.status == "adjudication"
    sentence.refresh_from_db()
    assert sentence.text == ORIGINAL  # nothing changes before a decision

    with pytest.raises(KasautiError, match="changes.text"):
        services.item_decide(item=item, verdict="edit", changes={}, decided_by=researcher)
    page = Client()
    page.force_login(researcher)
    assert 'id="sentence-text"' in page.get(f"/annotate/manage/items/{item.pk}/").content.decode()
    decided = page.post(
        f"/annotate/manage/items/{item.pk}/", {"verdict": "edit", "text": FIXED + " "}
    )
    assert decided.status_code == 302
    sentence.refresh_from_db()
    item.refresh_from_db()
    assert sentence.text == FIXED
    assert item.status == "approved" and item.outcome["decision"] == "fix"

    history = researcher_client.get(f"/api/annotation/sentences/{sentence.pk}/history/").json()
    assert history["text"] == FIXED
    (rev,) = history["revisions"]
    assert rev["text_before"] == ORIGINAL and rev["text_after"] == FIXED
    assert rev["by"] == researcher.username
    assert rev["annotators"] == [annotator.username, second_annotator.username]
    assert rev["at"]
    detail = researcher_client.get(f"/api/annotation/items/{item.pk}/").json()
    assert detail["revisions"] == history["revisions"]
    page_after = page.get(f"/annotate/manage/items/{item.pk}/").content.decode()
    assert 'id="revisions"' in page_after and ORIGINAL in page_after


def test_keep_and_drop_change_nothing(sentence, annotator, second_annotator):
    _review(
        sentence.context_set.dataset,
        [annotator, second_annotator],
        {u.username: {"decision": "drop"} for u in (annotator, second_annotator)},
    )
    sentence.refresh_from_db()
    assert sentence.text == ORIGINAL
    assert not SentenceRevision.objects.exists()
