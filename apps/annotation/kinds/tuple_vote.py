"""Stereotype tuple vote (IndiBias §4.1): each annotator votes whether an (identity, attribute)
tuple is stereotypical. The votes themselves become the tuple's votes in the catalog (its
"Score"), and decide it from then on; the imported votes are kept beside them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from apps.catalog.models import StereotypeTuple
from apps.catalog.review import TupleVerdict, stereotype_tuple_votes_record, tuple_verdict

from ..models import CampaignItem, CampaignKind, ItemStatus
from ..rules import YES, YES_NO, InvalidJudgement, Outcome, text_answer
from . import Kind


class TupleVote(Kind):
    name = CampaignKind.TUPLE_VOTE.value
    label = CampaignKind.TUPLE_VOTE.label
    target = "stereotype_tuple"
    default_annotators = 3
    fields = {"stereotypical": (YES_NO, False)}
    field_labels = {"stereotypical": "Stereotypical (vote)"}
    form_fields = ("stereotypical", "comment")
    work_template = "annotation/kinds/tuple_vote.html"
    guidelines_template = "annotation/kinds/tuple_vote_guidelines.html"
    keys_hint = "<kbd>y</kbd>/<kbd>n</kbd> answer"
    shows_tuple_votes = True

    def clean(self, answers: dict[str, Any]) -> dict[str, Any]:
        if answers.get("stereotypical") not in YES_NO:
            raise InvalidJudgement("stereotypical: answer yes or no")
        return {
            "stereotypical": answers["stereotypical"],
            "comment": text_answer(answers, "comment", required=False),
        }

    def outcome(self, *, item: CampaignItem, answers: Sequence[dict[str, Any]]) -> Outcome:
        votes = [1 if a["stereotypical"] == YES else 0 for a in answers]
        # IndiBias §4.1 (>= 2 of 3 votes), as a strict majority for other numbers of
        # annotators: the catalog's rule, which reviewed releases apply too.
        stereotypical = tuple_verdict(votes) == TupleVerdict.STEREOTYPICAL
        return Outcome(
            ItemStatus.COMPLETE,
            {"votes": votes, "score": sum(votes), "stereotypical": stereotypical},
        )

    def on_outcome(self, *, item, campaign, outcome: Outcome) -> None:
        # The campaign's votes decide from now on; the imported ones stay in `imported_votes`,
        # and the item keeps the votes the tuple had before (imported or an earlier campaign's).
        votes_before, imported_votes = stereotype_tuple_votes_record(
            tuple_id=item.stereotype_tuple_id, votes=outcome.summary["votes"]
        )
        item.outcome = {
            **item.outcome,
            "votes_before": votes_before,
            "imported_votes": imported_votes,
        }
        item.save(update_fields=["outcome"])

    def targets(self, *, dataset, language, sample_size, seed, tier):
        qs = StereotypeTuple.objects.filter(dataset=dataset).order_by("id")
        if language:
            qs = qs.filter(language=language)
        targets = [
            {"stereotype_tuple": t, "category_id": t.category_id, "language": t.language}
            for t in qs
        ]
        return targets, ""


TUPLE_VOTE = TupleVote()
