"""The human correction queue: every correction is a revision; nothing is overwritten
silently."""

from __future__ import annotations

from django.db import transaction

from ..models import CorrectionItem, CorrectionRevision
from .review import translated_instances_revise


def correction_item_resolve(
    *, item: CorrectionItem, text: str, author=None, note: str = ""
) -> CorrectionItem:
    """Record a human correction. The previous text is kept in a revision, never overwritten
    silently."""
    with transaction.atomic():
        item = CorrectionItem.objects.select_for_update().get(pk=item.pk)
        CorrectionRevision.objects.create(
            item=item,
            previous_text=item.corrected_text,
            text=text,
            status=CorrectionItem.Status.RESOLVED,
            note=note,
            author=author,
        )
        item.corrected_text = text
        item.status = CorrectionItem.Status.RESOLVED
        item.save(update_fields=["corrected_text", "status", "updated_at"])
        # The translated instances that use the text get a new revision (never edited in
        # place); the old rows are retired and kept.
        translated_instances_revise(item=item, author=author)
    return item
