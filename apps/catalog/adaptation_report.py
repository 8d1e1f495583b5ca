"""The adaptation report of a dataset adapted from another (EsBBQ §3.2.2-3.2.5, Table 1 and
Figure 2): per source category, how many source templates were Simply-Transferred,
Target-Modified, Culturally Transformed or Sample-Removed; how many templates of each target
category were Newly-Created; and which source categories feed which target categories.

`adaptation_counts` is the counting, a pure function of plain records (tested on hand-made
data); `adaptation_report` is the selector that reads them for a dataset. The rules
(docs/studio/adaptation-report.md):

* A **source unit** is what EsBBQ Table 1 counts as one template: one id of a source category
  (BBQ's Q_id: its rows a/b/c and duplicates are one), merged with
  - the other ids of the same category that feed the same target template id (target category +
    question_index): EsBBQ links a common-noun BBQ template and its proper-noun twin (BBQ
    Gender_identity 1 and 26) to one template (its plain and `p` versions), counted once;
  - for a proper-noun source template no target adapts (EsBBQ dropped it), the one common-noun
    unit of its category that asks the same negative or non-negative question (BBQ
    Race_ethnicity 31 "Who was rejected?" is 7's twin), if exactly one does.
* A unit's class: if any of its templates is adapted, the most transformed class among its
  targets (Culturally Transformed over Target-Modified over Simply-Transferred: a template changed
  in any of its adaptations was not simply transferred; a Sample-Removed twin of an adapted
  template counts with it); otherwise Sample-Removed when every template of the unit is
  removed; otherwise to do (undecided, or adapted into templates with no class yet).
* A **target unit** is one template id of a target category (its versions and proper-noun
  version once). It is Newly-Created when none of its templates is linked to a source and
  their class is Newly-Created (or none). Unlinked templates that say they are adapted (a
  `missing-source` finding) are counted apart, as `unlinked`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from apps.core.errors import KasautiError

from . import selectors
from .models import Adaptation, Dataset, Template, TransformationType

# The report's keys, in the order of EsBBQ Table 1 (t, m, then BharatBBQ's CT, then r).
SIMPLY_TRANSFERRED = "simply_transferred"
TARGET_MODIFIED = "target_modified"
CULTURALLY_TRANSFORMED = "culturally_transformed"
SAMPLE_REMOVED = "sample_removed"
TO_DO = "to_do"
NEWLY_CREATED = "newly_created"
OUTCOMES = (SIMPLY_TRANSFERRED, TARGET_MODIFIED, CULTURALLY_TRANSFORMED, SAMPLE_REMOVED)
# The class a link carries, most transformed first (a unit whose targets disagree takes the
# first of its classes in this order).
ADAPTED = (
    (TransformationType.CULTURALLY_TRANSFORMED.value, CULTURALLY_TRANSFORMED),
    (TransformationType.TARGET_MODIFIED.value, TARGET_MODIFIED),
    (TransformationType.SIMPLY_TRANSFERRED.value, SIMPLY_TRANSFERRED),
)
_ADAPTED_CLASSES = dict(ADAPTED)
_NEW_CLASSES = {TransformationType.NEWLY_CREATED.value, ""}


@dataclass(frozen=True)
class SourceTemplate:
    id: int
    category: str
    question_index: str
    proper_noun: bool = False
    questions: tuple[str, ...] = ()  # its negative and non-negative questions


@dataclass(frozen=True)
class TargetTemplate:
    id: int
    category: str
    question_index: str
    transformation_type: str = ""  # of its current version


@dataclass(frozen=True)
class Link:
    source: int
    target: int | None  # None: the source is Sample-Removed


@dataclass
class SourceUnit:
    """One template as EsBBQ Table 1 counts it: the source templates it groups, its outcome,
    the target categories it feeds and why its templates were merged."""

    category: str
    question_indexes: list[str]
    outcome: str
    target_categories: list[str] = field(default_factory=list)
    classes: list[str] = field(default_factory=list)  # the targets' classes (ST, TM, CT)
    twins_by_question: list[str] = field(default_factory=list)  # ids joined by the question rule

    @property
    def label(self) -> str:
        return f"{self.category} {'+'.join(self.question_indexes)}"


@dataclass
class AdaptationCounts:
    source: str
    by_category: dict[str, dict[str, int]]
    newly_created: dict[str, int]
    total: dict[str, int]
    reconstruction: dict[str, dict[str, int]]  # source category -> target category -> units
    units: list[SourceUnit]
    unlinked: dict[str, int]  # target category -> adapted templates with no source link
    has_to_do: bool

    def as_dict(self) -> dict[str, Any]:
        """The report as `adaptation_report --json` prints it (to_do only when some source
        template is undecided)."""
        keys = OUTCOMES + ((TO_DO,) if self.has_to_do else ())
        return {
            "source": self.source,
            "by_category": {
                name: {key: counts[key] for key in keys}
                for name, counts in self.by_category.items()
            },
            "newly_created": dict(self.newly_created),
            "total": {key: self.total[key] for key in (*keys, NEWLY_CREATED)},
        }

    @property
    def disagreements(self) -> list[SourceUnit]:
        """Units whose targets carry more than one class."""
        return [unit for unit in self.units if len(unit.classes) > 1]

    def rows(self) -> list[dict[str, Any]]:
        """The table per source category, with each category's number of source units."""
        keys = OUTCOMES + ((TO_DO,) if self.has_to_do else ())
        return [
            {"category": name, "units": sum(counts[k] for k in keys), **counts}
            for name, counts in self.by_category.items()
        ]


