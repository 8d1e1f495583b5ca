"""What the catalog's review facts decide: which tuples their votes make stereotypical, and
which context sentences passed IndiCASA's two-tier review.

The facts are catalog fields (`StereotypeTuple.votes`, `ContextSentence.review_tier` /
`review_decision`), written by imports and by apps.annotation; releases read them through
these rules, so that the annotation screens and a reviewed release never disagree about what
"stereotypical" or "passed" means.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Q

from .models import ContextSentence


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
