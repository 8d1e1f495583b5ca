"""Reads for the vocabulary editor (docs/studio/vocabulary.md): a vocabulary's lines with
their definite forms, the token that says whether the list changed since an editor loaded it,
what changed between two lists, the editor's text format, a vocabulary's history (its
revisions, each with what it changed), and the unknown-answer expressions per language.

Definite forms. A language that puts an article before a name (Catalan: "el Josep", "la
Montserrat"; EsBBQ's `name_def_ca`) keeps them in a parallel vocabulary named
`<name>-def`, in the same language, aligned index by index with `<name>`: the same number of
entries, the same group label at each position. A template's NAME1-def list references it
with the same groups as its NAME1 list, so the two resolve to aligned lists (templates'
-def lists are index-aligned with their bare list)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass

from django.db.models import Count

from .models import (
    LANGUAGE_NAMES,
    UnknownExpression,
    Vocabulary,
    VocabularyEntry,
    VocabularyRevision,
)
from .selectors import template_current_versions

DEFINITE_SUFFIX = "-def"
# The editor's columns, separated by "|" (or a tab, as pasted from a spreadsheet).
COLUMNS = ("value", "group", "definite form")


@dataclass(frozen=True)
class VocabularyLine:
    """One entry as the editor shows it: its value, group label and (where the vocabulary
    keeps them) definite form; `line` is the editor line it came from (0: from the database)."""

    value: str
    group: str = ""
    definite: str = ""
    line: int = 0

    def key(self) -> tuple[str, str, str]:
        return (self.value, self.group, self.definite)


def definite_name(name: str) -> str:
    return f"{name}{DEFINITE_SUFFIX}"


def vocabulary_definite_partner(*, vocabulary: Vocabulary) -> Vocabulary | None:
    """The `<name>-def` vocabulary holding `vocabulary`'s definite forms, if it keeps any."""
    return Vocabulary.objects.filter(
        name=definite_name(vocabulary.name), language=vocabulary.language
    ).first()


def vocabulary_definite_base(*, vocabulary: Vocabulary) -> Vocabulary | None:
    """For a `<name>-def` vocabulary, `<name>` (whose page edits both), if it exists."""
    if not vocabulary.name.endswith(DEFINITE_SUFFIX):
        return None
    return Vocabulary.objects.filter(
        name=vocabulary.name[: -len(DEFINITE_SUFFIX)], language=vocabulary.language
    ).first()


def vocabulary_lines(*, vocabulary: Vocabulary) -> list[VocabularyLine]:
    """The entries in order, each with its definite form (from `<name>-def`, by position)."""
    partner = vocabulary_definite_partner(vocabulary=vocabulary)
    definite = (
        list(partner.entries.order_by("position", "id").values_list("value", flat=True))
        if partner
        else []
    )
    return [
        VocabularyLine(
            value=value,
            group=group,
            definite=definite[i] if i < len(definite) else "",
        )
        for i, (value, group) in enumerate(
            vocabulary.entries.order_by("position", "id").values_list("value", "group")
        )
    ]


