"""Coding answers into concepts: attach an answer to one or more catalog concepts (existing,
or new ones made through catalog services), remove a link, mark an answer invalid (not a
stereotype, spam, or a duplicate of the same respondent's own answer), reopen it.

Rules every action keeps:
* Every decision writes a CodingEvent (the history); nothing is overwritten silently.
* Concurrent coders: the answer row is locked, and a coder who passes `seen_event` (the id of
  the last event they saw for the answer, None for "no event yet") is refused with a
  ConflictError when someone else decided on the answer meanwhile.
* Mention counts are derived, never typed: after every change the touched concepts are
  recounted (services/counts.survey_counts_refresh), inside the same transaction.
* The first time a concept gets coded answers from a survey, the survey itself is filed once
  as its evidence (an EvidenceReference of kind "survey", pending validation).
* Bad input changes nothing: a clear KasautiError naming what and where.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.catalog.models import ConceptSource, EvidenceReference, StereotypeConcept
from apps.catalog.services import category_get_or_create, concept_create, evidence_add
from apps.core.errors import ConflictError, KasautiError
from apps.core.text import nfc

from ..models import Answer, AnswerConcept, CodingEvent, Survey
from .counts import survey_counts_refresh

# "Not checked": the caller does not take part in conflict detection (bulk actions, scripts).
UNCHECKED: Any = object()

STATEMENT_MAX = 2000
ATTRIBUTE_MAX = 200  # StereotypeConcept.attribute
SUBCATEGORY_MAX = 100  # StereotypeConcept.subcategory
CATEGORY_MAX = 100  # Category.name
GROUP_MAX = 200


@dataclass(frozen=True)
class NewConcept:
    """A concept to create while coding (its dataset is the survey's, its source "survey",
    its validation pending)."""

    category: str
    statement: str
    target_groups: list[str] = field(default_factory=list)
    attribute: str = ""
    polarity: str = StereotypeConcept.Polarity.NEGATIVE
    subcategory: str = ""


def _clean_new_concept(new: NewConcept) -> dict[str, Any]:
    problems = []
    category = nfc(new.category or "").strip()
    statement = nfc(new.statement or "").strip()
    groups = [nfc(g).strip() for g in new.target_groups or [] if g and nfc(g).strip()]
    groups = list(dict.fromkeys(groups))
    attribute = nfc(new.attribute or "").strip()
    subcategory = nfc(new.subcategory or "").strip()
    if not category:
        problems.append("new concept: the category is empty")
    elif len(category) > CATEGORY_MAX:
        problems.append(f"new concept: the category is longer than {CATEGORY_MAX} characters")
    if not statement:
        problems.append("new concept: the statement is empty")
    elif len(statement) > STATEMENT_MAX:
        problems.append(f"new concept: the statement is longer than {STATEMENT_MAX} characters")
    if not groups:
        problems.append("new concept: name at least one target group")
    for group in groups:
        if len(group) > GROUP_MAX:
            problems.append(f"new concept: target group {group[:40]!r}… is over {GROUP_MAX} chars")
    if len(attribute) > ATTRIBUTE_MAX:
        problems.append(f"new concept: the attribute is longer than {ATTRIBUTE_MAX} characters")
    if len(subcategory) > SUBCATEGORY_MAX:
        problems.append(f"new concept: the subcategory is longer than {SUBCATEGORY_MAX} characters")
    if new.polarity not in StereotypeConcept.Polarity.values:
        problems.append(
            f"new concept: polarity {new.polarity!r} is not one of "
            f"{', '.join(StereotypeConcept.Polarity.values)}"
        )
    if problems:
        raise KasautiError("; ".join(problems))
    return {
        "category": category,
        "statement": statement,
        "target_groups": groups,
        "attribute": attribute,
        "subcategory": subcategory,
        "polarity": new.polarity,
    }


def _concept_create(*, survey: Survey, new: NewConcept) -> StereotypeConcept:
    fields = _clean_new_concept(new)
    category = category_get_or_create(name=fields.pop("category"))
    statement = fields.pop("statement")
    return concept_create(
        category=category,
        statement=statement,
        evidence=[],
        dataset=survey.dataset,
        source=ConceptSource.SURVEY,
        validation_status=StereotypeConcept.Validation.PENDING,
        **fields,
    )


def _concepts_for(*, survey: Survey, concept_ids: Iterable[int]) -> list[StereotypeConcept]:
    """The concepts an answer of `survey` may be coded into: its dataset's, or shared ones
    (no dataset). Unknown ids or another dataset's concepts are refused, naming them."""
    ids = list(dict.fromkeys(int(pk) for pk in concept_ids))
    concepts = {c.pk: c for c in StereotypeConcept.objects.filter(pk__in=ids)}
    missing = [pk for pk in ids if pk not in concepts]
    if missing:
        raise KasautiError(f"no concept with id {', '.join(map(str, missing))}")
    foreign = [c for c in concepts.values() if c.dataset_id not in (None, survey.dataset_id)]
    if foreign:
        raise KasautiError(
            "concept "
            + ", ".join(f"#{c.pk}" for c in foreign)
            + f" belongs to another dataset, not {survey.dataset.name!r} (the survey's)"
        )
    return [concepts[pk] for pk in ids]


