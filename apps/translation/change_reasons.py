"""Why a translated instance changed between two releases (apps/releases/registry.py, issue
22): the translation app's reasons, registered from TranslationConfig.ready().

They read what the translation app writes on a translated Instance row (`review`: status,
model versions, `revision`, `replaces`, and `corrections`, the notes of who accepted a
correction and when, apps/translation/services/review.py) and what the changelog adds to its
rows: `replaces_chain` (the ids a row replaced, following `review.replaces`) and `replaced_by`
(the row that replaced it). The catalog's reasons (a new template version, a vocabulary change,
a review decision) come first; these explain what is left among translations.
"""

from __future__ import annotations

from typing import Any

from apps.accounts.pseudonyms import person_pseudonym
from apps.releases.registry import ChangeReason, change_reason_register

Row = dict[str, Any] | None
MODEL_KEYS = ("forward_model_version", "backward_model_version", "embedder_version")


def _review(row: Row) -> dict[str, Any]:
    return (row or {}).get("review") or {}


def _notes(review: dict[str, Any]) -> list[dict[str, Any]]:
    return [note for note in review.get("corrections") or [] if isinstance(note, dict)]


# --- correction --------------------------------------------------------------------------------


def _correction_applies(change: str, old: Row, new: Row) -> bool:
    if change == "changed":
        # The newer row is a revision of the older one (one or more accepted corrections).
        return old["id"] in (new.get("replaces_chain") or []) and bool(_notes(_review(new)))
    if change == "added":
        # A corrected revision whose predecessor was not released (flagged: a reviewed release
        # takes a translation once it passed or a human corrected it).
        return bool(_review(new).get("replaces")) and bool(_notes(_review(new)))
    # Removed: replaced by a corrected revision the newer release does not take (another of
    # its strings is still flagged).
    successor = old.get("replaced_by") or {}
    return bool(successor) and bool(_notes(successor.get("review") or {}))


def _correction_detail(old: Row, new: Row) -> str:
    if new is not None:
        review, row_id = _review(new), new["id"]
    else:
        successor = old.get("replaced_by") or {}
        review, row_id = successor.get("review") or {}, successor.get("id")
    notes = _notes(review)
    note = notes[-1] if notes else {}
    # The changelog is published (card, release page): the corrector by pseudonym, never by
    # username (notes written before by_id existed name no one).
    who = person_pseudonym(user_id=note.get("by_id"), role="annotator") or "an annotator"
    when = (note.get("at") or "")[:10] or "unknown date"
    text = f"correction item #{note.get('item')} by {who} on {when}"
    if len(notes) > 1:
        text += f" ({len(notes)} corrections)"
    text += f"; revision {review.get('revision', '?')} (instance {row_id}), {review.get('status')}"
    return text


# --- re-translation ------------------------------------------------------------------------------


def _models(review: dict[str, Any]) -> tuple:
    return tuple(review.get(key) or "" for key in MODEL_KEYS)


def _re_translation_applies(change: str, old: Row, new: Row) -> bool:
    if (
        change != "changed"
        or not old.get("source_instance_id")
        or not new.get("source_instance_id")
    ):
        return False
    # Another row of the same translated instance that is not a revision of it (that is a
    # correction): a translation run wrote it (other model versions, another source row, or
    # the same models run again).
    return old["id"] not in (new.get("replaces_chain") or [])


def _re_translation_detail(old: Row, new: Row) -> str:
    before, after = _models(_review(old)), _models(_review(new))
    if before != after:
        return f"models {before[0] or '?'} → {after[0] or '?'}" + (
            "" if before[1:] == after[1:] else f" (back: {before[1]} → {after[1]})"
        )
    return f"translated again by the same models ({after[0] or '?'})"


# --- a new translation ----------------------------------------------------------------------


def _new_translation_applies(change: str, old: Row, new: Row) -> bool:
    return change == "added" and bool(new.get("source_instance_id"))


def _new_translation_detail(old: Row, new: Row) -> str:
    review = _review(new)
    return (
        f"{new.get('language')} from instance {new.get('source_instance_id')}, "
        f"{review.get('status') or 'unreviewed'} "
        f"(models {review.get('forward_model_version') or '?'})"
    )


CORRECTION = ChangeReason(
    name="correction",
    label="Correction of a flagged translation",
    order=40,
    applies=_correction_applies,
    detail=_correction_detail,
)
RE_TRANSLATION = ChangeReason(
    name="re_translation",
    label="Re-translation (a new translation run)",
    order=50,
    applies=_re_translation_applies,
    detail=_re_translation_detail,
)
NEW_TRANSLATION = ChangeReason(
    name="new_translation",
    label="New translation",
    order=60,
    applies=_new_translation_applies,
    detail=_new_translation_detail,
)
REASONS = (CORRECTION, RE_TRANSLATION, NEW_TRANSLATION)


def register() -> None:
    """Called from TranslationConfig.ready()."""
    for reason in REASONS:
        change_reason_register(reason)
