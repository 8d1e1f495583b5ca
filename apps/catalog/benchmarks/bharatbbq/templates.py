"""BharatBBQ (sahoonihar/BharatBBQ `BharatBBQ_Dataset/Templates/<Category>.csv`), read as its
own generator (`create_examples.ipynb`) reads it, with every deviation from clean data kept as
a finding. The templates instantiate with the "bharatbbq" generator (generator.py).

Columns (matched by name, any order, extra columns ignored). Required: Q_id, Category,
Ambiguous_Context, Disambiguating_Context, Names, Pairing, Question_negative (or
Question_negative_stereotype), Question_non_negative, Answer_negative, Answer_non_negative,
Known_stereotyped_groups. Optional: version, Subcategory, Proper Nouns, Lexical_diversity,
NAME1_info, NAME2_info, Known_anti-stereotyped-groups, Relevant_social_values,
Stated_gender_info, Notes (source URLs), needs_val, Transformation_type/_reason,
Kasauti_template (a template written in Kasauti and exported: its exact lists, external id
and generator, as JSON; apps/catalog/exporters.py).

The notebook's rules, and what the reader does with them:
* `Names` and `Lexical_diversity` are `KEY: [v1, v2]` parts split on `;`; the key is cleaned to
  its letters and digits, upper-cased (`{{Word1}}`, `NAME1` -> WORD1, NAME1); the list is a
  Python literal or else the text between the outer brackets split on commas. A `[...}` list
  is read as the notebook reads it (the `}` stays on the last value): finding `parse-repair`.
  A `Names` part that is not `KEY: list` makes the notebook fail on the row: a problem. An
  unreadable `Lexical_diversity` is ignored whole by the notebook: finding `parse-repair`.
* A disambiguating context that names neither NAME is generated as published (finding
  `no-disambiguation`); an empty answer cell is the bare NAME the other answer does not name
  (finding `empty-answer`).
* Only `{{KEY}}` (any case and inner spaces) is a placeholder. `{NAME1}}` or `{[NAME1}}` stay
  in the text as published (finding `parse-repair`); a `{{WORD1}}` no list defines stays too
  (finding `unfilled-placeholder`); a list no text uses is still an axis of the cross product,
  so the published counts hold (finding `unused-placeholder`).
* `Pairing` biased: the NAME of Answer_negative is the stereotyped group; anti: the NAME of
  Answer_non_negative is. Two rows of one Q_id and version whose names are swapped but whose
  Pairing is the same cannot both be right (Gender_identity Q28): finding `likely-mislabel`.
* `Proper Nouns` 1/TRUE = proper names, 0/empty = common nouns, 2 = group labels (sc/st vs
  higher caste): the version's `noun_form`.
* A Q_id can repeat with other Names (Religion Hindu vs Sikh names): every row is a template;
  a repeated id gets a stable suffix `-r2`, `-r3` in file order (finding `duplicate-id`).
External ids are `<Category>-<Q_id><version>-<pn|cn|gl>-<biased|anti>[-rN]`.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from apps.catalog.exporters import KASAUTI_KEY, kasauti_template_fields
from apps.catalog.importers.base import Reader
from apps.catalog.importers.records import FindingRecord, ParseResult, TemplateRecord
from apps.catalog.importers.tables import Row, Table, apply_aliases, missing_columns
from apps.catalog.importers.templates import (
    ANTI_STEREOTYPICAL,
    NAME_AXES,
    STEREOTYPICAL,
    TemplateDraft,
    default_answers,
    finish_template,
    notes_text,
    transformation,
)
from apps.catalog.importers.values import parse_group_list
from apps.catalog.instantiation import answer_name, placeholders_used
from apps.catalog.models import NounForm, TemplateVersion

from . import GENERATOR
from .generator import UNKNOWN_ANSWERS

ALIASES = {
    "question_negative_stereotype": "question_negative",
    "proper_nouns_only": "proper_nouns",
    "transformation": "transformation_type",
    "known_anti_stereotyped_groups": "known_non_stereotyped_groups",
}
REQUIRED = (
    "q_id",
    "category",
    *TemplateVersion.TEXT_FIELDS,
    "names",
    "pairing",
    "known_stereotyped_groups",
)
COLUMNS = {
    **{name: name for name in TemplateVersion.TEXT_FIELDS},
    "names": "names",
    "lexical": "lexical_diversity",
    "pairing": "pairing",
    "subcategory": "subcategory",
}
_PAIRING_WORDS = {
    "biased": STEREOTYPICAL,
    "bias": STEREOTYPICAL,
    "stereo": STEREOTYPICAL,
    "np": STEREOTYPICAL,
    "anti": ANTI_STEREOTYPICAL,
    "antistereo": ANTI_STEREOTYPICAL,
    "nnp": ANTI_STEREOTYPICAL,
}
_NOUN_FORMS = {
    "": NounForm.COMMON_NOUN,
    "0": NounForm.COMMON_NOUN,
    "false": NounForm.COMMON_NOUN,
    "1": NounForm.PROPER_NAME,
    "true": NounForm.PROPER_NAME,
    "2": NounForm.GROUP_LABEL,
}
_NOUN_TAGS = {NounForm.PROPER_NAME: "pn", NounForm.COMMON_NOUN: "cn", NounForm.GROUP_LABEL: "gl"}
# What the notebook substitutes: {{KEY}}, any case, spaces inside the braces.
_PLACEHOLDER_RE = re.compile(r"\{\{\s*((?:NAME|WORD)\d+)\s*\}\}", re.IGNORECASE)
# Anything that looks like a placeholder, braces or brackets however typed.
_LOOSE_RE = re.compile(r"[{\[]+\s*(?:NAME|WORD)\s*\d+\s*[}\]]+", re.IGNORECASE)
_CLEAN_LIST_RE = re.compile(r"\s*\[[^\[\]{}]*\]\s*")


class UnreadableList(ValueError):
    """A `Names` cell the notebook itself fails on."""


def parse_mapping(text: str) -> tuple[dict[str, list[str]], list[str]]:
    """The notebook's parse_mapping: (key -> values, what had to be read leniently)."""
    mapping: dict[str, list[str]] = {}
    repairs: list[str] = []
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        pieces = part.split(":")
        if len(pieces) != 2:
            raise UnreadableList(
                f"cannot read {part[:60]!r}: expected one `KEY: [value, ...]` per `;`-separated "
                "part (BharatBBQ's generator fails on this row too)"
            )
        key, body = pieces
        key = re.sub(r"[^A-Za-z0-9]", "", key).upper()
        try:
            values = ast.literal_eval(body.strip())
            if isinstance(values, str):
                values = [values]
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            values = [value.strip() for value in body.strip("[] ").split(",")]
            if not _CLEAN_LIST_RE.fullmatch(body):
                repairs.append(
                    f"{key}: the list {body.strip()!r} is not `[v1, v2]`; read as BharatBBQ's "
                    f"generator reads it: {values}"
                )
        if not isinstance(values, (list, tuple)) or not all(isinstance(v, str) for v in values):
            raise UnreadableList(f"{key}: {body.strip()!r} is not a list of words")
        mapping[key] = list(values)
    return mapping, repairs