def _question(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


class _Units:
    """Union-find over source template ids."""

    def __init__(self, ids: list[int]) -> None:
        self.parent = {i: i for i in ids}

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def join(self, a: int, b: int) -> None:
        a, b = self.find(a), self.find(b)
        if a != b:
            self.parent[max(a, b)] = min(a, b)


def adaptation_counts(
    *,
    source: str,
    sources: list[SourceTemplate],
    targets: list[TargetTemplate],
    links: list[Link],
) -> AdaptationCounts:
    """Count an adaptation (the module's doc gives the rules). `sources` and `targets` in
    their datasets' order: categories are listed in the order they first appear."""
    by_id = {s.id: s for s in sources}
    target_by_id = {t.id: t for t in targets}
    units = _Units([s.id for s in sources])
    first_of: dict[tuple[str, str], int] = {}
    for s in sources:  # one id of a category is one unit (BBQ's a/b rows)
        key = (s.category, s.question_index.strip())
        units.join(first_of.setdefault(key, s.id), s.id)
    adapted_by: dict[int, list[TargetTemplate]] = defaultdict(list)
    removed: set[int] = set()
    feeds: dict[tuple[str, str], list[int]] = defaultdict(list)  # target unit -> sources
    for link in links:
        if link.source not in by_id:
            continue
        if link.target is None:
            removed.add(link.source)
            continue
        target = target_by_id.get(link.target)
        if target is None:
            continue
        adapted_by[link.source].append(target)
        feeds[target.category, target.question_index.strip()].append(link.source)
    for fed in feeds.values():  # twins adapted into one target template: one unit
        first_in: dict[str, int] = {}
        for source_id in fed:
            category = by_id[source_id].category
            units.join(first_in.setdefault(category, source_id), source_id)
    adapted_roots = {units.find(i) for i in adapted_by}
    # A proper-noun twin left unadapted joins the one common-noun unit asking its question.
    asked: dict[tuple[str, str], set[int]] = defaultdict(set)
    for s in sources:
        if not s.proper_noun:
            for question in filter(None, map(_question, s.questions)):
                asked[s.category, question].add(s.id)
    joined: set[tuple[str, str]] = set()  # (category, id) of the twins joined by question
    for s in sources:
        root = units.find(s.id)
        if not s.proper_noun or root in adapted_roots:
            continue
        candidates = {
            units.find(other)
            for question in filter(None, map(_question, s.questions))
            for other in asked.get((s.category, question), ())
        } - {root}
        if len(candidates) == 1:
            common = candidates.pop()
            units.join(common, root)
            if common in adapted_roots:
                adapted_roots.add(units.find(root))
            joined.add((s.category, s.question_index.strip()))
    return _count(source, sources, targets, links, units, adapted_by, removed, joined)


def _count(
    source: str,
    sources: list[SourceTemplate],
    targets: list[TargetTemplate],
    links: list[Link],
    units: _Units,
    adapted_by: dict[int, list[TargetTemplate]],
    removed: set[int],
    joined: set[tuple[str, str]],
) -> AdaptationCounts:
    members: dict[int, list[SourceTemplate]] = defaultdict(list)
    for s in sources:
        members[units.find(s.id)].append(s)
    by_category: dict[str, dict[str, int]] = {}
    reconstruction: dict[str, dict[str, int]] = {}
    result_units: list[SourceUnit] = []
    for s in sources:
        by_category.setdefault(s.category, {key: 0 for key in (*OUTCOMES, TO_DO)})
        reconstruction.setdefault(s.category, {})
    for group in members.values():
        category = group[0].category
        adapted = [t for s in group for t in adapted_by.get(s.id, [])]
        classes = sorted(
            {t.transformation_type for t in adapted if t.transformation_type in _ADAPTED_CLASSES}
        )
        if adapted:
            outcome = next((key for code, key in ADAPTED if code in classes), TO_DO)
        elif all(s.id in removed for s in group):
            outcome = SAMPLE_REMOVED
        else:
            outcome = TO_DO
        target_categories = list(dict.fromkeys(t.category for t in adapted))
        by_category[category][outcome] += 1
        for name in target_categories:
            reconstruction[category][name] = reconstruction[category].get(name, 0) + 1
        result_units.append(
            SourceUnit(
                category=category,
                question_indexes=list(dict.fromkeys(s.question_index for s in group)),
                outcome=outcome,
                target_categories=target_categories,
                classes=classes,
                twins_by_question=list(
                    dict.fromkeys(
                        s.question_index
                        for s in group
                        if (s.category, s.question_index.strip()) in joined
                    )
                ),
            )
        )
    linked_targets = {link.target for link in links if link.target is not None}
    target_units: dict[tuple[str, str], list[TargetTemplate]] = defaultdict(list)
    for t in targets:
        target_units[t.category, t.question_index.strip()].append(t)
    newly_created: dict[str, int] = {}
    unlinked: dict[str, int] = {}
    for (category, _), group in target_units.items():
        if any(t.id in linked_targets for t in group):
            continue
        if all(t.transformation_type in _NEW_CLASSES for t in group):
            newly_created[category] = newly_created.get(category, 0) + 1
        else:
            unlinked[category] = unlinked.get(category, 0) + 1
    total = {key: sum(counts[key] for counts in by_category.values()) for key in (*OUTCOMES, TO_DO)}
    total[NEWLY_CREATED] = sum(newly_created.values())
    return AdaptationCounts(
        source=source,
        by_category=by_category,
        newly_created=newly_created,
        total=total,
        reconstruction=reconstruction,
        units=result_units,
        unlinked=unlinked,
        has_to_do=total[TO_DO] > 0,
    )


def _unit_id(question_index: str, external_id: str) -> str:
    """The id a template is counted under: its question index (BBQ's Q_id, shared by its a/b
    rows), or, for a template that has none, its own id: templates with no question index are
    not one template."""
    return question_index.strip() or f"#{external_id}"


def adaptation_report(*, dataset: Dataset) -> AdaptationCounts:
    """The adaptation report of `dataset` (KasautiError if it adapts no dataset)."""
    source = dataset.adapted_from
    if source is None:
        raise KasautiError(
            f"{dataset.name} adapts no dataset: import it with --adapted-from SOURCE or set "
            "its source"
        )
    source_templates = list(
        Template.objects.filter(dataset=source)
        .order_by("position", "id")
        .values_list("pk", "category__name", "question_index", "external_id")
    )
    current = {
        template_id: (proper, negative, non_negative)
        for template_id, proper, negative, non_negative in selectors.template_current_versions(
            dataset=source
        ).values_list("template_id", "proper_noun", "question_negative", "question_non_negative")
    }
    classes = dict(
        selectors.template_current_versions(dataset=dataset).values_list(
            "template_id", "transformation_type"
        )
    )
    target_templates = Template.objects.filter(dataset=dataset).order_by("position", "id")
    return adaptation_counts(
        source=source.name,
        sources=[
            SourceTemplate(
                id=pk,
                category=category,
                question_index=_unit_id(question_index, external_id),
                proper_noun=current.get(pk, (False,))[0],
                questions=tuple(current.get(pk, (False, "", ""))[1:]),
            )
            for pk, category, question_index, external_id in source_templates
        ],
        targets=[
            TargetTemplate(
                id=pk,
                category=category,
                question_index=_unit_id(question_index, external_id),
                transformation_type=classes.get(pk, ""),
            )
            for pk, category, question_index, external_id in target_templates.values_list(
                "pk", "category__name", "question_index", "external_id"
            )
        ],
        links=[
            Link(source=s, target=t)
            for s, t in Adaptation.objects.filter(dataset=dataset).values_list(
                "source_id", "template_id"
            )
        ],
    )
