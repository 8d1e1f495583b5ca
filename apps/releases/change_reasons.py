"""The catalog's reasons why an instance differs between two releases (apps/releases/registry.py,
issue 22), registered by the releases app; the translation app registers its own
(apps/translation/change_reasons.py).

A reason looks at the changelog's rows (apps/releases/changelog.py: an instance's columns, its
template version's number and status now, and what the changelog adds: the versions of the same
template and language among the other release's differing rows, `other_versions`, whether those
hold the same placeholder values, `values_on_other_side`, the template's current version, and
whether the row already existed when the older release was made, `existed_at_previous`, and
was still live when the newer one was, `live_at_newer`). The
first that applies, by order, is the one given; the conditions below are written so that each
case has one plain reading, and a case none explains is counted as "other" by the changelog.
"""

from __future__ import annotations

from typing import Any

from apps.catalog.models import ReviewStatus

from .registry import ChangeReason, change_reason_register

Row = dict[str, Any] | None
# Review facts of a translation that a reviewed release takes (apps/releases/content.py).
RELEASED_TRANSLATION = ("passed", "corrected")


def _version(row: dict[str, Any]) -> str:
    return f"{row.get('template_external_id') or 'template'} v{row.get('template_version_number')}"


def _template_changed_version(row: dict[str, Any]) -> bool:
    """The row's template shows another version among the other release's differing rows."""
    others = row.get("other_versions") or []
    return bool(others) and row.get("template_version_id") not in others


# --- template version -------------------------------------------------------------------------


def _template_version_applies(change: str, old: Row, new: Row) -> bool:
    if change == "changed":
        return old["template_version_id"] != new["template_version_id"]
    row = new if change == "added" else old
    if _template_changed_version(row) and row.get("values_on_other_side"):
        return True  # the same values under another version: its axes (conditions...) changed
    # Removed because a newer version superseded it and none of the newer version's rows is
    # in the newer release (e.g. still in review, so a reviewed release takes none).
    return (
        change == "removed"
        and not row.get("other_versions")
        and row["template_version_id"] is not None
        and row.get("template_current_version_id") not in (None, row["template_version_id"])
        and not row.get("live_at_newer")
    )


def _template_version_detail(old: Row, new: Row) -> str:
    if old is not None and new is not None:
        return f"{_version(old)} → v{new['template_version_number']}"
    row = new if new is not None else old
    if new is None and row.get("template_current_version_number") not in (
        None,
        row.get("template_version_number"),
    ):
        return (
            f"{_version(row)} superseded by v{row['template_current_version_number']}, "
            "which this release does not take"
        )
    return f"{_version(row)} ({'new' if new is not None else 'old'} version)"


# --- vocabulary ------------------------------------------------------------------------------


def _vocabulary_applies(change: str, old: Row, new: Row) -> bool:
    if change == "changed":
        return False
    row = new if change == "added" else old
    return _template_changed_version(row) and not row.get("values_on_other_side")


def _values(row: dict[str, Any]) -> str:
    values = row.get("placeholder_values") or {}
    return ", ".join(f"{key}={value}" for key, value in sorted(values.items()))


def _vocabulary_detail(old: Row, new: Row) -> str:
    if new is not None:
        return f"new values in {_version(new)}: {_values(new)}"
    return f"values no longer in the template ({_version(old)}): {_values(old)}"


# --- review decision -------------------------------------------------------------------------


def _left_by_review(row: dict[str, Any]) -> bool:
    """A released row that is not in the newer release and was not replaced: still live when
    the newer release was made (a reviewed release left it out), or its own version rejected or
    sent back to review."""
    if row.get("live_at_newer"):
        return True
    return row.get("template_version_status") != ReviewStatus.APPROVED and row.get(
        "template_current_version_id"
    ) == row.get("template_version_id")


def _review_decision_applies(change: str, old: Row, new: Row) -> bool:
    if change == "added":
        # The row already existed when the older release was made: a review let it in since
        # (its template version approved, or a release that takes reviewed content only
        # compared with one that took everything).
        return bool(new.get("existed_at_previous"))
    if change == "removed":
        return _left_by_review(old)
    return False


def _review_state(row: dict[str, Any]) -> str:
    status = f"template version {_version(row)} {row.get('template_version_status') or '-'}"
    if row.get("source_instance_id"):
        status += f", translation {(row.get('review') or {}).get('status') or 'unreviewed'}"
    return status


def _review_decision_detail(old: Row, new: Row) -> str:
    if new is not None:
        return f"entered: {_review_state(new)}"
    return f"left: {_review_state(old)}"


# --- a template the older release did not hold ------------------------------------------------


def _new_template_applies(change: str, old: Row, new: Row) -> bool:
    return (
        change == "added"
        and not new.get("source_instance_id")
        and not new.get("other_versions")
        and new.get("template_id") is not None
    )


def _new_template_detail(old: Row, new: Row) -> str:
    return f"{_version(new)}, {new.get('category')}"


TEMPLATE_VERSION = ChangeReason(
    name="template_version",
    label="Template version changed",
    order=10,
    applies=_template_version_applies,
    detail=_template_version_detail,
)
VOCABULARY = ChangeReason(
    name="vocabulary",
    label="Vocabulary change (placeholder values added or removed)",
    order=20,
    applies=_vocabulary_applies,
    detail=_vocabulary_detail,
)
REVIEW_DECISION = ChangeReason(
    name="review_decision",
    label="Review decision",
    order=30,
    applies=_review_decision_applies,
    detail=_review_decision_detail,
)
NEW_TEMPLATE = ChangeReason(
    name="new_template",
    label="Template not in the older release",
    order=35,
    applies=_new_template_applies,
    detail=_new_template_detail,
)
REASONS = (TEMPLATE_VERSION, VOCABULARY, REVIEW_DECISION, NEW_TEMPLATE)


def register() -> None:
    """Called from ReleasesConfig.ready()."""
    for reason in REASONS:
        change_reason_register(reason)
