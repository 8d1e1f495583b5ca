"""Reviewing import findings: one at a time or every finding of a kind, each change kept in
the finding's history."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from apps.core.errors import KasautiError
from apps.core.text import nfc_deep

from ..models import Dataset, Finding, FindingReview


def finding_status_set(
    *, finding: Finding, status: str, note: str = "", reviewed_by: Any = None
) -> Finding:
    """Mark a finding reviewed: accepted (the published text stays as it is) or resolved
    (fixed in a later version); or open it again. Each change is kept in the finding's history
    (FindingReview: from, to, who, when, note); setting the status it already has changes
    nothing and records nothing."""
    _finding_status_check(status)
    with transaction.atomic():
        locked = Finding.objects.select_for_update().get(pk=finding.pk)
        if locked.status != status:
            FindingReview.objects.create(
                finding=locked,
                from_status=locked.status,
                to_status=status,
                note=nfc_deep(note.strip()),
                reviewed_by=reviewed_by,
            )
            locked.status = status
            locked.save(update_fields=["status"])
    finding.status = status
    return finding


def finding_kind_status_set(
    *,
    dataset: Dataset,
    kind: str,
    status: str,
    note: str = "",
    reviewed_by: Any = None,
    from_status: str = Finding.Status.OPEN,
) -> int:
    """Review every finding of one kind in a dataset at once: those now `from_status` (open,
    by default: a bulk accept does not undo a finding someone resolved one by one) move to
    `status`, each with its own history row carrying the note. Returns how many changed."""
    _finding_status_check(status)
    _finding_status_check(from_status)
    if status == from_status:
        return 0
    note = nfc_deep(note.strip())
    with transaction.atomic():
        ids = list(
            Finding.objects.select_for_update()
            .filter(dataset=dataset, kind=kind, status=from_status)
            .order_by("id")
            .values_list("id", flat=True)
        )
        FindingReview.objects.bulk_create(
            FindingReview(
                finding_id=pk,
                from_status=from_status,
                to_status=status,
                note=note,
                reviewed_by=reviewed_by,
            )
            for pk in ids
        )
        Finding.objects.filter(pk__in=ids).update(status=status)
    return len(ids)


def _finding_status_check(status: str) -> None:
    if status not in Finding.Status.values:
        raise KasautiError(
            f"unknown finding status {status!r}; use one of {', '.join(Finding.Status.values)}"
        )
