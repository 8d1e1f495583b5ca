"""Reads of what annotation tells a release (issue 22): the "Annotation" part of its dataset
card (campaigns, annotators counted, agreement per criterion, BharatBBQ Table 3) and the
judgements in one instance's provenance.

Agreement and Table 3 are the workbench's own figures (selectors.campaign_agreement,
reports.table3), reused as they are; only what names a person is left out or pseudonymised
(apps.translation.selectors_release.person_pseudonym, the one rule for every release output).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db.models import Count, Q

from apps.accounts.pseudonyms import person_pseudonym
from apps.catalog.models import Instance
from apps.translation.selectors_release import instance_strings

from . import reports
from .kinds import campaign_kind_get, campaign_kinds
from .models import Assignment, Campaign, Decision
from .selectors import campaign_agreement

# What a campaign kind judges (Kind.target): template versions (validation) and translated
# strings (adequacy/fluency scoring and calibration) are what an instance's chain can show.
TEMPLATE_TARGET = "template_version"
STRING_TARGET = "translated_string"


def _agreement_cells(agreement: dict[str, Any]) -> dict[str, Any]:
    """campaign_agreement's per-field figures without its per-pair block (keyed by names)."""
    cells = {field: dict(cell) for field, cell in agreement["fields"].items()}
    if "overall" in agreement:
        cells["overall"] = dict(agreement["overall"])
    return cells


def release_annotation_facts(*, release) -> dict[str, Any] | None:
    """The campaigns over the release's dataset (by kind and status, each with its items,
    annotators and agreement per judged field), the number of people who judged (never their
    names), and Table 3 of its translation-scoring campaigns. None when the dataset has no
    campaign. A few aggregate queries per campaign; campaigns are samples, not the dataset."""
    campaigns = list(
        Campaign.objects.filter(dataset_id=release.dataset_id)
        .annotate(n_items=Count("items", distinct=True))
        .order_by("kind", "id")
    )
    if not campaigns:
        return None
    done = Assignment.objects.filter(campaign__in=campaigns, done_at__isnull=False)
    per_campaign = {
        row["campaign_id"]: row
        for row in done.values("campaign_id")
        .annotate(annotators=Count("annotator_id", distinct=True), judgements=Count("id"))
        .order_by()
    }
    assigned = {
        row["campaign_id"]: row["n"]
        for row in Assignment.objects.filter(campaign__in=campaigns)
        .values("campaign_id")
        .annotate(n=Count("annotator_id", distinct=True))
        .order_by()
    }
    entries = []
    for campaign in campaigns:
        kind = campaign_kind_get(campaign.kind)
        judged = per_campaign.get(campaign.pk, {})
        entries.append(
            {
                "id": campaign.pk,
                "name": campaign.name,
                "kind": campaign.kind,
                "kind_label": kind.label,
                "status": campaign.status,
                "language": campaign.language,
                "items": campaign.n_items,
                "annotators_assigned": assigned.get(campaign.pk, 0),
                "annotators_judged": judged.get("annotators", 0),
                "judgements": judged.get("judgements", 0),
                "agreement": _agreement_cells(campaign_agreement(campaign=campaign))
                if kind.fields and judged
                else {},
            }
        )
    by_kind_status = Counter((c.kind, c.status) for c in campaigns)
    return {
        "campaigns": entries,
        "by_kind_status": [
            {"kind": kind, "status": status, "campaigns": n}
            for (kind, status), n in sorted(by_kind_status.items())
        ],
        "annotators": done.values("annotator_id").distinct().count(),
        "table3": [_table3_block(block) for block in reports.table3(dataset_id=release.dataset_id)],
        "table3_annotator_rule": reports.ANNOTATOR_RULE,
    }


def _table3_block(block: reports.Table3Language) -> dict[str, Any]:
    """A Table 3 block as JSON, without who held the slots (names)."""
    return {
        "language": block.language,
        "campaigns": block.campaigns,
        "rows": [
            {
                "name": row.name,
                "n_items": row.n_items,
                "means": row.means,
                "adequacy_kappa": row.adequacy_kappa.as_dict(),
                "fluency_kappa": row.fluency_kappa.as_dict(),
                "scored": row.scored,
            }
            for row in block.rows
        ],
    }


