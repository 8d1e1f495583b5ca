"""A template's version history with what changed from one version to the next: a readable
word-level diff (difflib) of each text field, shown on the template page and the adjudication
page (issue 18, 2.7); and the services that move a version through review (draft, in review,
approved, rejected), which the annotation app calls."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import Any

from apps.core.errors import KasautiError
from apps.core.models import Job

from .jobs import INSTANTIATE
from .models import Instance, ReviewStatus, Template, TemplateVersion

# Text fields compared between versions, with the labels the pages use.
DIFF_FIELDS = {
    "ambiguous_context": "Ambiguous context",
    "disambiguating_context": "Disambiguating context",
    "question_negative": "Negative question",
    "question_non_negative": "Non-negative question",
    "answer_negative": "Negative answer",
    "answer_non_negative": "Non-negative answer",
    "placeholders": "Placeholders",
    "notes": "Notes",
}

_TOKENS = re.compile(r"\S+\s*|\s+")


def words_diff(before: str, after: str) -> list[tuple[str, str]]:
    """(op, text) runs with op "same", "del" or "ins"; each word keeps the space after it, so
    joining the "same" and "del" runs gives `before` back, "same" and "ins" gives `after`."""
    a, b = _TOKENS.findall(before), _TOKENS.findall(after)
    parts: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            parts.append(("same", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            parts.append(("del", "".join(a[i1:i2])))
        if j2 > j1:
            parts.append(("ins", "".join(b[j1:j2])))
    return parts


def _text(version: TemplateVersion, name: str) -> str:
    value = getattr(version, name)
    if name == "placeholders":
        return "; ".join(f"{key} = {', '.join(values)}" for key, values in sorted(value.items()))
    return str(value or "")


def version_changes(
    version: TemplateVersion, previous: TemplateVersion | None
) -> list[dict[str, Any]]:
    """The fields that differ from the previous version, each with its word-level diff."""
    if previous is None:
        return []
    changes = []
    for name, label in DIFF_FIELDS.items():
        before, after = _text(previous, name), _text(version, name)
        if before != after:
            changes.append({"field": label, "parts": words_diff(before, after)})
    return changes


def template_version_history(*, template: Template) -> list[dict[str, Any]]:
    """Every version, newest first, with its changes from the one before it."""
    versions = list(template.versions.select_related("created_by").order_by("number"))
    rows = [
        {"version": version, "changes": version_changes(version, previous)}
        for previous, version in zip([None, *versions[:-1]], versions, strict=True)
    ]
    return rows[::-1]


# --- review status (written by apps.annotation's template validation) --------------------------


def template_versions_review_start(*, version_ids: Sequence[int]) -> int:
    """Send draft versions to review (a validation campaign took them); versions already in
    review, approved or rejected keep their status. Returns how many changed."""
    return TemplateVersion.objects.filter(pk__in=version_ids, status=ReviewStatus.DRAFT).update(
        status=ReviewStatus.IN_REVIEW
    )


def template_version_approve(*, version_id: int, requested_by: Any = None) -> None:
    """Mark a template version approved. A version with no live instances (the new version an
    adjudicator's edit made) is instantiated by a background job of the catalog's instantiate
    kind, queued after commit, so that the next release takes it (issue 18, 2.1). An
    instantiation job of the dataset still waiting in the queue will pick it up anyway."""
    # Imported here: the annotation app's campaign kinds import this module at start-up, and
    # catalog services pull in the selectors and DRF (~0.3 s of every process's start).
    from .services import dataset_instantiate_async

    version = TemplateVersion.objects.select_related("template__dataset").get(pk=version_id)
    if version.problems:
        # A draft saved with errors stays a draft: it would produce no (or wrong) instances.
        raise KasautiError(
            f"{version.template.external_id} v{version.number} cannot be approved: "
            + "; ".join(f"{p['field']}: {p['message']}" for p in version.problems)
        )
    TemplateVersion.objects.filter(pk=version_id).update(status=ReviewStatus.APPROVED)
    if Instance.objects.filter(
        template_version_id=version_id, retired_at__isnull=True, source_instance=None
    ).exists():
        return
    dataset = version.template.dataset
    if Job.objects.filter(
        kind=INSTANTIATE, status=Job.Status.QUEUED, params__dataset_id=dataset.pk
    ).exists():
        return
    # The caller's write is kept whatever the broker says: a broker that is down fails this job
    # (the release form lists the version as not instantiated, with the job), not the caller.
    dataset_instantiate_async(dataset=dataset, requested_by=requested_by, raise_unqueued=False)


def template_version_reject(*, version_id: int) -> None:
    TemplateVersion.objects.filter(pk=version_id).update(status=ReviewStatus.REJECTED)


def template_version_supersede(*, version_id: int, new_version_id: int, new_notes: str) -> None:
    """An edit replaces a version under review: the old one is rejected, the new one (made by
    template_edit) goes to review with `new_notes` (its inherited notes and the reason)."""
    TemplateVersion.objects.filter(pk=new_version_id).update(
        status=ReviewStatus.IN_REVIEW, notes=new_notes
    )
    template_version_reject(version_id=version_id)
