"""Adjudication: a researcher's decision on an item the annotators did not settle (approve,
reject, or edit: a new template version back to review, or a fixed sentence), and the import
findings settled with it."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Max

from apps.catalog.models import TemplateVersion
from apps.catalog.review import context_sentence_text_replace, template_version_findings_settle
from apps.catalog.services import context_sentence_review_record, template_edit
from apps.catalog.versions import (
    template_version_approve,
    template_version_reject,
    template_version_supersede,
)
from apps.core.errors import ConflictError, KasautiError
from apps.core.text import nfc, nfc_deep

from ..models import Assignment, Campaign, CampaignItem, Decision, ItemStatus, SentenceRevision


def item_decide(
    *,
    item: CampaignItem,
    verdict: str,
    decided_by,
    note: str = "",
    changes: dict[str, Any] | None = None,
    findings: dict[int, str] | None = None,
) -> Decision:
    """A researcher's decision on an item in the adjudication queue: approve, reject, or edit
    (a new template version that goes back to review with the same annotators). Every open
    import finding on the template must be resolved or accepted in the same decision."""
    if verdict not in Decision.Verdict.values:
        raise KasautiError("verdict: approve, reject or edit")
    findings = {int(k): v for k, v in (findings or {}).items()}
    with transaction.atomic():
        item = CampaignItem.objects.select_for_update().select_related("campaign").get(pk=item.pk)
        if item.status != ItemStatus.ADJUDICATION:
            raise ConflictError(
                f"item {item.pk} is {item.get_status_display().lower()}, not in the "
                "adjudication queue"
            )
        template_version_findings_settle(
            template_version_id=item.template_version_id, statuses=findings
        )
        new_version = None
        if item.context_sentence_id:
            _sentence_decide(item=item, verdict=verdict, changes=changes, decided_by=decided_by)
            _sentence_review_record(
                item=item, campaign=item.campaign, decision=item.outcome["decision"]
            )
        elif verdict == Decision.Verdict.EDIT:
            if item.template_version_id is None:
                raise KasautiError("verdict: only templates and sentences can be edited here")
            if not changes:
                raise KasautiError("changes: an edit needs at least one changed field")
            old = item.template_version
            new_version = template_edit(
                template=old.template, changes=nfc_deep(changes), edited_by=decided_by
            )
            if new_version.pk == old.pk:
                raise KasautiError("changes: the edit changes nothing")
            # The adjudicator's note goes into the new version's notes (the version history
            # on the template page shows it), after the notes it inherited.
            notes = new_version.notes
            if note.strip():
                line = f"Adjudication ({decided_by.username}): {nfc(note.strip())}"
                notes = f"{notes}\n{line}" if notes else line
            template_version_supersede(
                version_id=old.pk, new_version_id=new_version.pk, new_notes=notes
            )
            item.status = ItemStatus.SUPERSEDED
            _item_requeue(item=item, version=new_version)
        elif verdict == Decision.Verdict.APPROVE:
            item.status = ItemStatus.APPROVED
            if item.template_version_id:
                template_version_approve(
                    version_id=item.template_version_id, requested_by=decided_by
                )
        else:
            item.status = ItemStatus.REJECTED
            if item.template_version_id:
                template_version_reject(version_id=item.template_version_id)
        item.save(update_fields=["status", "outcome"])
        return Decision.objects.create(
            item=item,
            verdict=verdict,
            note=nfc(note),
            findings={str(k): v for k, v in findings.items()},
            new_version=new_version,
            decided_by=decided_by,
        )


def _sentence_fix(*, item: CampaignItem, text: str, decided_by) -> SentenceRevision | None:
    """Write the fixed text onto the catalog sentence with a revision (caller holds the item's
    row lock). The same text again records nothing."""
    text = nfc(text).strip()
    if not text:
        raise KasautiError("text: a fix needs the corrected sentence")
    before = context_sentence_text_replace(sentence_id=item.context_sentence_id, text=text)
    if before is None:
        return None
    return SentenceRevision.objects.create(
        context_sentence_id=item.context_sentence_id,
        item=item,
        text_before=before,
        text_after=text,
        decided_by=decided_by,
    )


def _sentence_review_record(*, item: CampaignItem, campaign: Campaign, decision: str) -> None:
    """Write a decided sentence-review item onto the catalog sentence (tier and decision):
    what reviewed releases read. Campaigns made before tiers were recorded are language
    reviews."""
    context_sentence_review_record(
        sentence_id=item.context_sentence_id,
        tier=(campaign.params or {}).get("tier") or "language",
        decision=decision,
    )


def _sentence_decide(*, item: CampaignItem, verdict: str, changes, decided_by) -> None:
    """Adjudication of a sentence-review disagreement: approve keeps the sentence, reject drops
    it, edit writes `changes["text"]` (a revision) and counts as a fix."""
    outcome = dict(item.outcome or {})
    if verdict == Decision.Verdict.EDIT:
        text = (changes or {}).get("text", "")
        if not str(text).strip():
            raise KasautiError("changes.text: the corrected sentence is required")
        if _sentence_fix(item=item, text=str(text), decided_by=decided_by) is None:
            raise KasautiError("changes.text: the edit changes nothing")
        item.status, outcome["decision"] = ItemStatus.APPROVED, "fix"
    elif verdict == Decision.Verdict.APPROVE:
        item.status, outcome["decision"] = ItemStatus.APPROVED, "keep"
    else:
        item.status, outcome["decision"] = ItemStatus.REJECTED, "drop"
    item.outcome = outcome


def _item_requeue(*, item: CampaignItem, version: TemplateVersion) -> CampaignItem:
    """The edited version goes back to the same annotators, as a new item of the campaign."""
    position = (
        CampaignItem.objects.filter(campaign=item.campaign).aggregate(m=Max("position"))["m"] + 1
    )
    new_item = CampaignItem.objects.create(
        campaign=item.campaign,
        position=position,
        category_id=item.category_id,
        template_version=version,
    )
    Assignment.objects.bulk_create(
        Assignment(
            campaign_id=item.campaign_id,
            item=new_item,
            annotator_id=row.annotator_id,
            slot=row.slot,
            position=position,
        )
        for row in Assignment.objects.filter(item=item).order_by("slot")
    )
    return new_item
