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
from .kinds import campaign_kinds
from .models import Assignment, Campaign, ItemStatus

COLUMNS = ("F1", "F2", "A1", "A2")


@dataclass
class Table3Row:
    """One row of Table 3. The means and both kappas are over the `n_items` items that both
    annotators scored (the paper's two annotators assess the same sample); `scored` says how
    many items of the row each annotator scored in all, so an item only one of them scored is
    visible rather than silently mixed into one column's mean."""

    name: str  # "hi_ctx", "hi_qn", "hi_combined"
    n_items: int
    means: dict[str, float | None]
    adequacy_kappa: agreement.Agreement
    fluency_kappa: agreement.Agreement
    scored: dict[str, int] = field(default_factory=dict)  # {"1": n, "2": n}


@dataclass
class Table3Language:
    language: str
    rows: list[Table3Row]
    campaigns: list[int] = field(default_factory=list)
    # Who "annotator 1" and "annotator 2" are: the annotators holding slot 1 / slot 2 of the
    # language's items, with how many items each held (with a balanced assignment the same
    # slot can be different people on different items).
    annotators: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def combined(self) -> Table3Row:
        return self.rows[-1]

    # The language-wide figures are the combined row's (kept for the API's older keys).
    @property
    def adequacy_kappa(self) -> agreement.Agreement:
        return self.combined.adequacy_kappa

    @property
    def fluency_kappa(self) -> agreement.Agreement:
        return self.combined.fluency_kappa


ANNOTATOR_RULE = (
    "Annotator 1 and annotator 2 are the first and second annotator assigned to each item "
    "(its slots 1 and 2, in the order the campaign assigned them)."
)


def _mean(values: list[int]) -> float | None:
    return round(statistics.fmean(values), 2) if values else None


def _kappa(units: list[dict[str, Any]], score: str) -> agreement.Agreement:
    return agreement.cohen_kappa(
        [u["slots"][0][score] for u in units],
        [u["slots"][1][score] for u in units],
        labels=rules.SCORES,
        weights="quadratic",
    )


def table3(*, dataset_id: int) -> list[Table3Language]:
    """One block per language: rows <lang>_ctx, <lang>_qn, <lang>_combined, each with the two
    annotators' mean fluency (F1, F2) and adequacy (A1, A2) and its own quadratic-weighted
    kappas, all over the row's items that both annotators scored. "Annotator 1/2" are the
    item's slots 0 and 1 (ANNOTATOR_RULE); the block names who held them."""
    campaigns = Campaign.objects.filter(
        dataset_id=dataset_id,
        kind__in=[kind.name for kind in campaign_kinds() if kind.feeds_table3],
    ).order_by("language", "id")
    by_language: dict[str, list[Campaign]] = defaultdict(list)
    for campaign in campaigns:
        by_language[campaign.language].append(campaign)
    out = []
    for language, group in sorted(by_language.items()):
        rows = (
            Assignment.objects.filter(campaign__in=group, done_at__isnull=False, slot__lt=2)
            .exclude(item__status=ItemStatus.SUPERSEDED)
            .values_list(
                "item_id", "item__segment", "slot", "current__answers", "annotator__username"
            )
            .order_by("item__position", "slot")
        )
        units: dict[int, dict[str, Any]] = {}
        annotators: dict[str, dict[str, int]] = {"1": {}, "2": {}}
        for item_id, segment, slot, answers, username in rows:
            units.setdefault(item_id, {"segment": segment, "slots": {}})["slots"][slot] = answers
            held = annotators[str(slot + 1)]
            held[username] = held.get(username, 0) + 1
        table_rows = []
        for suffix, segments in (("ctx", {"ctx"}), ("qn", {"qn"}), ("combined", {"ctx", "qn"})):
            chosen = [u for u in units.values() if u["segment"] in segments]
            both = [u for u in chosen if 0 in u["slots"] and 1 in u["slots"]]
            means = {}
            for column, score in (("F", "fluency"), ("A", "adequacy")):
                for slot in (0, 1):
                    means[f"{column}{slot + 1}"] = _mean([u["slots"][slot][score] for u in both])
            table_rows.append(
                Table3Row(
                    name=f"{language}_{suffix}",
                    n_items=len(both),
                    means=means,
                    adequacy_kappa=_kappa(both, "adequacy"),
                    fluency_kappa=_kappa(both, "fluency"),
                    scored={
                        str(slot + 1): sum(1 for u in chosen if slot in u["slots"])
                        for slot in (0, 1)
                    },
                )
            )
        out.append(
            Table3Language(
                language=language,
                rows=table_rows,
                campaigns=[c.pk for c in group],
                annotators={
                    slot: dict(sorted(held.items(), key=lambda kv: (-kv[1], kv[0])))
                    for slot, held in annotators.items()
                },
            )
        )
    return out


class Table3CsvWriter:
    """The paper's layout, one line per row, each row with its own kappas and counts:
    n_items is the items both annotators scored (what the means and kappas are over),
    scored_by_1 / scored_by_2 how many of the row's items each annotator scored in all."""

    header = (
        "row",
        "n_items",
        *COLUMNS,
        "adequacy_kappa_w",
        "fluency_kappa_w",
        "scored_by_1",
        "scored_by_2",
        "annotator_1",
        "annotator_2",
    )

    def write(self, blocks: list[Table3Language]) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(self.header)
        for block in blocks:
            names = {
                slot: " ".join(f"{name}({n})" for name, n in held.items())
                for slot, held in block.annotators.items()
            }
            for row in block.rows:
                writer.writerow(
                    [
                        row.name,
                        row.n_items,
                        *("" if row.means[c] is None else f"{row.means[c]:.2f}" for c in COLUMNS),
                        _kappa_cell(row.adequacy_kappa),
                        _kappa_cell(row.fluency_kappa),
                        row.scored.get("1", 0),
                        row.scored.get("2", 0),
                        names.get("1", ""),
                        names.get("2", ""),
                    ]
                )
        return buffer.getvalue()


def _kappa_cell(value: agreement.Agreement) -> str:
    return f"{value.value:.3f}" if value.defined else f"undefined: {value.reason}"


# --- threshold calibration ------------------------------------------------------------------

THRESHOLD_STEP = 0.01  # candidate thresholds: every hundredth across the judged similarities
GOOD = 4  # adequacy at or above this counts as "meaning kept"
CALIBRATION_TARGET = 0.9  # the share of passed items scored >= GOOD a suggestion must reach


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
        dataset_id=campaign.dataset_id,
        language=campaign.language,
        kind__in=[k.name for k in campaign_kinds() if k.feeds_calibration],
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