def normalise_text(text: str, defined: set[str]) -> str:
    """`{{ word1 }}` -> `{{WORD1}}` for the keys the row defines (the notebook substitutes
    them case-insensitively); everything else stays exactly as published."""

    def canonical(match: re.Match[str]) -> str:
        key = match.group(1).upper()
        return "{{" + key + "}}" if key in defined else match.group(0)

    return _PLACEHOLDER_RE.sub(canonical, text)


@dataclass
class _Seen:
    line: int
    record: TemplateRecord
    pairing: str
    names: tuple[tuple[str, ...], tuple[str, ...]]


class BharatBbqReader(Reader):
    format = "bharatbbq"
    template_format = True

    def read(self, tables: list[Table], result: ParseResult) -> None:
        self.ids: dict[str, list[int]] = {}  # base external id -> lines, across the import
        super().read(tables, result)

    def read_table(self, table: Table, result: ParseResult) -> None:
        apply_aliases(table, ALIASES)
        problems = list(missing_columns(table, REQUIRED))
        if problems:
            result.problems.extend(problems)
            return
        groups: dict[tuple[str, str, str, str], list[_Seen]] = {}
        for row in table.rows:
            self.read_row(table, row, result, groups)

    def read_row(
        self,
        table: Table,
        row: Row,
        result: ParseResult,
        groups: dict[tuple[str, str, str, str], list[_Seen]],
    ) -> None:
        file, line = table.file, row.line
        findings: list[FindingRecord] = []

        def finding(key: str, kind: str, message: str, original: str = "") -> None:
            findings.append(FindingRecord(file, line, table.label(key), kind, message, original))

        before = len(result.problems)
        for key in ("category", "q_id"):
            if not row.get(key):
                result.problem(file, line, table.label(key), "is empty")
        pairing = _PAIRING_WORDS.get(row.get("pairing").lower())
        if pairing is None:
            result.problem(
                file,
                line,
                table.label("pairing"),
                f"expected biased or anti, got {row.get('pairing')!r}",
            )
        noun_form = _NOUN_FORMS.get(row.get("proper_nouns").lower())
        if noun_form is None:
            result.problem(
                file,
                line,
                table.label("proper_nouns"),
                f"expected 1 (proper names), 0 (common nouns) or 2 (group labels), got "
                f"{row.get('proper_nouns')!r}",
            )
        kind = transformation(row.get("transformation_type"))
        if kind is None:
            result.problem(
                file,
                line,
                table.label("transformation_type"),
                f"unknown transformation {row.get('transformation_type')!r}: use SR, TM, CT, "
                "ST or NC",
            )
        try:
            placeholders, repairs = parse_mapping(row.get("names"))
        except UnreadableList as error:
            result.problem(file, line, table.label("names"), f"unparseable value list: {error}")
            placeholders, repairs = {}, []
        # Which column lists which key, in the row's order: the notebook walks its cross
        # product in that order, and the export writes it back (PostgreSQL's jsonb does not
        # keep a dict's key order).
        key_order = {"names": list(placeholders), "lexical_diversity": []}
        for repair in repairs:
            finding("names", "parse-repair", repair, row.get("names"))
        lexical = row.get("lexical_diversity")
        if lexical:
            try:
                words, repairs = parse_mapping(lexical)
            except UnreadableList as error:
                # The notebook wraps this parse in `except Exception: pass`.
                finding(
                    "lexical_diversity",
                    "parse-repair",
                    f"{error}; BharatBBQ's generator ignores the whole cell, so its "
                    "placeholders stay unfilled",
                    lexical,
                )
            else:
                placeholders.update(words)
                key_order["lexical_diversity"] = list(words)
                for repair in repairs:
                    finding("lexical_diversity", "parse-repair", repair, lexical)
        kasauti: dict | None = None
        if row.get(KASAUTI_KEY):
            # A template written in Kasauti, exported (apps/catalog/exporters.py): its exact
            # lists and Kasauti's generator, from the column BharatBBQ's notebook ignores.
            try:
                kasauti = kasauti_template_fields(row.get(KASAUTI_KEY))
            except ValueError as error:
                result.problem(file, line, table.label(KASAUTI_KEY), str(error))
            else:
                placeholders = kasauti["placeholders"]
        if len(result.problems) > before or pairing is None or noun_form is None:
            return

        defined = set(placeholders)
        # The texts as published, spaces at their ends included: the notebook keeps them (an
        # ambiguous context ending in a space gives a double space before the disambiguation).
        texts = {
            name: normalise_text(row.get_raw(name), defined) for name in TemplateVersion.TEXT_FIELDS
        }
        empty = [
            name for name in ("answer_negative", "answer_non_negative") if not texts[name].strip()
        ]
        default_answers(texts)
        for name in empty:
            finding(
                name,
                "empty-answer",
                f"the answer is empty; taken as {texts[name]}, the NAME the other answer does "
                "not name",
            )
        used: set[str] = set()
        for name, text in texts.items():
            for match in _LOOSE_RE.finditer(text):
                token = match.group(0)
                proper = _PLACEHOLDER_RE.fullmatch(token)
                if proper is None:
                    finding(
                        name,
                        "parse-repair",
                        f"{token} is not a placeholder (BharatBBQ's generator fills only "
                        "{{NAME1}}-style ones): it stays in the text as published",
                        row.get(name),
                    )
                elif proper.group(1).upper() not in defined:
                    finding(
                        name,
                        "unfilled-placeholder",
                        f"{token} is used but no list defines it: generated as published, "
                        "with the placeholder in the text",
                        row.get(name),
                    )
                else:
                    used.add(proper.group(1).upper())
        for key in sorted(defined - used - set(NAME_AXES)):
            source = "names" if key in _keys(row.get("names")) else "lexical_diversity"
            finding(
                source,
                "unused-placeholder",
                f"{key} is defined but no text uses it; it still multiplies the instances, "
                "as in BharatBBQ's generator",
                row.get(source),
            )

        if not any(
            name.startswith("NAME") for name in placeholders_used(texts["disambiguating_context"])
        ):
            finding(
                "disambiguating_context",
                "no-disambiguation",
                "the disambiguating context names neither NAME1 nor NAME2, so it cannot tell "
                "the two apart; generated as published",
                row.get("disambiguating_context"),
            )
        answer_field = "answer_negative" if pairing == STEREOTYPICAL else "answer_non_negative"
        target = answer_name(texts[answer_field]) or "NAME1"
        category, q_id, version = row.get("category"), row.get("q_id"), row.get("version")
        tag = f"{_NOUN_TAGS[noun_form]}-{'biased' if pairing == STEREOTYPICAL else 'anti'}"
        external_id = f"{category}-{q_id}{version}-{tag}"
        # A Kasauti-written row keeps its own id and does not count as a repeat.
        lines = self.ids.setdefault(external_id, []) if kasauti is None else [line]
        if kasauti is None:
            lines.append(line)
        if len(lines) > 1:
            suffixed = f"{external_id}-r{len(lines)}"
            finding(
                "q_id",
                "duplicate-id",
                f"Q_id {q_id}{version} ({tag}) repeats line {lines[0]} with other values; "
                f"both are templates, this one as {suffixed}",
                q_id,
            )
            external_id = suffixed
        infos = {axis: parse_group_list(row.get(f"{axis.lower()}_info")) for axis in NAME_AXES}
        extra = {
            "proper_noun": noun_form == NounForm.PROPER_NAME,
            "noun_form": noun_form.value,
            "generator": GENERATOR,
            "generator_data": {
                **({"unknown_expressions": list(UNKNOWN_ANSWERS)} if self.language == "en" else {}),
                "key_order": key_order,
            },
            "stereotyped_groups": parse_group_list(row.get("known_stereotyped_groups")),
            "non_stereotyped_groups": parse_group_list(row.get("known_non_stereotyped_groups")),
            "subcategory": row.get("subcategory"),
            "transformation_type": kind,
            "transformation_reason": row.get("transformation_reason"),
            "source": row.get("notes"),
            "notes": notes_text(
                {
                    table.label(key): row.get(key)
                    for key in ("relevant_social_values", "stated_gender_info", "needs_val")
                }
            ),
        }
        placeholder_groups = {
            axis: [", ".join(infos[axis])] * len(placeholders[axis])
            for axis in NAME_AXES
            if infos[axis] and placeholders.get(axis)
        }
        if kasauti is not None:
            external_id = kasauti["external_id"]
            placeholder_groups = kasauti.get("placeholder_groups") or {}
            target = kasauti.get("target_placeholder") or target
            pairing = kasauti.get("pairing") or pairing
            extra.update(
                generator=kasauti["generator"],
                generator_data=kasauti.get("generator_data") or {},
                noun_form=kasauti.get("noun_form", extra["noun_form"]),
                proper_noun=bool(kasauti.get("proper_noun", extra["proper_noun"])),
            )
        draft = TemplateDraft(
            table=table,
            row=row,
            columns=COLUMNS,
            external_id=external_id,
            category=category,
            question_index=q_id,
            variant=version,
            language=kasauti.get("language") or self.language if kasauti else self.language,
            texts=texts,
            placeholders=placeholders,
            placeholder_groups=placeholder_groups,
            target_placeholder=target,
            pairing=pairing,
            extra=extra,
        )
        record = finish_template(draft, result)
        if record is None:
            return
        record.findings.extend(findings)
        names = (tuple(placeholders.get("NAME1", ())), tuple(placeholders.get("NAME2", ())))
        negative = answer_name(texts["answer_negative"]) or "NAME1"
        negative_values = ", ".join(placeholders.get(negative, []))
        group = groups.setdefault((category, q_id, version, noun_form.value), [])
        for seen in group:
            if seen.pairing == pairing and seen.names == names[::-1]:
                record.findings.append(
                    FindingRecord(
                        file,
                        line,
                        table.label("pairing"),
                        "likely-mislabel",
                        f"Pairing is {row.get('pairing')} here and on line {seen.line}, but the "
                        f"two rows have NAME1 and NAME2 swapped, so one of them should be the "
                        f"other pairing (Answer_negative names {negative_values} here)",
                        row.get("pairing"),
                    )
                )
        group.append(_Seen(line, record, pairing, names))


def _keys(text: str) -> set[str]:
    try:
        return set(parse_mapping(text)[0])
    except UnreadableList:
        return set()
