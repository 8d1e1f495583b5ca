"""Tuple votes (IndiBias §4.1) and two-tier sentence review (IndiCASA) in a real browser, by
keyboard: three annotators vote on each tuple and the vote count is stored; context-set
sentences are kept, fixed or dropped first by the language review, then by the social-science
review, which sees only what the first tier kept, with the fixed text."""

from __future__ import annotations

import pytest

from apps.accounts.roles import ANNOTATOR
from apps.accounts.services import user_create_with_role
from apps.annotation import services
from apps.annotation.models import Assignment, CampaignItem, SentenceRevision
from apps.catalog.models import ContextSentence, ContextSet, StereotypeTuple
from tests.factories import CategoryFactory, DatasetFactory

from .conftest import PASSWORD
from .support import assert_served_font, navigates, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def _annotators(*names: str, languages: list[str]) -> dict:
    users = {}
    for name in names:
        users[name] = user_create_with_role(username=name, role=ANNOTATOR, password=PASSWORD)
        services.annotator_update(user=users[name], languages=languages)
    return users


def test_three_annotators_vote_on_tuples_by_keyboard(live_server, open_as, demo_users):
    people = _annotators("anu", "bela", "chandra", languages=["en", "hi"])
    dataset = DatasetFactory(name="indibias-mini")
    caste, region = CategoryFactory(name="Caste"), CategoryFactory(name="Region")
    tuples = [
        StereotypeTuple.objects.create(
            dataset=dataset, category=caste, identity_term="Baniya", attribute="business minded"
        ),
        StereotypeTuple.objects.create(
            dataset=dataset, category=region, identity_term="Bengali", attribute="bad at maths"
        ),
        StereotypeTuple.objects.create(
            dataset=dataset,
            category=caste,
            language="hi",
            identity_term="बनिया",
            attribute="कंजूस",
        ),
    ]
    votes = {  # who says what, by tuple
        tuples[0].pk: {"anu": "y", "bela": "y", "chandra": "n"},
        tuples[1].pk: {"anu": "n", "bela": "n", "chandra": "y"},
        tuples[2].pk: {"anu": "y", "bela": "y", "chandra": "y"},
    }
    campaign = services.campaign_create(
        dataset=dataset, kind="tuple_vote", annotators=list(people.values())
    )
    assert campaign.annotators_per_item == 3

    base = live_server.url
    for name in people:
        page = open_as(name)
        page.goto(f"{base}/annotate/campaigns/{campaign.pk}/")
        for _ in tuples:
            page.wait_for_selector("#identity")
            shown = StereotypeTuple.objects.get(
                dataset=dataset, identity_term=page.text_content("#identity")
            )
            assert page.text_content("#attribute") == shown.attribute
            if shown.language == "hi":
                assert_served_font(page, "#identity", "hi")
                assert_served_font(page, "#attribute", "hi")
                if name == "anu":
                    shot(page, "annotation_tuple_vote_hi")
            elif name == "anu" and shown == tuples[0]:
                shot(page, "annotation_tuple_vote")
            page.keyboard.press(votes[shown.pk][name])
            with navigates(page):
                page.keyboard.press("Enter")
        page.wait_for_selector("#all-done")

    for t in tuples:
        t.refresh_from_db()
        # IndiBias's Score: one vote per annotator, in slot order; >= 2 is stereotypical.
        slots = Assignment.objects.filter(item__stereotype_tuple=t).order_by("slot")
        expected = [1 if votes[t.pk][a.annotator.username] == "y" else 0 for a in slots]
        assert t.votes == expected
        item = CampaignItem.objects.get(stereotype_tuple=t)
        assert item.status == "complete"
        assert item.outcome["score"] == sum(expected)
        assert item.outcome["stereotypical"] == (sum(expected) >= 2)
    assert [sum(t.votes) for t in tuples] == [2, 1, 3]

    # The researcher sees the stored votes on the dataset page.
    rekha = open_as("rekha")
    rekha.goto(f"{base}/datasets/{dataset.pk}/")
    for t in tuples:
        assert rekha.text_content(f"#tuple-{t.pk} .votes") == " ".join(map(str, t.votes))


ORIGINAL = [
    ("stereotype", "The Brahmin priest recited the verses from memory."),
    ("stereotype", "The Dalit student topped the the exam."),
    ("anti_stereotype", "asdf the about of"),
    ("anti_stereotype", "The Muslim tailor stitched the wedding clothes."),
]
LANGUAGE_FIX = "The Dalit student topped the exam."
SOCIAL_FIX = "The Dalit student topped the state exam."


