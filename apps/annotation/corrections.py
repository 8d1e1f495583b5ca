"""Translation correction (BharatBBQ §3.8): annotators confirm or edit flagged translations.

The queue and its history are translation's models (CorrectionItem / CorrectionRevision); this
module decides who may act on an item and turns a confirm or an edit into one revision through
translation's own service, so the machine output and every edit stay with who and when."""

from __future__ import annotations

from django.db.models import QuerySet

from apps.accounts.roles import is_researcher
from apps.catalog.models import Instance
from apps.core.errors import KasautiError
from apps.core.text import nfc
from apps.translation.models import CorrectionItem, CorrectionRevision
from apps.translation.services import correction_item_resolve
from apps.translation.services.review import instance_revisions

from .rules import PermissionRefused
from .selectors import annotator_languages

CONFIRM, EDIT = "confirm", "edit"


def correction_queue_for(*, user, language: str = "", status: str = "open") -> QuerySet:
    qs = CorrectionItem.objects.select_related("translated_string", "instance").order_by("id")
    if status:
        qs = qs.filter(status=status)
    if language:
        qs = qs.filter(language=language)
    if not is_researcher(user):
        qs = qs.filter(language__in=annotator_languages(user=user))
    return qs


def machine_text(item: CorrectionItem) -> str:
    if item.translated_string_id:
        return item.translated_string.translation
    return item.instance.context if item.instance_id else ""


def correction_apply(
    *, item: CorrectionItem, action: str, author, text: str = "", note: str = ""
) -> tuple[CorrectionItem, bool]:
    """Confirm the machine translation or replace it with `text`. Returns (item, changed):
    the same decision again (a double-click, a retry) adds no revision."""
    if not is_researcher(author) and item.language not in annotator_languages(user=author):
        raise PermissionRefused(f"you do not cover language {item.language!r}")
    if action == CONFIRM:
        text = machine_text(item)
        note = note or "confirmed the machine translation"
    elif action == EDIT:
        text = nfc(text).strip()
        if not text:
            raise KasautiError("text: the corrected translation is required")
    else:
        raise KasautiError("action: confirm or edit")
    if item.status == CorrectionItem.Status.RESOLVED and item.corrected_text == text:
        return item, False
    return correction_item_resolve(item=item, text=text, author=author, note=nfc(note)), True


def correction_history(*, item: CorrectionItem) -> list[dict]:
    """The machine output first, then every revision with who and when."""
    history = [
        {
            "text": machine_text(item),
            "by": "machine",
            "at": item.created_at,
            "note": item.reason,
            "status": "open",
        }
    ]
    for revision in CorrectionRevision.objects.filter(item=item).select_related("author"):
        history.append(
            {
                "text": revision.text,
                "previous_text": revision.previous_text,
                "by": revision.author.username if revision.author else "",
                "at": revision.created_at,
                "note": revision.note,
                "status": revision.status,
            }
        )
    return history


def corrected_instances(*, item: CorrectionItem) -> list[dict]:
    """The translated instances this correction rewrote, each with its revisions (the machine
    assembly first, then every corrected row with who and when)."""
    live = Instance.objects.filter(
        retired_at__isnull=True, review__corrections__contains=[{"item": item.pk}]
    ).order_by("id")
    return [
        {"instance": row.pk, "revisions": instance_revisions(instance=row)} for row in live[:50]
    ]
