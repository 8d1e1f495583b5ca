"""BharatBBQ templates written back as sahoonihar/BharatBBQ `BharatBBQ_Dataset/Templates/`: one
`<Category>.csv` per category, with the columns its notebook (`create_examples.ipynb`) and
Kasauti's reader (templates.py) read.

BharatBBQ's reader rebuilds a version from its fields, so the row is written from the current
version's fields: `Names` holds the NAME lists and `Lexical_diversity` the WORD lists, each
`KEY: [...]` part a Python list literal (`{{NAME1}}: ['grandson', 'granddaughter']`), which the
notebook and the reader read back value for value (quotes, commas and spaces included); Pairing
biased / anti; Proper Nouns 1 / 0 / 2 from the noun form; NAME1_info / NAME2_info the group
label of the values; Notes the sources. A template written in Kasauti also gets the
Kasauti_template column (apps/catalog/exporters.py), so its re-import keeps Kasauti's generator
and exact lists.
"""

from __future__ import annotations

import json
from typing import Any

from apps.catalog.exporters import (
    KASAUTI_COLUMN,
    ExportFile,
    ExportRefused,
    ExportTemplate,
    csv_bytes,
    file_stem,
    kasauti_cell,
    notes_value,
)
from apps.catalog.instantiation import STEREOTYPICAL
from apps.catalog.models import NounForm

from . import GENERATOR
from .generator import UNKNOWN_ANSWERS

HEADER = [
    "Q_id",
    "version",
    "Category",
    "Subcategory",
    "Ambiguous_Context",
    "Disambiguating_Context",
    "Names",
    "Pairing",
    "Proper Nouns",
    "Lexical_diversity",
    "Question_negative",
    "Question_non_negative",
    "Answer_negative",
    "Answer_non_negative",
    "Relevant_social_values",
    "Known_stereotyped_groups",
    "Known_anti-stereotyped-groups",
    "NAME1_info",
    "NAME2_info",
    "Stated_gender_info",
    "Notes",
    "needs_val",
    "Transformation_type",
    "Transformation_reason",
]
_PROPER = {NounForm.PROPER_NAME.value: "1", NounForm.GROUP_LABEL.value: "2"}


def write(templates: list[ExportTemplate]) -> list[ExportFile]:
    problems: list[tuple[str, str]] = []
    sheets: dict[str, list[list[Any]]] = {}
    kasauti = False
    for item in templates:
        row, reason = _row(item)
        if reason:
            problems.append((item.external_id, reason))
            continue
        kasauti = kasauti or item.version.generator != GENERATOR
        sheets.setdefault(item.template.category.name, []).append(row)
    if problems:
        raise ExportRefused(problems)
    header = HEADER + ([KASAUTI_COLUMN] if kasauti else [])
    return [
        ExportFile(
            f"BharatBBQ_Dataset/Templates/{file_stem(category)}.csv",
            csv_bytes(header, (row[: len(header)] for row in rows)),
        )
        for category, rows in sheets.items()
    ]


def _lists(
    placeholders: dict[str, list[str]], prefix: str, order: dict[str, list[str]], column: str
) -> str:
    """A Names or Lexical_diversity cell: the keys the imported row listed in this column, in
    its order (the notebook walks its cross product in that order), then any other NAMEn (for
    Names) or WORDn (for Lexical_diversity) list in number order."""
    listed = set(order.get("names", [])) | set(order.get("lexical_diversity", []))
    keys = [key for key in order.get(column, []) if key in placeholders]
    keys += sorted(
        (k for k in placeholders if k.startswith(prefix) and k not in listed),
        key=lambda k: int(k[4:]),
    )
    return "; ".join("{{" + key + "}}: " + repr(list(placeholders[key])) for key in keys)


def _row(item: ExportTemplate) -> tuple[list[Any], str]:
    version, template = item.version, item.template
    own = version.generator == GENERATOR
    if version.generator not in (GENERATOR, "kasauti"):
        return [], (
            f"it is instantiated by the {version.generator!r} generator; the BharatBBQ layout "
            "carries BharatBBQ's and Kasauti's templates only"
        )
    placeholders = version.placeholders
    groups = version.placeholder_groups or {}
    infos: dict[str, str] = {}
    if own:
        bad = [k for k in placeholders if not k[4:].isdigit() or k[:4] not in ("NAME", "WORD")]
        if bad:
            return [], f"the list {bad[0]} has no BharatBBQ column (only NAMEn and WORDn)"
        for value in (v for values in placeholders.values() for v in values):
            if ":" in value or ";" in value:
                return [], (
                    f"the value {value!r} holds ':' or ';', which BharatBBQ's Names column "
                    "cannot carry"
                )
        for axis in ("NAME1", "NAME2"):
            labels = set(groups.get(axis) or [])
            if len(labels) > 1:
                return [], (
                    f"the values of {axis} have different groups ({', '.join(sorted(labels))}); "
                    f"BharatBBQ's {axis}_info holds one"
                )
            infos[axis] = labels.pop() if labels else ""
        unknowns = (version.generator_data or {}).get("unknown_expressions")
        if unknowns and list(unknowns) != list(UNKNOWN_ANSWERS):
            return [], "its unknown answers were edited; BharatBBQ's layout has no column for them"
    else:
        for axis in ("NAME1", "NAME2"):
            labels = list(dict.fromkeys(groups.get(axis) or []))
            infos[axis] = ", ".join(labels) if len(labels) == 1 else ""
    notes = version.notes
    order = (version.generator_data or {}).get("key_order", {}) if own else {}
    row = [
        template.question_index,
        template.variant,
        template.category.name,
        version.subcategory,
        version.ambiguous_context,
        version.disambiguating_context,
        _lists(placeholders, "NAME", order, "names"),
        "biased" if version.pairing == STEREOTYPICAL else "anti",
        _PROPER.get(version.noun_form, "0"),
        _lists(placeholders, "WORD", order, "lexical_diversity"),
        version.question_negative,
        version.question_non_negative,
        version.answer_negative,
        version.answer_non_negative,
        version.relevant_social_values or notes_value(notes, "Relevant_social_values"),
        _group_list(version.stereotyped_groups),
        _group_list(version.non_stereotyped_groups),
        infos["NAME1"],
        infos["NAME2"],
        notes_value(notes, "Stated_gender_info"),
        version.source,
        notes_value(notes, "needs_val"),
        version.transformation_type,
        version.transformation_reason,
        "" if own else kasauti_cell(version),
    ]
    return row, ""


def _group_list(groups: list[str]) -> str:
    return json.dumps(list(groups), ensure_ascii=False) if groups else ""