def _survey_evidence_note(survey: Survey) -> str:
    return f"Survey {survey.slug}: respondents' answers coded into this concept."


def _survey_evidence_ensure(*, survey: Survey, concepts: Sequence[StereotypeConcept], by) -> None:
    """File the survey as evidence of each concept, once per (concept, survey). The concept
    rows are locked so that two coders coding into the same concept add it once."""
    if not concepts:
        return
    note = _survey_evidence_note(survey)
    ids = sorted({c.pk for c in concepts})
    locked = list(StereotypeConcept.objects.select_for_update().filter(pk__in=ids).order_by("pk"))
    have = set(
        EvidenceReference.objects.filter(
            concept_id__in=ids, kind=EvidenceReference.Kind.SURVEY, note=note
        ).values_list("concept_id", flat=True)
    )
    for concept in locked:
        if concept.pk not in have:
            evidence_add(
                concept=concept, kind=EvidenceReference.Kind.SURVEY, note=note, added_by=by
            )


def _lock(*, answer: Answer | int, survey: Survey | None = None) -> Answer:
    pk = answer.pk if isinstance(answer, Answer) else int(answer)
    qs = Answer.objects.select_for_update().select_related("survey__dataset")
    if survey is not None:
        qs = qs.filter(survey=survey)
    locked = qs.filter(pk=pk).first()
    if locked is None:
        where = f" in survey {survey.slug}" if survey is not None else ""
        raise KasautiError(f"no answer #{pk}{where}")
    return locked


def _last_event_id(answer: Answer) -> int | None:
    return (
        CodingEvent.objects.filter(answer=answer).order_by("-id").values_list("id", flat=True)
    ).first()


def _check_seen(answer: Answer, seen_event: Any) -> None:
    if seen_event is UNCHECKED:
        return
    last = _last_event_id(answer)
    seen = None if seen_event in (None, "") else int(seen_event)
    if last != seen:
        event = CodingEvent.objects.select_related("by").get(pk=last) if last else None
        who = (
            f"{event.get_action_display().lower()} by {event.by or 'someone'} at "
            f"{timezone.localtime(event.at):%H:%M:%S}"
            if event
            else "its history was emptied"
        )
        raise ConflictError(
            f"answer #{answer.pk} changed since you loaded it ({who}); nothing was saved: "
            "reload it and decide again"
        )


def _event(answer: Answer, action: str, *, by, concept_ids=(), reason="", duplicate_of=None):
    return CodingEvent.objects.create(
        answer=answer,
        action=action,
        concept_ids=sorted(concept_ids),
        reason=reason,
        duplicate_of=duplicate_of,
        by=by,
    )


def _set_status(answer: Answer, status: str, *, by, reason: str = "") -> None:
    answer.status = status
    answer.invalid_reason = reason
    answer.coded_by = by
    answer.coded_at = timezone.now()
    answer.save(update_fields=["status", "invalid_reason", "coded_by", "coded_at"])


def _refuse_invalid(answer: Answer) -> None:
    if answer.status == Answer.Status.INVALID:
        raise ConflictError(
            f"answer #{answer.pk} is marked invalid ({answer.get_invalid_reason_display()}); "
            "reopen it before coding it"
        )


def _code_locked(
    *, answer: Answer, concepts: Sequence[StereotypeConcept], by
) -> tuple[list[int], CodingEvent | None]:
    """Link a locked, non-invalid answer to `concepts`; the ids newly linked and the event."""
    _refuse_invalid(answer)
    have = set(AnswerConcept.objects.filter(answer=answer).values_list("concept_id", flat=True))
    new = [c for c in concepts if c.pk not in have]
    if not new:
        return [], None
    AnswerConcept.objects.bulk_create(
        AnswerConcept(answer=answer, concept=c, coded_by=by) for c in new
    )
    _set_status(answer, Answer.Status.CODED, by=by)
    event = _event(answer, CodingEvent.Action.CODE, by=by, concept_ids=[c.pk for c in new])
    return [c.pk for c in new], event


