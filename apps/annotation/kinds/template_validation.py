"""Template validation (BharatBBQ §3.7): annotators answer three yes/no criteria on a template
version; it is approved only when every annotator approves every criterion and no import
finding is open, else a researcher adjudicates (approve, reject, or edit: a new version that
goes back to the same annotators)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Max

from apps.catalog.models import Finding, ReviewStatus, TemplateVersion
from apps.catalog.versions import (
    template_version_approve,
    template_version_reject,
    template_version_supersede,
    template_versions_review_start,
)
from apps.core.errors import KasautiError
from apps.core.text import nfc, nfc_deep

from ..models import Assignment, CampaignItem, CampaignKind, Decision, ItemStatus
from ..rules import YES, YES_NO, InvalidJudgement, Outcome, text_answer
from . import Kind

# The three validation criteria, in the order the screen shows them.
CRITERIA = {
    "a": "The template represents the intended stereotype.",
    "b": "The negative question evokes the stereotype; the non-negative question probes a "
    "neutral or positive association.",
    "c": "The placeholder terms represent the intended social groups.",
}


class TemplateValidation(Kind):
    name = CampaignKind.TEMPLATE_VALIDATION.value
    label = CampaignKind.TEMPLATE_VALIDATION.label
    target = "template_version"
    fields = {key: (YES_NO, False) for key in CRITERIA}
    pooled_fields = tuple(CRITERIA)
    field_labels = {
        **{code: f"({code}) {text}" for code, text in CRITERIA.items()},
        "overall": "Overall (all criteria)",
    }
    form_fields = (*CRITERIA, *(f"{key}_comment" for key in CRITERIA))
    work_template = "annotation/kinds/template_validation.html"
    guidelines_template = "annotation/kinds/template_validation_guidelines.html"
    keys_hint = "<kbd>y</kbd>/<kbd>n</kbd> answer"

    def clean(self, answers: dict[str, Any]) -> dict[str, Any]:
        clean: dict[str, Any] = {}
        for key in CRITERIA:
            value = answers.get(key)
            if value not in YES_NO:
                raise InvalidJudgement(f"{key}: answer yes or no")
            clean[key] = value
            clean[f"{key}_comment"] = text_answer(answers, f"{key}_comment", required=False)
        return clean

    def work_context(self) -> dict[str, Any]:
        return {"criteria": CRITERIA}

    def outcome(self, *, item: CampaignItem, answers: Sequence[dict[str, Any]]) -> Outcome:
        open_findings = Finding.objects.filter(
            template_version_id=item.template_version_id, status=Finding.Status.OPEN
        ).count()
        all_yes = all(a[key] == YES for a in answers for key in CRITERIA)
        summary = {key: [a[key] for a in answers] for key in CRITERIA} | {
            "all_yes": all_yes,
            "open_findings": open_findings,
        }
        # Approved only if every annotator approves every criterion; open import findings need
        # an adjudicator's explicit resolve/accept first.
        if all_yes and not open_findings:
            return Outcome(ItemStatus.APPROVED, summary)
        return Outcome(ItemStatus.ADJUDICATION, summary)

    def on_outcome(self, *, item, campaign, outcome: Outcome) -> None:
        if outcome.status == ItemStatus.APPROVED:
            template_version_approve(version_id=item.template_version_id, requested_by=None)

    def targets(self, *, dataset, language, sample_size, seed, tier):
        from apps.catalog.selectors import template_current_versions  # see _edit

        versions = (
            template_current_versions(dataset=dataset)
            .filter(status__in=[ReviewStatus.DRAFT, ReviewStatus.IN_REVIEW])
            .select_related("template")
            .order_by("template__position", "template_id")
        )
        # Templates are judged in their own language, whatever the campaign's. A draft saved
        # with errors is not sent: it could not be approved.
        targets = [
            {"template_version": v, "category_id": v.template.category_id, "language": v.language}
            for v in versions
            if not v.problems
        ]
        held = sum(1 for v in versions if v.problems)
        return targets, (f"{held} draft(s) with errors are held back" if held else "")

    def on_created(self, *, targets: list[dict[str, Any]]) -> None:
        template_versions_review_start(version_ids=[t["template_version"].pk for t in targets])

    def decide(self, *, item, verdict, changes, note, decided_by) -> TemplateVersion | None:
        if verdict == Decision.Verdict.EDIT:
            return _edit(item=item, changes=changes, note=note, decided_by=decided_by)
        if verdict == Decision.Verdict.APPROVE:
            item.status = ItemStatus.APPROVED
            template_version_approve(version_id=item.template_version_id, requested_by=decided_by)
        else:
            item.status = ItemStatus.REJECTED
            template_version_reject(version_id=item.template_version_id)
        return None

    def judgement_columns(self) -> list[tuple[str, str]]:
        return [(f"({code}) {question}", "criterion") for code, question in CRITERIA.items()]

    def judgement_cells(self, answers: dict[str, Any]) -> list[dict[str, str]]:
        return [
            {"value": answers.get(code, ""), "comment": answers.get(f"{code}_comment", "")}
            for code in CRITERIA
        ]


def _edit(*, item: CampaignItem, changes: dict[str, Any], note: str, decided_by) -> TemplateVersion:
    """The adjudicator's edit: a new version of the template, in review, given as a new item of
    the campaign to the same annotators; the old version is rejected and its item superseded."""
    # Catalog services and selectors are imported where used: kinds are registered at every
    # process's start-up, and those modules pull in DRF (~0.3 s).
    from apps.catalog.services import template_edit

    if not changes:
        raise KasautiError("changes: an edit needs at least one changed field")
    old = item.template_version
    new_version = template_edit(
        template=old.template, changes=nfc_deep(changes), edited_by=decided_by
    )
    if new_version.pk == old.pk:
        raise KasautiError("changes: the edit changes nothing")
    # The adjudicator's note goes into the new version's notes (the version history on the
    # template page shows it), after the notes it inherited.
    notes = new_version.notes
    if note.strip():
        line = f"Adjudication ({decided_by.username}): {nfc(note.strip())}"
        notes = f"{notes}\n{line}" if notes else line
    template_version_supersede(version_id=old.pk, new_version_id=new_version.pk, new_notes=notes)
    item.status = ItemStatus.SUPERSEDED
    _item_requeue(item=item, version=new_version)
    return new_version


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


TEMPLATE_VALIDATION = TemplateValidation()
