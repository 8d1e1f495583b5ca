"""Judgements: an annotator opens, submits, edits and undoes; once every assigned annotator has
submitted, the campaign's kind decides what the item's judgements add up to and what that
changes in the catalog."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps.core.errors import ConflictError, KasautiError
from apps.core.text import nfc_deep

from ..kinds import campaign_kind_get
from ..models import Assignment, Campaign, CampaignItem, ItemStatus, Judgement
from ..rules import PermissionRefused


def assignment_open(*, assignment: Assignment) -> None:
    """Remember when the annotator first saw the item (for seconds per item)."""
    if assignment.opened_at is None:
        Assignment.objects.filter(pk=assignment.pk, opened_at__isnull=True).update(
            opened_at=timezone.now()
        )


def _check_key(key: str) -> str:
    key = str(key or "").strip()
    if not key or len(key) > 64:
        raise KasautiError("idempotency_key: required, at most 64 characters")
    return key


def _own_assignment_lock(*, assignment_id: int, annotator) -> Assignment:
    """The annotator's assignment, row-locked (with its campaign); refused with the same answer
    whether it exists or not: annotators see only their own items."""
    assignment = (
        Assignment.objects.select_for_update()
        .select_related("campaign")
        .filter(pk=assignment_id)
        .first()
    )
    if assignment is None or assignment.annotator_id != annotator.pk:
        raise PermissionRefused("this item is not assigned to you")
    return assignment


def judgement_submit(
    *,
    assignment_id: int,
    annotator,
    answers: Any,
    idempotency_key: str,
    seconds: float | None = None,
) -> tuple[Judgement, bool]:
    """Store one judgement exactly once. Returns (judgement, created): the same key again
    (double-click, retry after a network error) returns the stored row and changes nothing.
    A later submission on the same assignment is an edit: a new row pointing to the previous
    one, which stays in the history."""
    key = _check_key(idempotency_key)
    with transaction.atomic():
        assignment = _own_assignment_lock(assignment_id=assignment_id, annotator=annotator)
        # Checked after the row lock: a concurrent request with the same key has committed.
        existing = Judgement.objects.filter(idempotency_key=key).first()
        if existing is not None:
            if existing.assignment_id != assignment.pk:
                raise ConflictError("idempotency_key: already used for another judgement")
            return existing, False
        campaign = assignment.campaign
        if campaign.status != Campaign.Status.OPEN:
            raise ConflictError("this campaign is closed")
        item = CampaignItem.objects.select_for_update().get(pk=assignment.item_id)
        if item.status not in (ItemStatus.PENDING, ItemStatus.ADJUDICATION):
            raise ConflictError(
                f"this item is already {item.get_status_display().lower()}; it cannot change"
            )
        clean = campaign_kind_get(campaign.kind).answers_clean(nfc_deep(answers))
        current = assignment.current
        is_edit = current is not None and current.action != Judgement.Action.UNDO
        if seconds is None and assignment.opened_at is not None and not is_edit:
            seconds = (timezone.now() - assignment.opened_at).total_seconds()
        try:
            with transaction.atomic():
                judgement = Judgement.objects.create(
                    assignment=assignment,
                    annotator=annotator,
                    idempotency_key=key,
                    action=Judgement.Action.EDIT if is_edit else Judgement.Action.SUBMIT,
                    answers=clean,
                    previous=current,
                    seconds=seconds,
                )
        except IntegrityError:
            raise ConflictError("idempotency_key: already used") from None
        assignment.current = judgement
        assignment.done_at = timezone.now()
        assignment.save(update_fields=["current", "done_at"])
        _item_evaluate(item=item, campaign=campaign)
    return judgement, True


def judgement_undo(*, assignment_id: int, annotator, idempotency_key: str) -> Judgement:
    """Take back the current submission: an UNDO row is appended (the submission stays in the
    history) and the item is pending again for this annotator."""
    key = _check_key(idempotency_key)
    with transaction.atomic():
        assignment = _own_assignment_lock(assignment_id=assignment_id, annotator=annotator)
        existing = Judgement.objects.filter(idempotency_key=key).first()
        if existing is not None:
            return existing
        current = assignment.current
        if current is None or current.action == Judgement.Action.UNDO:
            raise ConflictError("nothing to undo on this item")
        item = CampaignItem.objects.select_for_update().get(pk=assignment.item_id)
        if item.status not in (ItemStatus.PENDING, ItemStatus.ADJUDICATION):
            raise ConflictError(
                f"this item is already {item.get_status_display().lower()}; it cannot change"
            )
        judgement = Judgement.objects.create(
            assignment=assignment,
            annotator=annotator,
            idempotency_key=key,
            action=Judgement.Action.UNDO,
            answers={},
            previous=current,
        )
        assignment.current = judgement
        assignment.done_at = None
        assignment.save(update_fields=["current", "done_at"])
        if item.status != ItemStatus.PENDING:
            item.status = ItemStatus.PENDING
            item.outcome = {}
            item.save(update_fields=["status", "outcome"])
    return judgement


def _item_evaluate(*, item: CampaignItem, campaign: Campaign) -> None:
    """Once every assigned annotator has submitted, apply the kind's rule (caller holds the
    item's row lock)."""
    rows = list(
        Assignment.objects.filter(item=item)
        .select_related("current")
        .order_by("slot")
        .only("done_at", "current__answers", "current__action", "slot")
    )
    if any(row.done_at is None for row in rows):
        return
    kind = campaign_kind_get(campaign.kind)
    outcome = kind.outcome(item=item, answers=[row.current.answers for row in rows])
    item.status = outcome.status
    item.outcome = outcome.summary
    item.save(update_fields=["status", "outcome"])
    kind.on_outcome(item=item, campaign=campaign, outcome=outcome)
