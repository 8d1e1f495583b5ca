"""Survey reads for pages. Functions are prefixed by the page area they serve (`coding_`...)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Count, F, Prefetch, Q, QuerySet
from django.db.models.functions import Coalesce

from apps.catalog.inclusion import Verdict, concept_verdict
from apps.catalog.models import Category, EvidenceReference, StereotypeConcept
from apps.core.models import Job

from .models import Answer, AnswerConcept, AnswerSuggestion, CodingEvent, Survey
from .questionnaire import Questionnaire

CODING_PAGE_SIZE = 15
CODING_SIDE_CONCEPTS = 40


@dataclass
class CodingFilters:
    status: str = Answer.Status.PENDING
    category: str = ""
    language: str = ""
    q: str = ""
    # Keyset cursor: the (submitted_at, id) of the last answer of the previous page.
    after: tuple[datetime, int] | None = None

    def query(self) -> dict[str, str]:
        """The filters as GET parameters (without the cursor)."""
        return {
            key: value
            for key, value in (
                ("status", self.status),
                ("category", self.category),
                ("language", self.language),
                ("q", self.q),
            )
            if value
        }


def coding_cursor_encode(answer: Answer) -> str:
    return f"{answer.submitted_at.timestamp():.6f}_{answer.pk}"


def coding_cursor_decode(value: str) -> tuple[datetime, int] | None:
    """The cursor of a `after=` parameter, or None when it is absent or malformed (the first
    page is shown rather than an error: a cursor is a link the page made)."""
    from datetime import UTC

    try:
        stamp, pk = value.split("_", 1)
        return datetime.fromtimestamp(float(stamp), tz=UTC), int(pk)
    except (ValueError, OverflowError, OSError):
        return None


def coding_answers(*, survey: Survey, filters: CodingFilters) -> QuerySet[Answer]:
    qs = Answer.objects.filter(survey=survey)
    if filters.status in Answer.Status.values:
        qs = qs.filter(status=filters.status)
    if filters.category:
        qs = qs.filter(category_key=filters.category)
    if filters.language:
        qs = qs.filter(language=filters.language)
    if filters.q:
        qs = qs.filter(
            Q(text__icontains=filters.q)
            | Q(attribute__icontains=filters.q)
            | Q(group_text__icontains=filters.q)
            | Q(experience__icontains=filters.q)
        )
    return qs


@dataclass
class CodingRow:
    answer: Answer
    category_label: str
    group_labels: list[str]
    last_event_id: int | None
    events: list[CodingEvent]
    codings: list  # AnswerConcept with concept
    suggestions: list[AnswerSuggestion]
    same_respondent: list[int]  # the respondent's other answers (for "duplicate of")
    default_category: str  # the catalog category the answer's category maps to


@dataclass
class CodingPage:
    rows: list[CodingRow]
    next_cursor: str | None
    counts: dict[str, int]
    matching: int
    extra: dict[str, Any] = field(default_factory=dict)


def coding_page(
    *, survey: Survey, filters: CodingFilters, size: int = CODING_PAGE_SIZE
) -> CodingPage:
    """One page of the coding queue: answers in submission order (keyset on submitted_at,
    id), each with its labels in its own version and language, its history, its links, its
    suggestions and the respondent's other answers."""
    counts = dict.fromkeys(Answer.Status.values, 0)
    for row in (
        Answer.objects.filter(survey=survey).values("status").annotate(n=Count("id")).order_by()
    ):
        counts[row["status"]] = row["n"]
    base = coding_answers(survey=survey, filters=filters)
    if filters.category or filters.language or filters.q:
        matching = base.count()
    else:  # the status counts already say it: spare a count over the survey's answers
        matching = counts.get(filters.status, sum(counts.values()))
    qs = base
    if filters.after is not None:
        at, pk = filters.after
        qs = qs.filter(Q(submitted_at__gt=at) | Q(submitted_at=at, pk__gt=pk))
    answers = list(
        qs.order_by("submitted_at", "id").prefetch_related(
            Prefetch("events", queryset=CodingEvent.objects.select_related("by").order_by("id")),
            Prefetch(
                "codings",
                queryset=AnswerConcept.objects.select_related("concept").order_by("id"),
            ),
            Prefetch(
                "suggestions",
                queryset=AnswerSuggestion.objects.select_related("concept").order_by("rank"),
            ),
        )[: size + 1]
    )
    more = len(answers) > size
    answers = answers[:size]
    versions = {
        v.pk: v.content
        for v in survey.versions.filter(pk__in={a.version_id for a in answers}).only(
            "id", "content"
        )
    }
    siblings: dict[int, list[int]] = {}
    for respondent_id, pk in (
        Answer.objects.filter(respondent_id__in={a.respondent_id for a in answers})
        .order_by("id")
        .values_list("respondent_id", "id")
    ):
        siblings.setdefault(respondent_id, []).append(pk)
    rows = []
    for answer in answers:
        questionnaire = Questionnaire(versions[answer.version_id], answer.language)
        category = questionnaire.category(answer.category_key) or {}
        events = list(answer.events.all())
        rows.append(
            CodingRow(
                answer=answer,
                category_label=questionnaire.category_label(answer.category_key)
                if answer.category_key
                else "",
                group_labels=[
                    questionnaire.group_label(answer.category_key, key)
                    for key in answer.group_keys or []
                ],
                last_event_id=events[-1].pk if events else None,
                events=events,
                codings=list(answer.codings.all()),
                suggestions=list(answer.suggestions.all()),
                same_respondent=[
                    pk for pk in siblings.get(answer.respondent_id, []) if pk != answer.pk
                ],
                default_category=category.get("category") or "",
            )
        )
    return CodingPage(
        rows=rows,
        next_cursor=coding_cursor_encode(answers[-1]) if more and answers else None,
        counts=counts,
        matching=matching,
    )


