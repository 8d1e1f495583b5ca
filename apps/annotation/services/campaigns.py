"""Campaigns: what is annotated (sampled by kind), by whom (every item gets its number of
distinct annotators who read its language, loads balanced), and closing them."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from apps.accounts.roles import is_annotator
from apps.catalog.models import Dataset
from apps.core.errors import KasautiError
from apps.core.text import nfc

from ..kinds import campaign_kind_get
from ..models import Assignment, Campaign, CampaignItem
from ..sampling import balanced_assignment
from ..selectors import annotator_languages

DEFAULT_SAMPLE = 100


def campaign_create(
    *,
    dataset: Dataset,
    kind: str,
    annotators: Sequence,
    name: str = "",
    language: str = "",
    annotators_per_item: int | None = None,
    sample_size: int = DEFAULT_SAMPLE,
    seed: int = 0,
    tier: str = "language",
    created_by=None,
    only: Sequence[int] | None = None,
) -> Campaign:
    """Create a campaign, its items and its assignment in one transaction: every item gets
    exactly `annotators_per_item` distinct annotators who cover its language, and loads are
    balanced. Refuses (and writes nothing) when that is impossible.

    `only`: ids of the kind's targets to keep (the template versions a researcher sends from
    the template studio); the kind's other targets are left out, and a chosen id the kind would
    not take (a version no longer current, approved, or with errors) is named in the refusal."""
    spec = campaign_kind_get(kind)
    per_item = annotators_per_item or spec.default_annotators
    if per_item < 1:
        raise KasautiError("annotators_per_item: at least 1")
    annotators = list(dict.fromkeys(annotators))
    for user in annotators:
        if not user.is_active or not is_annotator(user):
            raise KasautiError(f"annotators: {user.get_username()} is not an active annotator")
    if len(annotators) < per_item:
        raise KasautiError(
            f"annotators: {per_item} per item need at least {per_item} annotators, "
            f"{len(annotators)} chosen"
        )
    language = language.strip()
    targets, why = spec.targets(
        dataset=dataset, language=language, sample_size=sample_size, seed=seed, tier=tier
    )
    if only is not None:
        wanted = set(only)
        targets = [t for t in targets if getattr(t[spec.target], "pk", t[spec.target]) in wanted]
        missing = wanted - {getattr(t[spec.target], "pk", t[spec.target]) for t in targets}
        if missing:
            raise KasautiError(
                f"only: {spec.target.replace('_', ' ')} {', '.join(map(str, sorted(missing)))} "
                f"cannot be annotated in a {kind} campaign of {dataset.name}"
                + (f" ({why})" if why else "")
            )
    if not targets:
        raise KasautiError(
            f"nothing to annotate in {dataset.name} for a {kind} campaign"
            + (f": {why}" if why else "")
        )

    languages = {user.pk: set(annotator_languages(user=user)) for user in annotators}
    # Templates are judged in their own language; everything else in the campaign's.
    plan = balanced_assignment(
        [(i, t["language"]) for i, t in enumerate(targets)],
        annotators=languages,
        per_item=per_item,
        seed=seed,
    )
    with transaction.atomic():
        campaign = Campaign.objects.create(
            name=nfc(name) or f"{dataset.name}: {spec.label}",
            dataset=dataset,
            kind=kind,
            language=language,
            annotators_per_item=per_item,
            params={
                "sample_size": sample_size,
                "seed": seed,
                "tier": tier,
                **({"only": sorted(set(only))} if only is not None else {}),
            },
            created_by=created_by,
        )
        campaign.annotators.set(annotators)
        items = CampaignItem.objects.bulk_create(
            CampaignItem(
                campaign=campaign,
                position=position,
                category_id=target["category_id"],
                segment=target.get("segment", ""),
                **{spec.target: target[spec.target]},
            )
            for position, target in enumerate(targets)
        )
        Assignment.objects.bulk_create(
            Assignment(
                campaign=campaign,
                item=item,
                annotator_id=annotator_id,
                slot=slot,
                position=item.position,
            )
            for item, chosen in zip(items, plan, strict=True)
            for slot, annotator_id in enumerate(chosen)
        )
        spec.on_created(targets=targets)
    return campaign


def campaign_close(*, campaign: Campaign) -> Campaign:
    campaign.status = Campaign.Status.CLOSED
    campaign.save(update_fields=["status"])
    return campaign
