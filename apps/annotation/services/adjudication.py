"""Adjudication: a researcher's decision on an item the annotators did not settle (approve,
reject, or edit: a new template version back to review, or a fixed sentence), and the import
findings settled with it."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from apps.catalog.review import findings_settled_check, template_version_findings_settle
from apps.core.errors import ConflictError, KasautiError
from apps.core.text import nfc

from ..kinds import campaign_kind_get
from ..models import CampaignItem, Decision, ItemStatus


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
    findings_settled_check(statuses=findings)  # a malformed decision is refused before the lock
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
        new_version = campaign_kind_get(item.campaign.kind).decide(
            item=item, verdict=verdict, changes=changes or {}, note=note, decided_by=decided_by
        )
        item.save(update_fields=["status", "outcome"])
        return Decision.objects.create(
            item=item,
            verdict=verdict,
            note=nfc(note),
            findings={str(k): v for k, v in findings.items()},
            new_version=new_version,
            decided_by=decided_by,
        )