def _review(page, base, campaign_id: int, decisions: dict[str, tuple[str, str]], name: str):
    """Work through a sentence-review campaign: decisions maps the shown text to (key, fix)."""
    page.goto(f"{base}/annotate/campaigns/{campaign_id}/")
    for _ in range(len(decisions)):
        page.wait_for_selector("#sentence-text")
        key, fix = decisions[page.text_content("#sentence-text")]
        page.keyboard.press(key)
        if key == "2":
            # "Fix" puts the cursor in the sentence; Ctrl+Enter submits from the text box.
            assert page.evaluate("() => document.activeElement.name") == "text"
            page.keyboard.press("Control+a")
            page.keyboard.type(fix)
            shot(page, f"annotation_sentence_fix_{name}")
            with navigates(page):
                page.keyboard.press("Control+Enter")
        else:
            with navigates(page):
                page.keyboard.press("Enter")
    page.wait_for_selector("#all-done")


def test_sentence_review_in_two_tiers_by_keyboard(live_server, open_as, demo_users):
    people = _annotators("anu", "bela", languages=["en"])
    dataset = DatasetFactory(name="indicasa-mini")
    context_set = ContextSet.objects.create(
        dataset=dataset, external_id="caste-1", category=CategoryFactory(name="Caste")
    )
    sentences = [
        ContextSentence.objects.create(context_set=context_set, kind=kind, text=text, position=i)
        for i, (kind, text) in enumerate(ORIGINAL)
    ]
    base = live_server.url
    language = services.campaign_create(
        dataset=dataset, kind="sentence_review", annotators=list(people.values())
    )
    first_tier = {
        ORIGINAL[0][1]: ("1", ""),
        ORIGINAL[1][1]: ("2", LANGUAGE_FIX),
        ORIGINAL[2][1]: ("3", ""),
        ORIGINAL[3][1]: ("1", ""),
    }
    for name in people:
        _review(open_as(name), base, language.pk, first_tier, f"language_{name}")
    assert [s.text for s in ContextSentence.objects.order_by("position")] == [
        ORIGINAL[0][1],
        LANGUAGE_FIX,
        ORIGINAL[2][1],
        ORIGINAL[3][1],
    ]
    outcomes = {
        i.context_sentence_id: (i.status, i.outcome["decision"])
        for i in CampaignItem.objects.filter(campaign=language)
    }
    assert [outcomes[s.pk] for s in sentences] == [
        ("complete", "keep"),
        ("complete", "fix"),
        ("complete", "drop"),
        ("complete", "keep"),
    ]

    # The researcher opens the second tier in the browser: it takes what the first kept.
    rekha = open_as("rekha")
    rekha.goto(f"{base}/annotate/manage/campaigns/new/")
    rekha.select_option("select[name=dataset]", str(dataset.pk))
    rekha.select_option("select[name=kind]", "sentence_review")
    rekha.select_option("select[name=tier]", "social_science")
    for user in people.values():
        rekha.check(f"input[name=annotators][value='{user.pk}']")
    with navigates(rekha):
        rekha.click("#campaign-form button[type=submit]")
    social = CampaignItem.objects.filter(campaign__params__tier="social_science")
    assert sorted(social.values_list("context_sentence_id", flat=True)) == [
        sentences[0].pk,
        sentences[1].pk,
        sentences[3].pk,
    ]
    campaign_id = social.first().campaign_id

    anu = open_as("anu")
    anu.goto(f"{base}/annotate/campaigns/{campaign_id}/")
    assert "Social-science review" in anu.text_content(".item")
    second_tier = {
        ORIGINAL[0][1]: ("1", ""),
        LANGUAGE_FIX: ("2", SOCIAL_FIX),  # the fixed text is what the second tier reviews
        ORIGINAL[3][1]: ("3", ""),
    }
    _review(anu, base, campaign_id, second_tier, "social_anu")
    _review(open_as("bela"), base, campaign_id, second_tier, "social_bela")

    assert ContextSentence.objects.get(pk=sentences[1].pk).text == SOCIAL_FIX
    history = SentenceRevision.objects.filter(context_sentence=sentences[1]).order_by("id")
    assert [(r.text_before, r.text_after, r.item.campaign_id) for r in history] == [
        (ORIGINAL[1][1], LANGUAGE_FIX, language.pk),
        (LANGUAGE_FIX, SOCIAL_FIX, campaign_id),
    ]
    outcomes = {i.context_sentence_id: (i.status, i.outcome["decision"]) for i in social}
    assert [outcomes[sentences[i].pk] for i in (0, 1, 3)] == [
        ("complete", "keep"),
        ("complete", "fix"),
        ("complete", "drop"),
    ]