def answer_code(
    *,
    answer: Answer | int,
    by,
    concept_ids: Iterable[int] = (),
    new_concepts: Sequence[NewConcept] = (),
    survey: Survey | None = None,
    seen_event: Any = UNCHECKED,
) -> CodingEvent | None:
    """Code an answer into existing concepts (`concept_ids`) and/or new ones (`new_concepts`,
    created in the survey's dataset). Links the answer already has are kept as they are.
    Returns the event written, or None when every concept was already linked."""
    concept_ids = list(concept_ids)
    if not concept_ids and not new_concepts:
        raise KasautiError("choose a concept, or describe a new one, to code the answer into")
    with transaction.atomic():
        answer = _lock(answer=answer, survey=survey)
        _check_seen(answer, seen_event)
        survey = answer.survey
        concepts = _concepts_for(survey=survey, concept_ids=concept_ids)
        _refuse_invalid(answer)  # before a new concept is created
        for new in new_concepts:
            concepts.append(_concept_create(survey=survey, new=new))
        added, event = _code_locked(answer=answer, concepts=concepts, by=by)
        if added:
            _survey_evidence_ensure(
                survey=survey, concepts=[c for c in concepts if c.pk in added], by=by
            )
            survey_counts_refresh(concept_ids=added)
    return event


def answer_uncode(
    *,
    answer: Answer | int,
    concept_id: int,
    by,
    survey: Survey | None = None,
    seen_event: Any = UNCHECKED,
) -> CodingEvent:
    """Remove the link between an answer and one concept. An answer left with no link goes back
    to the queue (pending); a concept left with no coded answer back to its reported count."""
    with transaction.atomic():
        answer = _lock(answer=answer, survey=survey)
        _check_seen(answer, seen_event)
        deleted, _ = AnswerConcept.objects.filter(answer=answer, concept_id=concept_id).delete()
        if not deleted:
            raise KasautiError(f"answer #{answer.pk} is not coded into concept #{concept_id}")
        if not AnswerConcept.objects.filter(answer=answer).exists():
            _set_status(answer, Answer.Status.PENDING, by=by)
        event = _event(answer, CodingEvent.Action.UNCODE, by=by, concept_ids=[concept_id])
        survey_counts_refresh(concept_ids=[concept_id])
    return event


def _invalid_locked(
    *, answer: Answer, reason: str, by, duplicate_of: Answer | None = None
) -> tuple[list[int], CodingEvent]:
    """Mark a locked answer invalid: its concept links go (listed in the event, so the history
    keeps them), and it stops counting."""
    removed = list(AnswerConcept.objects.filter(answer=answer).values_list("concept_id", flat=True))
    AnswerConcept.objects.filter(answer=answer).delete()
    _set_status(answer, Answer.Status.INVALID, by=by, reason=reason)
    event = _event(
        answer,
        CodingEvent.Action.INVALID,
        by=by,
        concept_ids=removed,
        reason=reason,
        duplicate_of=duplicate_of,
    )
    return removed, event


def _check_reason(reason: str) -> None:
    if reason not in Answer.InvalidReason.values:
        raise KasautiError(
            f"invalid reason {reason!r} is not one of {', '.join(Answer.InvalidReason.values)}"
        )


def answer_mark_invalid(
    *,
    answer: Answer | int,
    reason: str,
    by,
    duplicate_of: Answer | int | None = None,
    survey: Survey | None = None,
    seen_event: Any = UNCHECKED,
) -> CodingEvent:
    """Mark an answer invalid: not a stereotype, spam, or a duplicate of another answer by the
    same respondent (`duplicate_of`, required for that reason and checked)."""
    _check_reason(reason)
    with transaction.atomic():
        answer = _lock(answer=answer, survey=survey)
        _check_seen(answer, seen_event)
        original = None
        if reason == Answer.InvalidReason.DUPLICATE:
            if duplicate_of in (None, ""):
                raise KasautiError(
                    f"answer #{answer.pk}: say which of the respondent's answers it duplicates"
                )
            pk = duplicate_of.pk if isinstance(duplicate_of, Answer) else int(duplicate_of)
            original = Answer.objects.filter(pk=pk, survey_id=answer.survey_id).first()
            if original is None:
                raise KasautiError(f"answer #{answer.pk}: no answer #{pk} in this survey")
            if original.pk == answer.pk:
                raise KasautiError(f"answer #{answer.pk} cannot be a duplicate of itself")
            if original.respondent_id != answer.respondent_id:
                raise KasautiError(
                    f"answer #{answer.pk} is by another respondent than answer #{pk}: only a "
                    "respondent's repeat of their own answer is a duplicate (several "
                    "respondents naming a stereotype is what the mention count counts)"
                )
        elif duplicate_of not in (None, ""):
            raise KasautiError("duplicate_of is only for the reason 'duplicate'")
        if answer.status == Answer.Status.INVALID and answer.invalid_reason == reason:
            raise ConflictError(f"answer #{answer.pk} is already marked invalid ({reason})")
        removed, event = _invalid_locked(answer=answer, reason=reason, by=by, duplicate_of=original)
        survey_counts_refresh(concept_ids=removed)
    return event


