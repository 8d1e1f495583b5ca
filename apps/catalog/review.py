"""What the catalog's review facts decide: which tuples their votes make stereotypical, and
which context sentences passed IndiCASA's two-tier review.

The facts are catalog fields (`StereotypeTuple.votes`, `ContextSentence.review_tier` /
`review_decision`), written by imports and by apps.annotation; releases read them through
these rules, so that the annotation screens and a reviewed release never disagree about what
"stereotypical" or "passed" means. The writes the annotation app makes to these facts (and to
a template version's findings) are the services at the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db.models import Q

from apps.core.errors import KasautiError

from .models import ContextSentence, Finding, StereotypeTuple


class TupleVerdict:
    NOT_VOTED = "not_voted"
    STEREOTYPICAL = "stereotypical"
    NOT_STEREOTYPICAL = "voted_not_stereotypical"


def tuple_verdict(votes: Sequence[int] | None) -> str:
    """IndiBias §4.1: three annotators each vote 1 (stereotypical) or 0, and a tuple with at
    least 2 votes is stereotypical. For any other number of voters Kasauti applies the same
    rule as a strict majority: more than half of the votes are 1 (2 of 2, 2 of 3, 3 of 4,
    3 of 5; 1 of 1). A tie is not a majority. No votes: the tuple was never voted on."""
    if not votes:
        return TupleVerdict.NOT_VOTED
    yes = sum(1 for vote in votes if vote == 1)
    return TupleVerdict.STEREOTYPICAL if 2 * yes > len(votes) else TupleVerdict.NOT_STEREOTYPICAL


Tier = ContextSentence.ReviewTier
Decision = ContextSentence.ReviewDecision

# IndiCASA reviews in two tiers (language experts, then social scientists); a sentence is
# final once the last tier has kept it or fixed it.
SENTENCE_TIERS = (Tier.LANGUAGE, Tier.SOCIAL_SCIENCE)
SENTENCE_FINAL_TIER = Tier.SOCIAL_SCIENCE
SENTENCE_PASSED = (Decision.KEEP, Decision.FIX)


def sentence_passed(prefix: str = "") -> Q:
    """Filter for sentences the last tier kept or fixed; `prefix` ("sentences__") reaches
    them from a related model."""
    return Q(
        **{
            f"{prefix}review_tier": SENTENCE_FINAL_TIER,
            f"{prefix}review_decision__in": SENTENCE_PASSED,
        }
    )


# Filters on ContextSentence, one per review state; together they cover every sentence once.
SENTENCE_STATES = {
    "passed": sentence_passed(),
    "not_reviewed": Q(review_tier=Tier.NONE),
    "awaiting_social_science_review": Q(review_tier=Tier.LANGUAGE)
    & ~Q(review_decision=Decision.DROP),
    "dropped_in_language_review": Q(review_tier=Tier.LANGUAGE, review_decision=Decision.DROP),
    "dropped_in_social_science_review": Q(
        review_tier=Tier.SOCIAL_SCIENCE, review_decision=Decision.DROP
    ),
}


# Which votes decide a tuple (one definition, shown on the dataset and campaign pages).
TUPLE_VOTES_RULE = (
    "The votes of the latest tuple-vote campaign decide whether a tuple is stereotypical "
    "(and what releases take); until a campaign has voted on it, the votes it was imported "
    "with decide. Both are kept: a campaign never overwrites the imported votes, and a "
    "re-import never overwrites a campaign's."
)


# --- review writes (called by apps.annotation) -------------------------------------------------


def findings_settled_check(*, statuses: Mapping[int, str]) -> None:
    """Each finding id maps to resolved or accepted (what an adjudicator may settle it as)."""
    for finding_id, status in statuses.items():
        if status not in (Finding.Status.RESOLVED, Finding.Status.ACCEPTED):
            raise KasautiError(f"findings.{finding_id}: resolved or accepted")


def template_version_findings_settle(
    *, template_version_id: int | None, statuses: Mapping[int, str]
) -> None:
    """An adjudicator's decision on a template version's import findings: each finding id maps
    to resolved or accepted, and every finding still open must be among them. Refuses (and
    changes nothing) for a finding of another version or one left open."""
    findings_settled_check(statuses=statuses)
    own = Finding.objects.filter(template_version_id=template_version_id)
    open_ids = (
        set(own.filter(status=Finding.Status.OPEN).values_list("id", flat=True))
        if template_version_id
        else set()
    )
    unknown = set(statuses) - set(own.values_list("id", flat=True))
    if unknown:
        raise KasautiError(f"findings: {sorted(unknown)} do not belong to this template")
    missing = open_ids - set(statuses)
    if missing:
        raise KasautiError(
            f"findings: {sorted(missing)} still open: resolve or accept each of them"
        )
    for finding_id, status in statuses.items():
        Finding.objects.filter(pk=finding_id).update(status=status)


def stereotype_tuple_votes_record(*, tuple_id: int, votes: list[int]) -> tuple[list[int], Any]:
    """A tuple-vote campaign's votes decide the tuple from now on (IndiBias's "Score": one vote
    per annotator). The imported votes stay in `imported_votes`. Returns the votes the tuple
    had before and its imported votes, for the campaign's record. Call inside a transaction."""
    tup = StereotypeTuple.objects.select_for_update().get(pk=tuple_id)
    before = (tup.votes, tup.imported_votes)
    tup.votes = votes
    tup.votes_source = StereotypeTuple.VotesSource.CAMPAIGN
    tup.save(update_fields=["votes", "votes_source"])
    return before


def context_sentence_text_replace(*, sentence_id: int, text: str) -> str | None:
    """Rewrite a context sentence's text (a review's fix); returns the text it had, or None when
    the text is the same (nothing written). Call inside a transaction: the row stays locked
    until the caller has recorded the revision."""
    sentence = ContextSentence.objects.select_for_update().get(pk=sentence_id)
    if text == sentence.text:
        return None
    before = sentence.text
    sentence.text = text
    sentence.save(update_fields=["text"])
    return before
