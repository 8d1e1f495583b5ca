"""BBQ (nyu-mll/BBQ `new_templates - <Category>.csv`); BharatBBQ has its own reader
(bharatbbq.py).

One template per row with the columns below (matched by name, any order, extra
columns ignored). Required: Q_id, Category, Ambiguous_Context, Disambiguating_Context,
Question_negative (or Question_negative_stereotype), Question_non_negative, Answer_negative,
Answer_non_negative, Known_stereotyped_groups.
Optional: version, Subcategory, Names, Proper_nouns_only (or "Proper Nouns"),
Lexical_diversity, NAME1_info, NAME2_info, Known_anti-stereotyped-groups,
Relevant_social_values, Stated_gender_info, Notes (source URLs), Transformation_type,
Transformation_reason, Original_BBQ_id.

Who is the stereotyped NAME: BBQ does not say (BharatBBQ's `Pairing` does); the NAME whose
values or NAMEn_info code appear in Known_stereotyped_groups is the target, and the template is
stereotypical iff Answer_negative names it. Templates with no Names take NAME1/NAME2 from a
`vocabulary.csv` given among the files (NAME1 = the category's names in
Known_stereotyped_groups, NAME2 = the others, all of them: no downsampling), or for proper-noun
templates from `vocabulary_proper_names.csv` (first names whose ethnicity or gender is a
stereotyped group vs the other first names; no random last names).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .base import Reader
from .records import ParseResult
from .tables import Row, Table, apply_aliases, missing_columns
from .templates import (
    NAME_AXES,
    TemplateDraft,
    finish_template,
    notes_text,
    pairing_for,
    read_lists,
    read_texts,
    target_from_groups,
    transformation,
)
from .values import parse_flag, parse_group_list

ALIASES = {
    "question_negative_stereotype": "question_negative",
    "proper_nouns": "proper_nouns_only",
    "transformation": "transformation_type",
    "known_anti_stereotyped_groups": "known_non_stereotyped_groups",
}
TEXT_COLUMNS = {
    "ambiguous_context": "ambiguous_context",
    "disambiguating_context": "disambiguating_context",
    "question_negative": "question_negative",
    "question_non_negative": "question_non_negative",
    "answer_negative": "answer_negative",
    "answer_non_negative": "answer_non_negative",
}
COLUMNS = {
    **TEXT_COLUMNS,
    "names": "names",
    "lexical": "lexical_diversity",
    "target_placeholder": "known_stereotyped_groups",
    "pairing": "pairing",
    "subcategory": "subcategory",
    "original_bbq_id": "original_bbq_id",
}
CORE_REQUIRED = (
    "q_id",
    "category",
    *TEXT_COLUMNS.values(),
    "known_stereotyped_groups",
)


def _loose(text: str) -> str:
    """Category labels differ between files ("Race_ethnicity" vs "RaceEthnicity")."""
    return re.sub(r"[\s_\-]+", "", text).casefold()


@dataclass
class _Common:
    """The parts of a row both formats read the same way."""

    category: str
    q_id: str
    version: str
    texts: dict[str, str]
    placeholders: dict[str, list[str]]
    proper_noun: bool
    known: list[str]
    infos: dict[str, list[str]] = field(default_factory=dict)


class _TemplateCsvReader(Reader):
    template_format = True
    required: tuple[str, ...] = CORE_REQUIRED

    def read_table(self, table: Table, result: ParseResult) -> None:
        apply_aliases(table, ALIASES)
        problems = list(missing_columns(table, self.required))
        if problems:
            result.problems.extend(problems)
            return
        for row in table.rows:
            self.read_row(table, row, result)

    def read_row(self, table: Table, row: Row, result: ParseResult) -> None:
        raise NotImplementedError

    def common(self, table: Table, row: Row, result: ParseResult) -> _Common | None:
        ok = True
        for key in ("category", "q_id"):
            if not row.get(key):
                result.problem(table.file, row.line, table.label(key), "is empty")
                ok = False
        placeholders = read_lists(table, row, ("names", "lexical_diversity"), result)
        try:
            proper_noun = parse_flag(row.get("proper_nouns_only"))
        except ValueError as error:
            result.problem(table.file, row.line, table.label("proper_nouns_only"), str(error))
            ok = False
            proper_noun = False
        if placeholders is None or not ok:
            return None
        return _Common(
            category=row.get("category"),
            q_id=row.get("q_id"),
            version=row.get("version"),
            texts=read_texts(row, TEXT_COLUMNS),
            placeholders=placeholders,
            proper_noun=proper_noun,
            known=parse_group_list(row.get("known_stereotyped_groups")),
            infos={axis: parse_group_list(row.get(f"{axis.lower()}_info")) for axis in NAME_AXES},
        )

    def extra(self, table: Table, row: Row, common: _Common, result: ParseResult) -> dict | None:
        kind = transformation(row.get("transformation_type"))
        if kind is None:
            result.problem(
                table.file,
                row.line,
                table.label("transformation_type"),
                f"unknown transformation {row.get('transformation_type')!r}: use SR, TM, CT, "
                "ST or NC",
            )
            return None
        return {
            "proper_noun": common.proper_noun,
            "stereotyped_groups": common.known,
            "non_stereotyped_groups": parse_group_list(row.get("known_non_stereotyped_groups")),
            "subcategory": row.get("subcategory") or row.get("info"),
            "transformation_type": kind,
            "transformation_reason": row.get("transformation_reason"),
            "original_bbq_id": row.get("original_bbq_id"),
            "source": row.get("notes"),
            "notes": notes_text(
                {
                    table.label(key): row.get(key)
                    for key in ("relevant_social_values", "stated_gender_info", "needs_val")
                }
            ),
        }

    @staticmethod
    def groups(common: _Common) -> dict[str, list[str]]:
        """NAMEn_info repeated for each value: the group label of every NAME value."""
        return {
            axis: [", ".join(common.infos[axis])] * len(common.placeholders[axis])
            for axis in NAME_AXES
            if common.infos.get(axis) and common.placeholders.get(axis)
        }

    def draft(
        self, table: Table, row: Row, common: _Common, external_id: str, extra: dict
    ) -> TemplateDraft:
        return TemplateDraft(
            table=table,
            row=row,
            columns=COLUMNS,
            external_id=external_id,
            category=common.category,
            question_index=common.q_id,
            variant=common.version,
            language=self.language,
            texts=common.texts,
            placeholders=common.placeholders,
            placeholder_groups=self.groups(common),
            extra=extra,
        )


@dataclass
class _Vocabulary:
    # loose category -> names in file order
    names: dict[str, list[str]] = field(default_factory=dict)
    # (first name, ethnicity, gender) rows of vocabulary_proper_names.csv
    proper: list[tuple[str, str, str]] = field(default_factory=list)
    has_names: bool = False
    has_proper: bool = False


class BbqReader(_TemplateCsvReader):
    format = "bbq"

    def read(self, tables: list[Table], result: ParseResult) -> None:
        self.vocabulary = _Vocabulary()
        templates = []
        for table in tables:
            if "first_last" in table.headers:
                self._read_proper_names(table)
            elif "name" in table.headers and "q_id" not in table.headers:
                self._read_vocabulary(table, result)
            else:
                templates.append(table)
        for table in templates:
            self.read_table(table, result)

    def _read_vocabulary(self, table: Table, result: ParseResult) -> None:
        problems = list(missing_columns(table, ("category", "name")))
        if problems:
            result.problems.extend(problems)
            return
        self.vocabulary.has_names = True
        for row in table.rows:
            if row.get("pilot_include").lower() == "no" or not row.get("name"):
                continue
            names = self.vocabulary.names.setdefault(_loose(row.get("category")), [])
            if row.get("name") not in names:
                names.append(row.get("name"))

    def _read_proper_names(self, table: Table) -> None:
        self.vocabulary.has_proper = True
        for row in table.rows:
            if row.get("first_last").lower() in ("first", "first_only") and row.get("name"):
                self.vocabulary.proper.append(
                    (row.get("name"), row.get("ethnicity"), row.get("gender"))
                )

    def read_row(self, table: Table, row: Row, result: ParseResult) -> None:
        if not row.get("ambiguous_context"):
            # BBQ's generator drops rows without an ambiguous context (filler/placeholder rows).
            result.skipped.append(f"{table.file}:{row.line}: no Ambiguous_Context")
            return
        common = self.common(table, row, result)
        if common is None:
            return
        extra = self.extra(table, row, common, result)
        if extra is None:
            return
        if not common.placeholders.get("NAME1") and not common.placeholders.get("NAME2"):
            if not self._names_from_vocabulary(table, row, common, result):
                return
            target: str | None = "NAME1"  # vocabulary NAME1 holds the stereotyped groups
        else:
            target = target_from_groups(common.placeholders, common.infos, common.known)
        if target is None:
            result.problem(
                table.file,
                row.line,
                table.label("known_stereotyped_groups"),
                f"cannot tell which of NAME1/NAME2 is the stereotyped group: neither (or both) "
                f"of their values / NAMEn_info match {common.known}",
            )
            return
        draft = self.draft(
            table, row, common, f"{common.category}-{common.q_id}{common.version}", extra
        )
        draft.target_placeholder = target
        draft.pairing = pairing_for(common.texts, target)
        finish_template(draft, result)

    def _names_from_vocabulary(
        self, table: Table, row: Row, common: _Common, result: ParseResult
    ) -> bool:
        known = {group.casefold() for group in common.known}
        if common.proper_noun and self.vocabulary.has_proper:
            candidates = [
                (name, bool({ethnicity.casefold(), gender.casefold()} & known))
                for name, ethnicity, gender in self.vocabulary.proper
            ]
        elif self.vocabulary.has_names:
            candidates = [
                (name, name.strip().casefold() in known)
                for name in self.vocabulary.names.get(_loose(common.category), [])
            ]
        else:
            wanted = "vocabulary_proper_names.csv" if common.proper_noun else "vocabulary.csv"
            result.problem(
                table.file,
                row.line,
                table.label("names") if "names" in table.headers else "Names",
                f"no Names given and no {wanted} among the files to take NAME1/NAME2 from",
            )
            return False
        unique: dict[str, bool] = {}
        for name, is_target in candidates:
            unique.setdefault(name, is_target)  # one entry per name, in file order
        name1 = [name for name in unique if unique[name]]
        name2 = [name for name in unique if not unique[name]]
        if not name1 or not name2:
            result.problem(
                table.file,
                row.line,
                table.label("known_stereotyped_groups"),
                f"the vocabulary has no {'stereotyped' if not name1 else 'other'} names for "
                f"category {common.category!r} and groups {common.known}",
            )
            return False
        common.placeholders["NAME1"] = name1
        common.placeholders["NAME2"] = name2
        return True