def answer_reopen(
    *,
    answer: Answer | int,
    by,
    survey: Survey | None = None,
    seen_event: Any = UNCHECKED,
) -> CodingEvent:
    """Put an answer back in the queue: an invalid answer loses its reason, a coded one its
    concept links (the event lists them)."""
    with transaction.atomic():
        answer = _lock(answer=answer, survey=survey)
        _check_seen(answer, seen_event)
        if answer.status == Answer.Status.PENDING:
            raise ConflictError(f"answer #{answer.pk} is already in the queue")
        removed = list(
            AnswerConcept.objects.filter(answer=answer).values_list("concept_id", flat=True)
        )
        AnswerConcept.objects.filter(answer=answer).delete()
        _set_status(answer, Answer.Status.PENDING, by=by)
        event = _event(answer, CodingEvent.Action.REOPEN, by=by, concept_ids=removed)
        survey_counts_refresh(concept_ids=removed)
    return event


def _lock_many(*, survey: Survey, answer_ids: Iterable[int]) -> list[Answer]:
    ids = sorted({int(pk) for pk in answer_ids})
    if not ids:
        raise KasautiError("no answer selected")
    answers = list(
        Answer.objects.select_for_update().filter(survey=survey, pk__in=ids).order_by("pk")
    )
    found = {a.pk for a in answers}
    missing = [pk for pk in ids if pk not in found]
    if missing:
        raise KasautiError(
            f"no answer {', '.join(f'#{pk}' for pk in missing)} in survey {survey.slug}"
        )
    return answers


@dataclass(frozen=True)
class BulkOutcome:
    changed: int  # answers that got an event
    unchanged: int  # answers that already were as asked
    concept_ids: list[int]  # concepts recounted


def answers_bulk_code(
    *,
    survey: Survey,
    answer_ids: Iterable[int],
    by,
    concept_id: int | None = None,
    new_concept: NewConcept | None = None,
) -> BulkOutcome:
    """Code many answers into one concept (existing, or new), in one transaction: an invalid
    answer among them refuses the whole batch, naming it."""
    if (concept_id is None) == (new_concept is None):
        raise KasautiError("choose one concept, or describe one new concept, for the answers")
    with transaction.atomic():
        answers = _lock_many(survey=survey, answer_ids=answer_ids)
        invalid = [a.pk for a in answers if a.status == Answer.Status.INVALID]
        if invalid:
            raise ConflictError(
                f"answer {', '.join(f'#{pk}' for pk in invalid)} marked invalid; reopen before "
                "coding (nothing was coded)"
            )
        if new_concept is not None:
            concept = _concept_create(survey=survey, new=new_concept)
        else:
            (concept,) = _concepts_for(survey=survey, concept_ids=[concept_id])
        changed = 0
        for answer in answers:
            answer.survey = survey
            added, _ = _code_locked(answer=answer, concepts=[concept], by=by)
            changed += bool(added)
        if changed:
            _survey_evidence_ensure(survey=survey, concepts=[concept], by=by)
            survey_counts_refresh(concept_ids=[concept.pk])
    return BulkOutcome(changed=changed, unchanged=len(answers) - changed, concept_ids=[concept.pk])


def answers_bulk_mark_invalid(
    *, survey: Survey, answer_ids: Iterable[int], reason: str, by
) -> BulkOutcome:
    """Mark many answers invalid for one reason, in one transaction. "duplicate" is refused in
    bulk: each duplicate names its own original (answer_mark_invalid)."""
    _check_reason(reason)
    if reason == Answer.InvalidReason.DUPLICATE:
        raise KasautiError(
            "mark duplicates one at a time: each needs the respondent's answer it repeats"
        )
    with transaction.atomic():
        answers = _lock_many(survey=survey, answer_ids=answer_ids)
        touched: set[int] = set()
        changed = 0
        for answer in answers:
            if answer.status == Answer.Status.INVALID and answer.invalid_reason == reason:
                continue
            removed, _ = _invalid_locked(answer=answer, reason=reason, by=by)
            touched.update(removed)
            changed += 1
        survey_counts_refresh(concept_ids=touched)
    return BulkOutcome(
        changed=changed, unchanged=len(answers) - changed, concept_ids=sorted(touched)
    )
