"""BBQ (nyu-mll/BBQ `new_templates - <Category>.csv`) and BharatBBQ (`Templates/<Cat>.csv`).

Both are one template per row with the columns below (matched by name, any order, extra
columns ignored). Required: Q_id, Category, Ambiguous_Context, Disambiguating_Context,
Question_negative (or Question_negative_stereotype), Question_non_negative, Answer_negative,
Answer_non_negative, Known_stereotyped_groups; BharatBBQ also needs Names and Pairing.
Optional: version, Subcategory, Names, Proper_nouns_only (or "Proper Nouns"),
Lexical_diversity, NAME1_info, NAME2_info, Known_anti-stereotyped-groups,
Relevant_social_values, Stated_gender_info, Notes (source URLs), Transformation_type,
Transformation_reason, Original_BBQ_id.

Who is the stereotyped NAME: BharatBBQ states it through `Pairing`: `biased` = the NAME in
Answer_negative is the stereotyped group, `anti` = the NAME in Answer_non_negative is.

BBQ's own template sheets are read by bbq_templates.BbqReader (BBQ's generator reproduced);
it is re-exported here so that `bbq.BbqReader` keeps working.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from apps.catalog.instantiation import answer_name

from .base import Reader
from .records import ParseResult
from .tables import Row, Table, apply_aliases, missing_columns
from .templates import (
    ANTI_STEREOTYPICAL,
    NAME_AXES,
    STEREOTYPICAL,
    TemplateDraft,
    finish_template,
    notes_text,
    read_lists,
    read_texts,
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
_PAIRING_WORDS = {
    "biased": STEREOTYPICAL,
    "bias": STEREOTYPICAL,
    "stereo": STEREOTYPICAL,
    "stereotypical": STEREOTYPICAL,
    "np": STEREOTYPICAL,
    "anti": ANTI_STEREOTYPICAL,
    "antistereo": ANTI_STEREOTYPICAL,
    "anti-stereotypical": ANTI_STEREOTYPICAL,
    "nnp": ANTI_STEREOTYPICAL,
}


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


class BharatBbqReader(_TemplateCsvReader):
    format = "bharatbbq"
    required = (*CORE_REQUIRED, "names", "pairing")

    def read_row(self, table: Table, row: Row, result: ParseResult) -> None:
        pairing = _PAIRING_WORDS.get(row.get("pairing").lower())
        if pairing is None:
            result.problem(
                table.file,
                row.line,
                table.label("pairing"),
                f"expected biased or anti, got {row.get('pairing')!r}",
            )
        common = self.common(table, row, result)
        if common is None or pairing is None:
            return
        extra = self.extra(table, row, common, result)
        if extra is None:
            return
        # biased: Answer_negative names the stereotyped group; anti: Answer_non_negative does.
        answer_field = "answer_negative" if pairing == STEREOTYPICAL else "answer_non_negative"
        target = answer_name(common.texts[answer_field]) or "NAME1"
        tag = ("pn" if common.proper_noun else "cn") + (
            "-biased" if pairing == STEREOTYPICAL else "-anti"
        )
        external_id = f"{common.category}-{common.q_id}{common.version}-{tag}"
        draft = self.draft(table, row, common, external_id, extra)
        draft.target_placeholder = target
        draft.pairing = pairing
        finish_template(draft, result)


# BBQ itself reproduces the original generator: see bbq_templates.py.
from .bbq_templates import BbqReader  # noqa: E402, F401
