"""Seeded samples and balanced assignment. Pure functions: the same input and seed always give
the same result, so a campaign can be rebuilt and checked."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

from apps.core.errors import KasautiError

T = TypeVar("T")


def stratified_sample(
    rows: Sequence[tuple[Hashable, T]], *, n: int, seed: int
) -> list[tuple[Hashable, T]]:
    """Up to n rows, seeded, allocated to strata in proportion to their size (largest
    remainder), so that every category keeps its share. `rows` are (stratum, value) pairs."""
    if n >= len(rows):
        return list(rows)
    strata: dict[Hashable, list[tuple[Hashable, T]]] = defaultdict(list)
    for row in rows:
        strata[row[0]].append(row)
    keys = sorted(strata, key=str)
    total = len(rows)
    quotas = {key: n * len(strata[key]) / total for key in keys}
    alloc = {key: int(quotas[key]) for key in keys}
    left = n - sum(alloc.values())
    for key in sorted(keys, key=lambda k: (-(quotas[k] - alloc[k]), str(k)))[:left]:
        alloc[key] += 1
    rng = random.Random(seed)
    sample = []
    for key in keys:
        sample.extend(rng.sample(strata[key], alloc[key]))
    return sample


RANGE_BINS = 10


def range_sample(
    rows: Sequence[T], *, key: Callable[[T], float], n: int, seed: int, bins: int = RANGE_BINS
) -> list[T]:
    """Up to n rows spread across the range of `key` the rows span, seeded: the range from the
    smallest to the largest value is cut into `bins` equal widths and each gets an equal share
    (a bin with fewer rows gives its unused share to the others, lowest bins first), so a pool
    crowded at one end is not sampled in its own proportions. Returns rows in input order."""
    if n >= len(rows):
        return list(rows)
    values = [key(row) for row in rows]
    low, high = min(values), max(values)
    width = (high - low) / bins
    strata: dict[int, list[int]] = defaultdict(list)
    for index, value in enumerate(values):
        strata[min(int((value - low) / width), bins - 1) if width > 0 else 0].append(index)
    keys = sorted(strata)
    alloc = dict.fromkeys(keys, 0)
    left = n
    while left > 0:
        open_keys = [k for k in keys if alloc[k] < len(strata[k])]
        share, extra = divmod(left, len(open_keys))
        for position, k in enumerate(open_keys):
            take = min(share + (1 if position < extra else 0), len(strata[k]) - alloc[k])
            alloc[k] += take
            left -= take
    rng = random.Random(seed)
    chosen = sorted(i for k in keys for i in rng.sample(strata[k], alloc[k]))
    return [rows[i] for i in chosen]


class AssignmentImpossible(KasautiError):
    pass


def balanced_assignment(
    items: Sequence[tuple[Hashable, str]],
    *,
    annotators: dict[Hashable, set[str]],
    per_item: int,
    seed: int = 0,
) -> list[list[Hashable]]:
    """For each (item id, language) pick exactly `per_item` distinct annotators who cover the
    language, always the least loaded ones (ties broken by a seeded order), so loads differ by
    at most one among annotators with the same languages. Returns the chosen annotators per
    item, in slot order. Raises naming the first item that cannot be staffed."""
    rng = random.Random(seed)
    order = list(annotators)
    rng.shuffle(order)
    rank = {annotator: i for i, annotator in enumerate(order)}
    load = dict.fromkeys(order, 0)
    eligible_cache: dict[str, list[Hashable]] = {}
    chosen: list[list[Hashable]] = []
    for item, language in items:
        if language not in eligible_cache:
            eligible_cache[language] = [a for a in order if _covers(annotators[a], language)]
        eligible = eligible_cache[language]
        if len(eligible) < per_item:
            raise AssignmentImpossible(
                f"item {item}: language {language!r} needs {per_item} annotators, "
                f"{len(eligible)} selected annotator(s) cover it"
            )
        picked = sorted(eligible, key=lambda a: (load[a], rank[a]))[:per_item]
        for annotator in picked:
            load[annotator] += 1
        chosen.append(picked)
    return chosen


def _covers(languages: Iterable[str], language: str) -> bool:
    return not language or language in languages
