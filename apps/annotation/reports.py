"""BharatBBQ Table 3 (translation quality through human judgement) and the threshold
calibration, built from the judgements of translation-scoring campaigns."""

from __future__ import annotations

import csv
import io
import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from . import agreement, rules
from .models import Assignment, Campaign, CampaignKind, ItemStatus

COLUMNS = ("F1", "F2", "A1", "A2")


@dataclass
class Table3Row:
    name: str  # "hi_ctx", "hi_qn", "hi_combined"
    n_items: int
    means: dict[str, float | None]


@dataclass
class Table3Language:
    language: str
    rows: list[Table3Row]
    adequacy_kappa: agreement.Agreement
    fluency_kappa: agreement.Agreement
    campaigns: list[int] = field(default_factory=list)


def _mean(values: list[int]) -> float | None:
    return round(statistics.fmean(values), 2) if values else None


def table3(*, dataset_id: int) -> list[Table3Language]:
    """One block per language: rows <lang>_ctx, <lang>_qn, <lang>_combined with each
    annotator's mean fluency (F1, F2) and adequacy (A1, A2), plus the quadratic-weighted kappa
    over the combined items. "Annotator 1/2" are the item's slots 0 and 1."""
    campaigns = Campaign.objects.filter(
        dataset_id=dataset_id, kind=CampaignKind.TRANSLATION_SCORING
    ).order_by("language", "id")
    by_language: dict[str, list[Campaign]] = defaultdict(list)
    for campaign in campaigns:
        by_language[campaign.language].append(campaign)
    out = []
    for language, group in sorted(by_language.items()):
        rows = (
            Assignment.objects.filter(campaign__in=group, done_at__isnull=False, slot__lt=2)
            .exclude(item__status=ItemStatus.SUPERSEDED)
            .values_list("item_id", "item__segment", "slot", "current__answers")
        )
        units: dict[int, dict[str, Any]] = {}
        for item_id, segment, slot, answers in rows:
            units.setdefault(item_id, {"segment": segment, "slots": {}})["slots"][slot] = answers
        table_rows = []
        for suffix, segments in (("ctx", {"ctx"}), ("qn", {"qn"}), ("combined", {"ctx", "qn"})):
            chosen = [u for u in units.values() if u["segment"] in segments]
            means = {}
            for column, score in (("F", "fluency"), ("A", "adequacy")):
                for slot in (0, 1):
                    means[f"{column}{slot + 1}"] = _mean(
                        [u["slots"][slot][score] for u in chosen if slot in u["slots"]]
                    )
            table_rows.append(Table3Row(f"{language}_{suffix}", len(chosen), means))
        both = [u for u in units.values() if 0 in u["slots"] and 1 in u["slots"]]

        def kappa(score: str, both=both) -> agreement.Agreement:
            return agreement.cohen_kappa(
                [u["slots"][0][score] for u in both],
                [u["slots"][1][score] for u in both],
                labels=rules.SCORES,
                weights="quadratic",
            )

        out.append(
            Table3Language(
                language=language,
                rows=table_rows,
                adequacy_kappa=kappa("adequacy"),
                fluency_kappa=kappa("fluency"),
                campaigns=[c.pk for c in group],
            )
        )
    return out


class Table3CsvWriter:
    """The paper's layout, one line per row; kappa columns repeat the language's values."""

    header = ("row", "n_items", *COLUMNS, "adequacy_kappa_w", "fluency_kappa_w")

    def write(self, blocks: list[Table3Language]) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(self.header)
        for block in blocks:
            for row in block.rows:
                writer.writerow(
                    [
                        row.name,
                        row.n_items,
                        *("" if row.means[c] is None else f"{row.means[c]:.2f}" for c in COLUMNS),
                        _kappa_cell(block.adequacy_kappa),
                        _kappa_cell(block.fluency_kappa),
                    ]
                )
        return buffer.getvalue()


def _kappa_cell(value: agreement.Agreement) -> str:
    return f"{value.value:.3f}" if value.defined else f"undefined: {value.reason}"


# --- threshold calibration ------------------------------------------------------------------

THRESHOLD_STEP = 0.01  # candidate thresholds: every hundredth across the judged similarities
GOOD = 4  # adequacy at or above this counts as "meaning kept"
CALIBRATION_TARGET = 0.9  # the share of passed items scored >= GOOD a suggestion must reach
CALIBRATION_SOURCES = (CampaignKind.CALIBRATION, CampaignKind.TRANSLATION_SCORING)