# --- one instance's chain ---------------------------------------------------------------------


def _kinds_judging(target: str) -> list[str]:
    return [kind.name for kind in campaign_kinds() if kind.target == target]


JUDGEMENT_FIELDS = (
    "item_id",
    "item__status",
    "campaign_id",
    "campaign__name",
    "campaign__kind",
    "slot",
    "annotator_id",
    "current__answers",
    "current__created_at",
)


def _judgements(rows) -> list[dict[str, Any]]:
    """Judgements grouped by item: each annotator's judgement in force, pseudonymised, with
    only the judged fields of its kind (comments and reasons are the annotator's own words and
    stay in the workbench)."""
    items: dict[int, dict[str, Any]] = {}
    for row in rows:
        kind = campaign_kind_get(row["campaign__kind"])
        answers = row["current__answers"] or {}
        entry = items.setdefault(
            row["item_id"],
            {
                "item": row["item_id"],
                "status": row["item__status"],
                "campaign": {
                    "id": row["campaign_id"],
                    "name": row["campaign__name"],
                    "kind": row["campaign__kind"],
                },
                "fields": [
                    {"field": field, "label": kind.field_label(field)} for field in kind.fields
                ],
                "judgements": [],
            },
        )
        if "item__translated_string_id" in row:
            entry["string_id"] = row["item__translated_string_id"]
        when = row["current__created_at"]
        entry["judgements"].append(
            {
                "annotator": person_pseudonym(user_id=row["annotator_id"]),
                "slot": row["slot"] + 1,
                # In the order of `fields`: the page lays them out as columns.
                "answers": [{"field": field, "value": answers.get(field)} for field in kind.fields],
                "at": when.isoformat() if when else None,
            }
        )
    return list(items.values())


def instance_annotation(*, instance: Instance) -> dict[str, Any] | None:
    """The validation judgements on the instance's template version and its adjudication, and
    for a translated instance the adequacy/fluency judgements on the strings it is made of.
    None when nothing was judged. Indexed lookups by template version and by string."""
    version_id = instance.template_version_id
    validation = _judgements(
        Assignment.objects.filter(
            item__template_version_id=version_id,
            campaign__kind__in=_kinds_judging(TEMPLATE_TARGET),
            done_at__isnull=False,
        )
        .values(*JUDGEMENT_FIELDS)
        .order_by("item_id", "slot")
    )
    decisions = [
        {
            "item": row["item_id"],
            "on_version": row["item__template_version_id"],
            "verdict": row["verdict"],
            "note": row["note"],
            "by": person_pseudonym(user_id=row["decided_by_id"], role="adjudicator"),
            "at": row["created_at"].isoformat(),
            "new_version": row["new_version_id"],
        }
        for row in Decision.objects.filter(
            Q(item__template_version_id=version_id) | Q(new_version_id=version_id)
        )
        .values(
            "item_id",
            "item__template_version_id",
            "verdict",
            "note",
            "decided_by_id",
            "created_at",
            "new_version_id",
        )
        .order_by("created_at", "id")
    ]
    scoring: list[dict[str, Any]] = []
    if instance.source_instance_id:
        strings = {
            s["string_id"]: s
            for s in instance_strings(instance=instance)
            if s["string_id"] is not None
        }
        if strings:
            scoring = _judgements(
                Assignment.objects.filter(
                    item__translated_string_id__in=list(strings),
                    campaign__kind__in=_kinds_judging(STRING_TARGET),
                    done_at__isnull=False,
                )
                .values(*JUDGEMENT_FIELDS, "item__translated_string_id")
                .order_by("item_id", "slot")
            )
            for entry in scoring:
                string = strings[entry.pop("string_id")]
                entry["string"] = {
                    "id": string["string_id"],
                    "role": string["role"],
                    "source_text": string["source_text"],
                    "translation": string["translation"],
                }
    if not (validation or decisions or scoring):
        return None
    return {
        "template_version": version_id,
        "language": instance.language,
        "validation": validation,
        "adjudication": decisions,
        "translation_scoring": scoring,
    }
