"""Review facts on catalog context sentences, recorded for apps.annotation's sentence review."""

from __future__ import annotations

from django.utils import timezone

from apps.core.errors import KasautiError

from .. import review
from ..models import ContextSentence


def context_sentence_review_record(*, sentence_id: int, tier: str, decision: str) -> None:
    """Record a sentence-review decision on the catalog sentence: which tier decided and
    whether it kept, fixed (the text is already rewritten, with its revision) or dropped the
    sentence. The last decision recorded is the sentence's review state (apps.catalog.review);
    the caller (apps.annotation) holds the review item's lock."""
    if tier not in review.SENTENCE_TIERS:
        raise KasautiError(f"tier: {tier!r} is not one of {', '.join(review.SENTENCE_TIERS)}")
    if decision not in (*review.SENTENCE_PASSED, ContextSentence.ReviewDecision.DROP):
        raise KasautiError(f"decision: {decision!r} is not one of keep, fix, drop")
    updated = ContextSentence.objects.filter(pk=sentence_id).update(
        review_tier=tier, review_decision=decision, reviewed_at=timezone.now()
    )
    if not updated:
        raise KasautiError(f"context sentence {sentence_id} does not exist")