@dataclass
class CodingConcept:
    concept: StereotypeConcept
    verdict: Verdict


def coding_concepts(
    *, survey: Survey, q: str = "", limit: int = CODING_SIDE_CONCEPTS
) -> tuple[list[CodingConcept], int]:
    """The side list: concepts of the survey's dataset, most mentioned first (derived count
    where there is one, else the reported one), each with its live inclusion verdict; and how
    many match in all."""
    qs = StereotypeConcept.objects.filter(dataset=survey.dataset_id)
    if q:
        qs = qs.filter(
            Q(statement__icontains=q) | Q(attribute__icontains=q) | Q(subcategory__icontains=q)
        )
    total = qs.count()
    concepts = list(
        qs.select_related("dataset", "category")
        .annotate(_count=Coalesce(F("survey_mentions"), F("mentions")))
        .prefetch_related(
            Prefetch(
                "evidence",
                queryset=EvidenceReference.objects.only("id", "concept_id", "validation_status"),
            )
        )
        .order_by("-_count", "statement", "id")[:limit]
    )
    return [
        CodingConcept(concept=c, verdict=concept_verdict(c, evidence=list(c.evidence.all())))
        for c in concepts
    ], total


def coding_concept_choices(*, survey: Survey) -> list[tuple[int, str]]:
    """Every concept an answer may be coded into (the chooser's list): id and statement."""
    return list(
        StereotypeConcept.objects.filter(Q(dataset=survey.dataset_id) | Q(dataset__isnull=True))
        .order_by("statement", "id")
        .values_list("id", "statement")
    )


def coding_category_names() -> list[str]:
    return list(Category.objects.order_by("name").values_list("name", flat=True))


def coding_suggestions_job(*, survey: Survey) -> Job | None:
    from .jobs import SUGGESTIONS

    return Job.objects.filter(kind=SUGGESTIONS, params__survey_id=survey.pk).order_by("-id").first()
