"""Agreement statistics. Pure functions over plain lists: no Django, no database.

The numbers come from well-kept libraries (scikit-learn's Cohen's kappa, statsmodels' Fleiss'
kappa, the krippendorff package); this module only decides when a statistic is defined and
passes the full label set so that the weights follow the scale, not the labels that happen to
occur. A statistic that is not defined is returned as `undefined` with the reason, never as
NaN or a made-up number.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import krippendorff
import numpy as np

Label = Hashable


# How pages name each statistic (the API keeps the identifier in `statistic` and adds this).
STATISTIC_LABELS = {
    "cohen_kappa": "Cohen's κ",
    "cohen_kappa_quadratic": "Cohen's κ (quadratic weights)",
    "fleiss_kappa": "Fleiss' κ",
    "krippendorff_alpha_nominal": "Krippendorff's α (nominal)",
    "krippendorff_alpha_ordinal": "Krippendorff's α (ordinal)",
    "krippendorff_alpha_interval": "Krippendorff's α (interval)",
}

# When to explain a low kappa by prevalence: kappa below LOW_KAPPA although raw agreement is
# at least HIGH_RAW, and one label makes up at least PREVALENT of the judgements.
LOW_KAPPA, HIGH_RAW, PREVALENT = 0.4, 0.7, 0.75


@dataclass(frozen=True)
class Agreement:
    statistic: str
    value: float | None
    n_items: int
    reason: str = ""
    # Raw agreement: the share of items (two annotators) or of annotator pairs within items
    # (three or more) whose labels are identical. None when no item has two judgements.
    observed: float | None = None
    # Chance agreement from the two annotators' label shares (unweighted Cohen's kappa only).
    expected: float | None = None
    # The most frequent label and its share of all judgements (for the prevalence note).
    top_label: Any = None
    top_share: float | None = None

    @property
    def defined(self) -> bool:
        return self.value is not None

    @property
    def label(self) -> str:
        return STATISTIC_LABELS.get(self.statistic, self.statistic)

    @property
    def note(self) -> str:
        """Why the statistic is low although the annotators mostly agree (the prevalence
        effect: when nearly all judgements carry one label, agreement by chance is high, and
        kappa measures agreement beyond chance). Empty when that is not the case."""
        if (
            self.value is None
            or self.observed is None
            or self.top_share is None
            or self.value >= LOW_KAPPA
            or self.observed < HIGH_RAW
            or self.top_share < PREVALENT
        ):
            return ""
        chance = (
            f"; chance agreement is already {self.expected:.0%}"
            if self.expected is not None
            else ""
        )
        return (
            f"Low although the annotators agree on {self.observed:.0%}: “{self.top_label}” is "
            f"{self.top_share:.0%} of the judgements{chance}, and {self.label} counts only "
            "agreement beyond chance (prevalence)."
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "statistic": self.statistic,
            "label": self.label,
            "value": None if self.value is None else round(self.value, 4),
            "n_items": self.n_items,
            "undefined": not self.defined,
            "reason": self.reason,
            "observed_agreement": None if self.observed is None else round(self.observed, 4),
            "expected_agreement": None if self.expected is None else round(self.expected, 4),
            "note": self.note,
        }

    def __str__(self) -> str:
        return f"{self.value:.3f}" if self.value is not None else f"undefined ({self.reason})"


def _undefined(statistic: str, n: int, reason: str, **raw: Any) -> Agreement:
    return Agreement(statistic=statistic, value=None, n_items=n, reason=reason, **raw)


def _finite(statistic: str, n: int, value: float, **raw: Any) -> Agreement:
    if value is None or not math.isfinite(value):
        return _undefined(statistic, n, "the statistic is not defined for these judgements", **raw)
    return Agreement(statistic=statistic, value=float(value), n_items=n, **raw)


def raw_agreement(rows: Sequence[Sequence[Label]]) -> dict[str, Any]:
    """Raw agreement over items (each a list of ≥ 2 labels): the mean over items of the share
    of annotator pairs that gave the same label (for two annotators: the share of items on
    which they agree), and the most frequent label with its share of all judgements."""
    rows = [list(row) for row in rows if len(row) >= 2]
    if not rows:
        return {}
    shares = []
    for row in rows:
        pairs = list(combinations(row, 2))
        shares.append(sum(x == y for x, y in pairs) / len(pairs))
    counts: dict[Any, int] = {}
    for row in rows:
        for value in row:
            counts[value] = counts.get(value, 0) + 1
    top = max(counts, key=lambda label: (counts[label], str(label)))
    return {
        "observed": sum(shares) / len(shares),
        "top_label": top,
        "top_share": counts[top] / sum(counts.values()),
    }


def cohen_kappa(
    first: Sequence[Label],
    second: Sequence[Label],
    *,
    labels: Sequence[Label],
    weights: str | None = None,
) -> Agreement:
    """Cohen's kappa of two annotators over the items both judged (paired lists).
    `weights="quadratic"` for ordinal scores; `labels` is the whole scale, e.g. [1, 2, 3, 4, 5]."""
    statistic = "cohen_kappa" if weights is None else f"cohen_kappa_{weights}"
    if len(first) != len(second):
        raise ValueError("the two annotators' judgements must be paired item by item")
    n = len(first)
    if n == 0:
        return _undefined(statistic, 0, "no item was judged by both annotators")
    if n < 2:
        return _undefined(statistic, n, "fewer than 2 items judged by both annotators")
    unknown = (set(first) | set(second)) - set(labels)
    if unknown:
        raise ValueError(f"labels outside the scale {list(labels)}: {sorted(map(str, unknown))}")
    raw = raw_agreement(list(zip(first, second, strict=True)))
    if weights is None:
        raw["expected"] = sum(
            (first.count(label) / n) * (second.count(label) / n) for label in labels
        )
    used = set(first) | set(second)
    if len(used) == 1:
        # Expected agreement is 1: kappa is 0/0.
        return _undefined(
            statistic, n, f"both annotators used one label only ({next(iter(used))})", **raw
        )
    # Imported here, not at the top: scikit-learn and statsmodels take ~4 s to import, and
    # every web and worker process imports this module when it loads its URLs or tasks.
    from sklearn.metrics import cohen_kappa_score

    value = cohen_kappa_score(first, second, labels=list(labels), weights=weights)
    return _finite(statistic, n, value, **raw)


def fleiss(ratings: Sequence[Sequence[Label]], *, labels: Sequence[Label]) -> Agreement:
    """Fleiss' kappa; `ratings` has one row per item with the same number of ratings each."""
    statistic = "fleiss_kappa"
    rows = [list(row) for row in ratings]
    n = len(rows)
    if n < 2:
        return _undefined(statistic, n, "fewer than 2 items")
    sizes = {len(row) for row in rows}
    if len(sizes) != 1 or sizes.pop() < 2:
        return _undefined(statistic, n, "items need the same number (≥ 2) of annotators")
    index = {label: i for i, label in enumerate(labels)}
    try:
        coded = np.array([[index[value] for value in row] for row in rows])
    except KeyError as exc:
        raise ValueError(f"label outside the scale {list(labels)}: {exc.args[0]}") from None
    raw = raw_agreement(rows)
    used = {value for row in rows for value in row}
    if len(used) == 1:
        return _undefined(
            statistic, n, f"every annotator used one label only ({used.pop()})", **raw
        )
    # Imported here for the reason given in cohen_kappa.
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    table, _ = aggregate_raters(coded, n_cat=len(labels))
    return _finite(statistic, n, fleiss_kappa(table, method="fleiss"), **raw)


