"""Reproduction report: does a dataset hold the benchmark as published? (pure, no database)

`compare_instances(published=[...], kasauti=[...])` pairs each published instance with a Kasauti
instance and counts, per category, how many agree on the context, the question, the two group
answers, the gold answer and all three options (in order). Every disagreement is listed with
its most likely reason:

    whitespace     equal once runs of whitespace are collapsed and ends trimmed
    random draw    the original generator draws it at random with no seed (BharatBBQ's unknown
                   phrase and option order, BBQ's sampled names and option order), so no
                   faithful generator can reproduce the published draw
    finding        the Kasauti template version has findings (a defect in the published
                   template, such as an unfilled placeholder) that explain the difference
    different      none of the above: a real difference to look at

A field can match without its text being equal: two golds that are both the unknown option,
worded differently (a drawn unknown phrase). It counts as matched and is listed apart, as
`same answer, other wording` (Difference.matched), never among the differences, so that
every difference is one missing from its field's matched count.

Pairing, within one category, context condition and question polarity: first identical
(context, question, group answers), then identical after whitespace normalisation, then the same
template id and question in order, then whatever is left in order. Unpaired instances are
counted as published-only or Kasauti-only.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

FIELDS = ("context", "question", "group_answers", "gold_answer", "options")
# A field counted as matched whose text differs (both golds are the unknown option, worded
# differently by a random draw): not a difference.
REWORDED = "same answer, other wording"
UNKNOWN_ROLE = "unknown"
_SPACE = re.compile(r"\s+")
_ID_TOKEN = re.compile(r"[0-9A-Za-z]+")


@dataclass(frozen=True)
class Item:
    """One instance on either side, reduced to what is compared."""

    category: str
    question_index: str
    context_condition: str
    question_polarity: str
    context: str
    question: str
    answers: tuple[str, str, str]
    label: int
    roles: tuple[str, ...]
    ref: str  # where to find it: "Age.jsonl:12" or "instance 345"
    # Kasauti side: kinds of the findings on its template version.
    findings: tuple[str, ...] = ()
    # Kasauti side: whether the original generator draws this instance's names at random.
    drawn: bool = False

    @property
    def group_answers(self) -> tuple[str, ...]:
        pairs = zip(self.answers, self.roles, strict=False)
        return tuple(sorted(answer for answer, role in pairs if role != UNKNOWN_ROLE))

    @property
    def gold(self) -> str:
        return self.answers[self.label] if 0 <= self.label < 3 else ""

    @property
    def gold_role(self) -> str:
        return self.roles[self.label] if 0 <= self.label < len(self.roles) else ""


@dataclass
class Difference:
    category: str
    field: str
    reason: str
    published_ref: str
    kasauti_ref: str
    published: str
    kasauti: str
    # True for a field that counts as matched though its text differs (an unknown gold worded
    # differently): listed apart from the differences, so counts and lists agree.
    matched: bool = False

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class CategoryReport:
    published: int = 0
    kasauti: int = 0
    paired: int = 0
    matched: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FIELDS + ("all",), 0))
    reasons: Counter = field(default_factory=Counter)  # of the differences (not rewordings)

    def as_dict(self) -> dict[str, Any]:
        return {
            "published": self.published,
            "kasauti": self.kasauti,
            "paired": self.paired,
            "matched": dict(self.matched),
            "reasons": dict(sorted(self.reasons.items())),
        }


@dataclass
class Comparison:
    by_category: dict[str, CategoryReport]
    differences: list[Difference]

    @property
    def published(self) -> int:
        return sum(c.published for c in self.by_category.values())

    @property
    def kasauti(self) -> int:
        return sum(c.kasauti for c in self.by_category.values())

    @property
    def matched(self) -> dict[str, int]:
        total = Counter()
        for report in self.by_category.values():
            total.update(report.matched)
        return {name: total[name] for name in FIELDS + ("all",)}

    @property
    def reasons(self) -> dict[str, int]:
        total = Counter()
        for report in self.by_category.values():
            total.update(report.reasons)
        return dict(sorted(total.items()))

    @property
    def mismatches(self) -> list[Difference]:
        """The differences in fields that did not match (each one is missing from the matched
        count of its field)."""
        return [d for d in self.differences if not d.matched]

    @property
    def rewordings(self) -> list[Difference]:
        """Fields counted as matched whose text differs: the same answer, worded otherwise."""
        return [d for d in self.differences if d.matched]

    def as_dict(self, *, limit: int | None = None) -> dict[str, Any]:
        differences = self.differences if limit is None else self.differences[:limit]
        return {
            "published": self.published,
            "kasauti": self.kasauti,
            "matched": self.matched,
            "reasons": self.reasons,
            "by_category": {name: r.as_dict() for name, r in self.by_category.items()},
            "differences": [d.as_dict() for d in differences],
            "differences_total": len(self.differences),
            "rewordings_total": len(self.rewordings),
        }


def squash(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def category_key(name: str) -> str:
    """Category names as both sides spell them ("Disability_status", "Disability status")."""
    return re.sub(r"[\s_\-]+", "", name).casefold()


def template_key(question_index: str) -> str:
    # Kasauti makes repeated ids unique with a suffix ("27" -> "27-2"): compare the leading id.
    match = _ID_TOKEN.search(question_index)
    return match.group(0).casefold() if match else question_index


def _exact(item: Item) -> tuple:
    return (item.context, item.question, item.group_answers)


def _squashed(item: Item) -> tuple:
    return (squash(item.context), squash(item.question), tuple(map(squash, item.group_answers)))


def _by_template(item: Item) -> tuple:
    return (template_key(item.question_index), squash(item.question))


def _pair(
    published: list[Item], kasauti: list[Item], key: Callable[[Item], Any]
) -> tuple[list[tuple[Item, Item]], list[Item], list[Item]]:
    """Pair items with equal keys, in order; return the pairs and both leftovers."""
    waiting: dict[Any, list[Item]] = defaultdict(list)
    for item in kasauti:
        waiting[key(item)].append(item)
    queues = {k: iter(v) for k, v in waiting.items()}
    used: set[int] = set()
    pairs, left = [], []
    for item in published:
        partner = next(queues.get(key(item), iter(())), None)
        if partner is None:
            left.append(item)
        else:
            pairs.append((item, partner))
            used.add(id(partner))
    return pairs, left, [item for item in kasauti if id(item) not in used]


def compare_instances(*, published: Iterable[Item], kasauti: Iterable[Item]) -> Comparison:
    buckets: dict[tuple, tuple[list[Item], list[Item]]] = defaultdict(lambda: ([], []))
    names: dict[str, str] = {}
    for side, items in ((0, published), (1, kasauti)):
        for item in items:
            key = category_key(item.category)
            names.setdefault(key, item.category)  # the published spelling wins
            buckets[(key, item.context_condition, item.question_polarity)][side].append(item)
    reports = {names[key]: CategoryReport() for key in sorted(names, key=lambda k: names[k])}
    differences: list[Difference] = []
    for (key, _, _), (ours_published, ours_kasauti) in sorted(buckets.items()):
        report = reports[names[key]]
        report.published += len(ours_published)
        report.kasauti += len(ours_kasauti)
        pairs: list[tuple[Item, Item]] = []
        left_published, left_kasauti = ours_published, ours_kasauti
        for pairing_key in (_exact, _squashed, _by_template):
            found, left_published, left_kasauti = _pair(left_published, left_kasauti, pairing_key)
            pairs.extend(found)
        pairs.extend(zip(left_published, left_kasauti, strict=False))
        report.paired += len(pairs)
        for original, ours in pairs:
            _compare_pair(names[key], original, ours, report, differences)
        for item in left_published[len(left_kasauti) :]:
            report.reasons["published only"] += 1
            differences.append(
                Difference(names[key], "instance", "published only", item.ref, "", item.context, "")
            )
        for item in left_kasauti[len(left_published) :]:
            report.reasons["kasauti only"] += 1
            differences.append(
                Difference(names[key], "instance", "kasauti only", "", item.ref, "", item.context)
            )
    return Comparison(reports, differences)


def _compare_pair(
    category: str, original: Item, ours: Item, report: CategoryReport, out: list[Difference]
) -> None:
    same = {
        "context": original.context == ours.context,
        "question": original.question == ours.question,
        "group_answers": original.group_answers == ours.group_answers,
        # Both golds "unknown" is the same answer, whichever unknown phrase was drawn.
        "gold_answer": original.gold == ours.gold
        or (original.gold_role == UNKNOWN_ROLE and ours.gold_role == UNKNOWN_ROLE),
        "options": original.answers == ours.answers,
    }
    for name, equal in same.items():
        if equal:
            report.matched[name] += 1
    if all(same.values()):
        report.matched["all"] += 1
    for name, equal in same.items():
        texts = _texts(name, original, ours)
        if equal and texts[0] == texts[1]:
            continue
        if equal:
            # An unknown gold worded differently: the same answer, counted as matched; listed
            # apart (matched=True) so that no difference group contradicts the count.
            out.append(
                Difference(category, name, REWORDED, original.ref, ours.ref, *texts, matched=True)
            )
            continue
        reason = _reason(name, original, ours, texts)
        report.reasons[reason] += 1
        out.append(Difference(category, name, reason, original.ref, ours.ref, *texts))


def _texts(name: str, original: Item, ours: Item) -> tuple[str, str]:
    if name in ("context", "question"):
        return getattr(original, name), getattr(ours, name)
    if name == "group_answers":
        return " | ".join(original.group_answers), " | ".join(ours.group_answers)
    if name == "gold_answer":
        return original.gold, ours.gold
    return " | ".join(original.answers), " | ".join(ours.answers)


def _reason(name: str, original: Item, ours: Item, texts: tuple[str, str]) -> str:
    if squash(texts[0]) == squash(texts[1]):
        return "whitespace"
    if name in ("options", "gold_answer") and _only_drawn(original, ours):
        return "random draw"
    if ours.findings:
        return "finding: " + ", ".join(sorted(set(ours.findings)))
    if ours.drawn and name != "question":
        return "random draw"
    return "different"


def _only_drawn(original: Item, ours: Item) -> bool:
    """The options differ only in what the original draws at random: their order and the
    wording of the unknown option."""
    return [squash(a) for a in original.group_answers] == [
        squash(a) for a in ours.group_answers
    ] and (original.gold_role == ours.gold_role)
