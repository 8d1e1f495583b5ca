"""Context-set sentence review (IndiCASA): annotators keep, fix (with the corrected text) or
drop a sentence, in two tiers (language experts, then social scientists, who see only what the
language tier kept or fixed). Agreement writes the decision (and a fix's text, with a revision)
onto the catalog sentence; disagreement goes to a researcher."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from apps.catalog.models import ContextSentence
from apps.catalog.review import SENTENCE_STATES, context_sentence_text_replace
from apps.core.errors import KasautiError
from apps.core.text import nfc

from ..models import Campaign, CampaignItem, CampaignKind, Decision, ItemStatus, SentenceRevision
from ..rules import InvalidJudgement, Outcome, text_answer
from . import Kind

SENTENCE_DECISIONS = ("keep", "fix", "drop")
TIERS = ("language", "social_science")


class SentenceReview(Kind):
    name = CampaignKind.SENTENCE_REVIEW.value
    label = CampaignKind.SENTENCE_REVIEW.label
    target = "context_sentence"
    fields = {"decision": (SENTENCE_DECISIONS, False)}
    field_labels = {"decision": "Keep / fix / drop"}
    form_fields = ("decision", "text")
    work_template = "annotation/kinds/sentence_review.html"
    guidelines_template = "annotation/kinds/sentence_review_guidelines.html"
    keys_hint = "<kbd>1</kbd> keep <kbd>2</kbd> fix <kbd>3</kbd> drop"

    def clean(self, answers: dict[str, Any]) -> dict[str, Any]:
        decision = answers.get("decision")
        if decision not in SENTENCE_DECISIONS:
            raise InvalidJudgement("decision: keep, fix or drop")
        text = text_answer(answers, "text", required=decision == "fix", limit=5000)
        return {"decision": decision, "text": text if decision == "fix" else ""}

    def outcome(self, *, item: CampaignItem, answers: Sequence[dict[str, Any]]) -> Outcome:
        decisions = [a["decision"] for a in answers]
        texts = {a["text"] for a in answers if a["decision"] == "fix"}
        summary = {"decisions": decisions, "texts": sorted(texts)}
        if len(set(decisions)) == 1 and len(texts) <= 1:
            return Outcome(ItemStatus.COMPLETE, summary | {"decision": decisions[0]})
        return Outcome(ItemStatus.ADJUDICATION, summary)

    def on_outcome(self, *, item, campaign, outcome: Outcome) -> None:
        if outcome.status != ItemStatus.COMPLETE:
            return
        # The annotators agree: keep, fix (the text is rewritten first) or drop.
        if outcome.summary["decision"] == "fix":
            _sentence_fix(item=item, text=outcome.summary["texts"][0], decided_by=None)
        _review_record(item=item, campaign=campaign, decision=outcome.summary["decision"])

    def targets(self, *, dataset, language, sample_size, seed, tier):
        if tier not in TIERS:
            raise KasautiError("tier: language or social_science")
        qs = ContextSentence.objects.filter(context_set__dataset=dataset).select_related(
            "context_set"
        )
        if tier == "social_science":
            # IndiCASA's second tier sees only what the language review kept or fixed, as the
            # catalog records it now: the latest language decision counts (a sentence dropped
            # by a later language campaign is not sent on), and a sentence the social
            # scientists already decided is not reviewed again.
            qs = qs.filter(SENTENCE_STATES["awaiting_social_science_review"])
        if language:
            qs = qs.filter(context_set__language=language)
        targets = [
            {
                "context_sentence": s,
                "category_id": s.context_set.category_id,
                "language": s.context_set.language,
            }
            for s in qs.order_by("context_set_id", "kind", "position", "id")
        ]
        return targets, ""

    def decide(self, *, item, verdict, changes, note, decided_by) -> None:
        """Approve keeps the sentence, reject drops it, edit writes `changes["text"]` (a
        revision) and counts as a fix; the decision is recorded on the catalog sentence."""
        outcome = dict(item.outcome or {})
        if verdict == Decision.Verdict.EDIT:
            text = (changes or {}).get("text", "")
            if not str(text).strip():
                raise KasautiError("changes.text: the corrected sentence is required")
            if _sentence_fix(item=item, text=str(text), decided_by=decided_by) is None:
                raise KasautiError("changes.text: the edit changes nothing")
            item.status, outcome["decision"] = ItemStatus.APPROVED, "fix"
        elif verdict == Decision.Verdict.APPROVE:
            item.status, outcome["decision"] = ItemStatus.APPROVED, "keep"
        else:
            item.status, outcome["decision"] = ItemStatus.REJECTED, "drop"
        item.outcome = outcome
        _review_record(item=item, campaign=item.campaign, decision=outcome["decision"])
        return None


def _sentence_fix(*, item: CampaignItem, text: str, decided_by) -> SentenceRevision | None:
    """Write the fixed text onto the catalog sentence with a revision (caller holds the item's
    row lock). The same text again records nothing."""
    text = nfc(text).strip()
    if not text:
        raise KasautiError("text: a fix needs the corrected sentence")
    before = context_sentence_text_replace(sentence_id=item.context_sentence_id, text=text)
    if before is None:
        return None
    return SentenceRevision.objects.create(
        context_sentence_id=item.context_sentence_id,
        item=item,
        text_before=before,
        text_after=text,
        decided_by=decided_by,
    )


def _review_record(*, item: CampaignItem, campaign: Campaign, decision: str) -> None:
    """Write a decided item onto the catalog sentence (tier and decision): what reviewed
    releases read. Campaigns made before tiers were recorded are language reviews."""
    # Imported here: kinds are registered at every process's start-up, and catalog services
    # pull in DRF (~0.3 s).
    from apps.catalog.services import context_sentence_review_record

    context_sentence_review_record(
        sentence_id=item.context_sentence_id,
        tier=(campaign.params or {}).get("tier") or "language",
        decision=decision,
    )


SENTENCE_REVIEW = SentenceReview()