def krippendorff_alpha(
    units: Sequence[Mapping[Any, Label]],
    *,
    labels: Sequence[Label],
    level: str = "nominal",
) -> Agreement:
    """Krippendorff's alpha over items judged by any number of annotators (missing allowed).
    `units` is one {annotator: label} mapping per item; `level` nominal / ordinal / interval."""
    statistic = f"krippendorff_alpha_{level}"
    pairable = [unit for unit in units if len(unit) >= 2]
    n = len(pairable)
    if n < 2:
        return _undefined(statistic, n, "fewer than 2 items with at least 2 annotators")
    raw = raw_agreement([list(unit.values()) for unit in pairable])
    used = {value for unit in pairable for value in unit.values()}
    if len(used) == 1:
        return _undefined(
            statistic, n, f"every annotator used one label only ({used.pop()})", **raw
        )
    coders = sorted({coder for unit in pairable for coder in unit}, key=str)
    index = {label: float(i) for i, label in enumerate(labels)}
    data = np.full((len(coders), n), np.nan)
    for column, unit in enumerate(pairable):
        for row, coder in enumerate(coders):
            if coder in unit:
                data[row, column] = index[unit[coder]]
    value = krippendorff.alpha(
        reliability_data=data,
        level_of_measurement=level,
        value_domain=[index[label] for label in labels],
    )
    return _finite(statistic, n, value, **raw)


def pairwise_cohen(
    units: Sequence[Mapping[Any, Label]],
    *,
    labels: Sequence[Label],
    weights: str | None = None,
) -> dict[tuple[Any, Any], Agreement]:
    """Cohen's kappa for every pair of annotators, over the items both judged."""
    coders = sorted({coder for unit in units for coder in unit}, key=str)
    result = {}
    for a, b in combinations(coders, 2):
        both = [unit for unit in units if a in unit and b in unit]
        result[(a, b)] = cohen_kappa(
            [unit[a] for unit in both], [unit[b] for unit in both], labels=labels, weights=weights
        )
    return result


def overall(
    units: Sequence[Mapping[Any, Label]],
    *,
    labels: Sequence[Label],
    ordinal: bool = False,
) -> Agreement:
    """The statistic the issue asks for: Cohen's kappa (quadratic-weighted when ordinal) when
    every item has exactly the same two annotators' judgements, else Fleiss' kappa when all
    items have the same number of judgements (nominal), else Krippendorff's alpha."""
    complete = [unit for unit in units if len(unit) >= 2]
    sizes = {len(unit) for unit in complete}
    if sizes == {2}:
        first = [unit[sorted(unit, key=str)[0]] for unit in complete]
        second = [unit[sorted(unit, key=str)[1]] for unit in complete]
        # Slot order, not identity: with a balanced assignment the pair varies per item, and
        # kappa over "first vs second judgement" is the usual two-rater reading.
        return cohen_kappa(first, second, labels=labels, weights="quadratic" if ordinal else None)
    if len(sizes) == 1 and not ordinal:
        return fleiss([list(unit.values()) for unit in complete], labels=labels)
    return krippendorff_alpha(complete, labels=labels, level="ordinal" if ordinal else "nominal")
