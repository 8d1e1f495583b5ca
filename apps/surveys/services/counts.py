"""Derived mention counts: per concept, the distinct respondents whose answers are coded into
it, and how many of those respondents were affected by it (EsBBQ §3.2.1). Never typed: every
change to a coding (or an answer erased by its deletion code) calls survey_counts_refresh for
the concepts it touched, and the catalog stores the result (concept_survey_counts_set)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Count, Q

from apps.catalog.services import concept_survey_counts_set

from ..models import Answer, AnswerConcept


def survey_counts_refresh(*, concept_ids: Iterable[int]) -> int:
    """Recount `concept_ids` from every coded answer (of any survey; invalid answers are not
    counted). Concepts left with no coded answer go back to their reported count."""
    ids = sorted(set(concept_ids))
    if not ids:
        return 0
    rows = (
        AnswerConcept.objects.filter(concept_id__in=ids)
        .exclude(answer__status=Answer.Status.INVALID)
        .values("concept_id")
        .annotate(
            mentions=Count("answer__respondent", distinct=True),
            affected=Count("answer__respondent", distinct=True, filter=Q(answer__affected=True)),
        )
    )
    counts = {row["concept_id"]: (row["mentions"], row["affected"]) for row in rows}
    return concept_survey_counts_set(counts=counts, clear=[pk for pk in ids if pk not in counts])
