"""Campaigns: what is annotated (sampled by kind), by whom (every item gets its number of
distinct annotators who read its language, loads balanced), and closing them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from apps.accounts.roles import is_annotator
from apps.catalog.models import (
    ContextSentence,
    Dataset,
    Instance,
    ReviewStatus,
    StereotypeTuple,
)
from apps.catalog.review import (
    SENTENCE_STATES,
)
from apps.catalog.selectors import template_current_versions
from apps.catalog.versions import (
    template_versions_review_start,
)
from apps.core.errors import KasautiError
from apps.core.text import nfc
from apps.translation.models import TranslatedString
from apps.translation.pipeline import text_hash
from apps.translation.selectors import string_verdicts

from ..models import (
    DEFAULT_ANNOTATORS_PER_ITEM,
    Assignment,
    Campaign,
    CampaignItem,
    CampaignKind,
)
from ..sampling import balanced_assignment, range_sample, stratified_sample
from ..selectors import annotator_languages

User = get_user_model()

DEFAULT_SAMPLE = 100


def _template_targets(dataset: Dataset) -> list[dict[str, Any]]:
    versions = (
        template_current_versions(dataset=dataset)
        .filter(status__in=[ReviewStatus.DRAFT, ReviewStatus.IN_REVIEW])
        .select_related("template")
        .order_by("template__position", "template_id")
    )
    return [
        {
            "template_version": v,
            "category_id": v.template.category_id,
            "language": v.language,
        }
        for v in versions
    ]


def _translation_candidates(
    dataset: Dataset, language: str, *, passed_only: bool
) -> list[tuple[str, str, int]]:
    """(segment, source text, category id) for the dataset's English contexts and questions.
    Contexts are the ambiguous contexts: they are translated whole (a disambiguated context is
    translated as its ambiguous part plus the rest, and the rest alone is not a context)."""
    rows = (
        Instance.objects.filter(dataset=dataset, language="en", retired_at__isnull=True)
        .values_list("context_condition", "context", "question", "category_id")
        .order_by()
        .distinct()
    )
    seen: dict[tuple[str, str], int] = {}
    for condition, context, question, category_id in rows.iterator(chunk_size=5000):
        if condition == "ambig":
            seen.setdefault(("ctx", context), category_id)
        seen.setdefault(("qn", question), category_id)
    return [(segment, text, category) for (segment, text), category in seen.items()]


def _translation_targets(
    dataset: Dataset, language: str, *, per_segment: int, seed: int, calibration: bool
) -> tuple[list[dict[str, Any]], str]:
    """The sampled strings, and why there are none when there are none. Scoring samples the
    strings that passed: by the verdict of the newest finished job of the dataset that used
    the string (its own threshold), else the one stored with the string by the job that
    produced it. Calibration samples every translated string across the similarity range."""
    candidates = _translation_candidates(dataset, language, passed_only=not calibration)
    hashes = {text_hash(text) for _, text, _ in candidates}
    rows: list[TranslatedString] = []
    qs = TranslatedString.objects.filter(language=language).order_by("id")
    hash_list = sorted(hashes)
    for start in range(0, len(hash_list), 5000):
        rows.extend(qs.filter(text_hash__in=hash_list[start : start + 5000]))
    verdicts = (
        {}
        if calibration
        else string_verdicts(dataset_id=dataset.pk, string_ids=[row.pk for row in rows])
    )

    def passes(row: TranslatedString) -> bool:
        if row.pk in verdicts:
            return row.similarity >= verdicts[row.pk][1]
        return row.passed

    strings: dict[str, TranslatedString] = {}
    translated: set[str] = set()
    for row in rows:
        translated.add(row.text_hash)
        if calibration or passes(row):
            strings[row.text_hash] = row  # the newest models' row wins (ordered by id)
    targets = []
    for segment in ("ctx", "qn"):
        pool = [
            (category, strings[text_hash(text)])
            for seg, text, category in candidates
            if seg == segment and text_hash(text) in strings
        ]
        pool.sort(key=lambda row: row[1].pk)
        if calibration:
            # Across the range the similarities span, not in the pool's own proportions.
            chosen = range_sample(pool, key=lambda row: row[1].similarity, n=per_segment, seed=seed)
        else:
            chosen = stratified_sample(pool, n=per_segment, seed=seed)
        for category, string in sorted(chosen, key=lambda row: row[1].pk):
            targets.append(
                {
                    "translated_string": string,
                    "category_id": category,
                    "segment": segment,
                    "language": language,
                }
            )
    if targets:
        return targets, ""
    if not translated:
        return [], (
            f"no translation into {language} of its {len(hashes):,} English contexts and "
            "questions yet: run a translation job first"
        )
    judged = sorted({verdicts[row.pk] for row in rows if row.pk in verdicts}, reverse=True)
    by = "; ".join(f"job #{job_id} at threshold {threshold:g}" for job_id, threshold in judged)
    return [], (
        f"the translations into {language} passed 0 of {len(translated):,} contexts and "
        f"questions (judged by {by or 'the jobs that produced them'}) and a scoring campaign "
        "samples passed strings only: translate again at a lower threshold, or start a "
        "calibration campaign, which samples across the whole similarity range"
    )


def _tuple_targets(dataset: Dataset, language: str) -> list[dict[str, Any]]:
    qs = StereotypeTuple.objects.filter(dataset=dataset).order_by("id")
    if language:
        qs = qs.filter(language=language)
    return [
        {"stereotype_tuple": t, "category_id": t.category_id, "language": t.language} for t in qs
    ]


def _sentence_targets(dataset: Dataset, language: str, tier: str) -> list[dict[str, Any]]:
    qs = ContextSentence.objects.filter(context_set__dataset=dataset).select_related("context_set")
    if tier == "social_science":
        # IndiCASA's second tier sees only what the language review kept or fixed, as the
        # catalog records it now: the latest language decision counts (a sentence dropped by a
        # later language campaign is not sent on), and a sentence the social scientists
        # already decided is not reviewed again.
        qs = qs.filter(SENTENCE_STATES["awaiting_social_science_review"])
    if language:
        qs = qs.filter(context_set__language=language)
    return [
        {
            "context_sentence": s,
            "category_id": s.context_set.category_id,
            "language": s.context_set.language,
        }
        for s in qs.order_by("context_set_id", "kind", "position", "id")
    ]


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
) -> Campaign:
    """Create a campaign, its items and its assignment in one transaction: every item gets
    exactly `annotators_per_item` distinct annotators who cover its language, and loads are
    balanced. Refuses (and writes nothing) when that is impossible."""
    if kind not in CampaignKind.values:
        raise KasautiError(f"kind: one of {', '.join(CampaignKind.values)}")
    per_item = annotators_per_item or DEFAULT_ANNOTATORS_PER_ITEM[kind]
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
    if kind in (CampaignKind.TRANSLATION_SCORING, CampaignKind.CALIBRATION) and not language:
        raise KasautiError("language: required for translation scoring")
    if kind == CampaignKind.TEMPLATE_VALIDATION:
        targets, why = _template_targets(dataset), ""
    elif kind in (CampaignKind.TRANSLATION_SCORING, CampaignKind.CALIBRATION):
        targets, why = _translation_targets(
            dataset,
            language,
            per_segment=sample_size,
            seed=seed,
            calibration=kind == CampaignKind.CALIBRATION,
        )
    elif kind == CampaignKind.TUPLE_VOTE:
        targets, why = _tuple_targets(dataset, language), ""
    else:
        if tier not in ("language", "social_science"):
            raise KasautiError("tier: language or social_science")
        targets, why = _sentence_targets(dataset, language, tier), ""
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
            name=nfc(name) or f"{dataset.name}: {CampaignKind(kind).label}",
            dataset=dataset,
            kind=kind,
            language=language,
            annotators_per_item=per_item,
            params={"sample_size": sample_size, "seed": seed, "tier": tier},
            created_by=created_by,
        )
        campaign.annotators.set(annotators)
        items = CampaignItem.objects.bulk_create(
            CampaignItem(
                campaign=campaign,
                position=position,
                category_id=target["category_id"],
                segment=target.get("segment", ""),
                template_version=target.get("template_version"),
                translated_string=target.get("translated_string"),
                stereotype_tuple=target.get("stereotype_tuple"),
                context_sentence=target.get("context_sentence"),
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
        if kind == CampaignKind.TEMPLATE_VALIDATION:
            template_versions_review_start(version_ids=[t["template_version"].pk for t in targets])
    return campaign


def campaign_close(*, campaign: Campaign) -> Campaign:
    campaign.status = Campaign.Status.CLOSED
    campaign.save(update_fields=["status"])
    return campaign