def vocabulary_token(*, vocabulary: Vocabulary, lines: list[VocabularyLine] | None = None) -> str:
    """A digest of the vocabulary as an editor sees it (description, entries, definite forms):
    a save based on another token is refused, since the list changed meanwhile."""
    if lines is None:
        lines = vocabulary_lines(vocabulary=vocabulary)
    payload = json.dumps(
        [vocabulary.description, [line.key() for line in lines]], ensure_ascii=False
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def vocabulary_text(*, lines: list[VocabularyLine], definite: bool) -> str:
    """The editor's text for `lines`: one entry a line, "value | group[ | definite form]"."""
    return "\n".join(
        " | ".join([line.value, line.group] + ([line.definite] if definite else []))
        for line in lines
    )


def vocabulary_text_parse(*, text: str) -> tuple[list[VocabularyLine], list[tuple[int, str]]]:
    """The editor's text as lines (blank lines skipped, line numbers kept), and the problems
    of shape ((line, message): too many columns). Values are checked by the service."""
    lines, problems = [], []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        cells = [cell.strip() for cell in raw.split("\t" if "\t" in raw else "|")]
        if len(cells) > len(COLUMNS):
            problems.append(
                (
                    number,
                    f"{len(cells)} columns; a line is {' | '.join(COLUMNS)} "
                    "(a value cannot contain '|')",
                )
            )
            continue
        cells += [""] * (len(COLUMNS) - len(cells))
        lines.append(VocabularyLine(value=cells[0], group=cells[1], definite=cells[2], line=number))
    return lines, problems


@dataclass(frozen=True)
class LineChange:
    kind: str  # "added", "removed", "changed", "moved"
    value: str
    before: str = ""
    after: str = ""


def vocabulary_lines_diff(
    *, before: list[VocabularyLine], after: list[VocabularyLine]
) -> list[LineChange]:
    """What changed from `before` to `after`, entry by entry (entries are known by value):
    added and removed values, changed group labels or definite forms, and a changed order."""

    def describe(line: VocabularyLine) -> str:
        return " | ".join(part for part in (line.group, line.definite) if part)

    old = {line.value: line for line in before}
    new = {line.value: line for line in after}
    changes = [
        LineChange("removed", line.value, before=describe(line))
        for line in before
        if line.value not in new
    ]
    for line in after:
        if line.value not in old:
            changes.append(LineChange("added", line.value, after=describe(line)))
        elif old[line.value].key() != line.key():
            changes.append(
                LineChange(
                    "changed", line.value, before=describe(old[line.value]), after=describe(line)
                )
            )
    common_before = [line.value for line in before if line.value in new]
    common_after = [line.value for line in after if line.value in old]
    if common_before != common_after:
        changes.append(LineChange("moved", "", before="order changed", after=""))
    return changes


def revision_entries(lines: list[VocabularyLine]) -> list[dict]:
    """`lines` as a revision stores them: [{"value", "group", "definite"}], in order."""
    return [{"value": x.value, "group": x.group, "definite": x.definite} for x in lines]


def revision_lines(entries: list[dict]) -> list[VocabularyLine]:
    """A revision's stored entries as lines (numbered from 1, as the editor would)."""
    return [
        VocabularyLine(
            value=entry.get("value", ""),
            group=entry.get("group", ""),
            definite=entry.get("definite", ""),
            line=i,
        )
        for i, entry in enumerate(entries, start=1)
    ]


@dataclass
class RevisionRow:
    revision: VocabularyRevision
    lines: list[VocabularyLine]
    # What changed from the previous revision (vocabulary_lines_diff); None for the first.
    changes: list[LineChange] | None
    current: bool  # the vocabulary's entries are this list now
    definite: bool  # the list has definite forms
    same_as: int | None = None  # the latest earlier revision with this very list (a restore)

    @property
    def text(self) -> str:
        return vocabulary_text(lines=self.lines, definite=self.definite)


def vocabulary_history(
    *, vocabulary: Vocabulary, lines: list[VocabularyLine] | None = None
) -> list[RevisionRow]:
    """`vocabulary`'s revisions, newest first, each with what changed from the one before
    (the same diff as a refused save shows), the earlier revision it repeats (a restore) and
    whether it is the current list (`lines`, the vocabulary's lines if not given). One query."""
    if lines is None:
        lines = vocabulary_lines(vocabulary=vocabulary)
    now = [line.key() for line in lines]
    rows: list[RevisionRow] = []
    previous: list[VocabularyLine] | None = None
    seen: dict[tuple, int] = {}
    for revision in vocabulary.revisions.select_related("saved_by").order_by("number"):
        saved = revision_lines(revision.entries)
        key = tuple(line.key() for line in saved)
        rows.append(
            RevisionRow(
                revision=revision,
                lines=saved,
                changes=None
                if previous is None
                else vocabulary_lines_diff(before=previous, after=saved),
                current=False,
                definite=any(line.definite for line in saved),
                same_as=seen.get(key),
            )
        )
        seen[key] = revision.number
        previous = saved
    if rows and [line.key() for line in rows[-1].lines] == now:
        rows[-1].current = True
    rows.reverse()
    return rows


@dataclass
class VocabularyUse:
    template_id: int
    external_id: str
    dataset: str
    number: int  # the current version
    placeholders: list[str]  # which of its lists copied the vocabulary's values


def vocabulary_uses(*, vocabulary: Vocabulary) -> list[VocabularyUse]:
    """The templates whose current version copied values from `vocabulary` (or its definite
    forms), from their `placeholder_sources`: they keep those values until their next edit.
    One query (read in Python: the JSON lookup must also run on SQLite)."""
    names = {vocabulary.name, definite_name(vocabulary.name)}
    uses = []
    for template_id, external_id, dataset, number, sources in (
        template_current_versions()
        .exclude(placeholder_sources={})
        .order_by("template__dataset__name", "template__external_id")
        .values_list(
            "template_id",
            "template__external_id",
            "template__dataset__name",
            "number",
            "placeholder_sources",
        )
    ):
        used = sorted(
            name
            for name, ref in (sources or {}).items()
            if isinstance(ref, dict)
            and ref.get("vocabulary") in names
            and ref.get("language", vocabulary.language) == vocabulary.language
        )
        if used:
            uses.append(VocabularyUse(template_id, external_id, dataset, number, used))
    return uses


@dataclass
class VocabularyRow:
    vocabulary: Vocabulary
    entries: int
    groups: list[str]
    definite: Vocabulary | None


def vocabulary_rows() -> list[VocabularyRow]:
    """Every vocabulary but the `-def` ones that belong to another (shown with it), with its
    entry count and group labels. Two queries."""
    vocabularies = list(
        Vocabulary.objects.annotate(n=Count("entries")).order_by("name", "language")
    )
    by_key = {(v.name, v.language): v for v in vocabularies}
    groups: dict[int, Counter] = {}
    for vocabulary_id, group in VocabularyEntry.objects.order_by("position").values_list(
        "vocabulary_id", "group"
    ):
        groups.setdefault(vocabulary_id, Counter())[group] += 1
    rows = []
    for v in vocabularies:
        if (
            v.name.endswith(DEFINITE_SUFFIX)
            and (v.name[: -len(DEFINITE_SUFFIX)], v.language) in by_key
        ):
            continue
        rows.append(
            VocabularyRow(
                vocabulary=v,
                entries=v.n,
                groups=list(groups.get(v.pk, {})),
                definite=by_key.get((definite_name(v.name), v.language)),
            )
        )
    return rows


@dataclass
class LanguageUnknowns:
    language: str
    name: str
    expressions: list[UnknownExpression]
    templates: int  # templates whose current version is in this language

    @property
    def blocked(self) -> bool:
        """Templates in this language cannot be instantiated: no unknown answer to draw."""
        return self.templates > 0 and not self.expressions


def unknown_expressions_by_language() -> list[LanguageUnknowns]:
    """The unknown-answer expressions of every language that has some, has templates or is
    known by name; languages whose templates cannot be instantiated first. Two queries."""
    expressions: dict[str, list[UnknownExpression]] = {}
    for expression in UnknownExpression.objects.order_by("language", "position", "text"):
        expressions.setdefault(expression.language, []).append(expression)
    templates = Counter(
        dict(
            template_current_versions()
            .order_by()
            .values("language")
            .annotate(n=Count("id"))
            .values_list("language", "n")
        )
    )
    languages = set(LANGUAGE_NAMES) | set(expressions) | set(templates)
    rows = [
        LanguageUnknowns(
            language=code,
            name=LANGUAGE_NAMES.get(code, code),
            expressions=expressions.get(code, []),
            templates=templates[code],
        )
        for code in languages
    ]
    rows.sort(key=lambda r: (not r.blocked, r.name.lower()))
    return rows