def candidate_thresholds(similarities: list[float]) -> list[float]:
    """Every hundredth from just below the lowest similarity to just above the highest: the
    whole range the data spans (cosine may be anywhere in -1..1), whatever it is."""
    if not similarities:
        return []
    low = math.floor(min(similarities) / THRESHOLD_STEP)
    high = math.ceil(max(similarities) / THRESHOLD_STEP)
    return [round(i * THRESHOLD_STEP, 2) for i in range(low, high + 1)]


def calibration(*, campaign: Campaign) -> dict[str, Any]:
    """Cosine similarity against mean human adequacy, and for each candidate threshold across
    the range the similarities span: the share of passed items humans score ≥ 4 (precision)
    and the share of items scored ≥ 4 that would pass (recall). The suggestion is the lowest
    threshold whose precision reaches 0.9, else (the fallback) the one with the best precision;
    `reason` says which, or why there is none.

    The judgements are those of every calibration and translation-scoring campaign of the
    campaign's dataset and language (a calibration may reuse Table 3's judgements), one point
    per translated string (its mean adequacy over all of them)."""
    sources = Campaign.objects.filter(
        dataset_id=campaign.dataset_id, language=campaign.language, kind__in=CALIBRATION_SOURCES
    ).order_by("id")
    rows = (
        Assignment.objects.filter(campaign__in=sources, done_at__isnull=False)
        .exclude(item__status=ItemStatus.SUPERSEDED)
        .values_list(
            "campaign_id",
            "item__translated_string_id",
            "item__translated_string__similarity",
            "current__answers",
        )
    )
    strings: dict[int, dict[str, Any]] = {}
    used: dict[int, set[int]] = defaultdict(set)
    for campaign_id, string_id, similarity, answers in rows:
        if string_id is None:
            continue
        used[campaign_id].add(string_id)
        entry = strings.setdefault(string_id, {"similarity": similarity, "adequacy": []})
        entry["adequacy"].append(answers["adequacy"])
    points = [
        {"similarity": round(v["similarity"], 4), "adequacy": statistics.fmean(v["adequacy"])}
        for v in strings.values()
    ]
    good = [p for p in points if p["adequacy"] >= GOOD]
    table = []
    for threshold in candidate_thresholds([p["similarity"] for p in points]):
        passed = [p for p in points if p["similarity"] >= threshold]
        good_passed = [p for p in passed if p["adequacy"] >= GOOD]
        table.append(
            {
                "threshold": threshold,
                "passed": len(passed),
                "precision": round(len(good_passed) / len(passed), 3) if passed else None,
                "recall": round(len(good_passed) / len(good), 3) if good else None,
            }
        )
    for previous, row in zip([None, *table], table, strict=False):
        # The first threshold of each run that passes the same items (the page lists those).
        row["step"] = previous is None or previous["passed"] != row["passed"]
    usable = [row for row in table if row["precision"] is not None]
    suggestion = next(
        (row["threshold"] for row in usable if row["precision"] >= CALIBRATION_TARGET), None
    )
    if not points:
        reason = "no judged items yet"
    elif not good:
        reason = (
            f"no item was scored {GOOD} or more for adequacy ({len(points)} judged): no "
            "threshold keeps only translations that keep the meaning"
        )
    elif suggestion is not None:
        reason = (
            f"the lowest threshold whose passed items humans score ≥ {GOOD} at least "
            f"{CALIBRATION_TARGET:.0%} of the time"
        )
    else:
        best = max(usable, key=lambda row: (row["precision"], -row["threshold"]))
        suggestion = best["threshold"]
        reason = (
            f"no threshold reaches {CALIBRATION_TARGET:.0%} of passed items scored ≥ {GOOD}: "
            f"the fallback is the best precision, {best['precision']:.1%} at this threshold"
        )
    return {
        "language": campaign.language,
        "points": sorted(points, key=lambda p: p["similarity"]),
        "thresholds": table,
        "suggested_threshold": suggestion,
        "reason": reason,
        "campaigns": [
            {"id": c.pk, "name": c.name, "kind": c.kind, "strings": len(used[c.pk])}
            for c in sources
            if c.pk == campaign.pk or used[c.pk]
        ],
    }
