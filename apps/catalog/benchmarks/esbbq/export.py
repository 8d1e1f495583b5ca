"""EsBBQ / CaBBQ templates written back as langtech-bsc/EsBBQ-CaBBQ `templates/`: one
`<Category>.xlsx` per category (sheet "Sheet1") with the language's columns suffixed `_es` or
`_ca` (by the templates' language), `vocabulary.xlsx` and `vocabulary_proper_names.xlsx`.

An imported template is written from the row the importer kept (`generator_data["row"]`, every
cell as published), with the texts a reviewer edited put back (generator.edited_data), so that
generate_instances.py and Kasauti's importer both give its instances. `label` comes from the
version's transformation type (ST -> t, TM/CT -> m, NC -> n), else the imported cell;
`bbq_template_id` / `bbq_category` from the template's adaptation links to its source
templates, else the imported cells. The vocabularies are the ones the templates were generated
with (all templates must agree). A template written in Kasauti gets a row built from its fields
(NAME and WORD lists in `names` / `lexical_diversity`) plus the Kasauti_template column; EsBBQ's
generator must be able to run that row (it is checked here), since the EsBBQ reader runs it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from apps.catalog.exporters import (
    KASAUTI_COLUMN,
    ExportFile,
    ExportRefused,
    ExportTemplate,
    file_stem,
    kasauti_cell,
    xlsx_bytes,
)
from apps.catalog.selectors import template_version_spec

from . import GENERATOR, script
from .generator import edited_data
from .text import GenerationError
from .vocabulary import PROPER_NAME_FIELDS

LABELS = {"ST": "t", "TM": "m", "CT": "m", "NC": "n"}
# Template columns written with the language suffix (the rest are shared by both languages).
SUFFIXED = frozenset(
    {
        "ambiguous_context",
        "disambiguating_context",
        "names",
        "lexical_diversity",
        "question_negative_stereotype",
        "question_non_negative",
        "answer_negative",
        "answer_non_negative",
        "relevant_social_values",
        "stereotyped_groups",
        "non_stereotyped_groups",
    }
)
# Headers as EsBBQ writes them (the importer keeps canonical lower-case keys).
HEADERS = {"name1_info": "NAME1_info", "name2_info": "NAME2_info"}
FIRST_COLUMNS = (
    "label",
    "bbq_template_id",
    "esbbq_template_id",
    "version",
    "bbq_category",
    "esbbq_category",
    "subcategory",
)
# Cells EsBBQ stores as numbers (pandas reads them so: the script's output says 1, not "1").
NUMERIC = frozenset({"bbq_template_id", "esbbq_template_id", "proper_nouns_only"})
_INTEGER = re.compile(r"-?\d+")
_LIST_UNSAFE = re.compile(r'[,;:"\[\]]')


def write(templates: list[ExportTemplate]) -> list[ExportFile]:
    problems: list[tuple[str, str]] = []
    languages = {item.version.language for item in templates}
    if len(languages) > 1 or not languages <= set(script.LANGUAGES):
        raise ExportRefused(
            [
                (
                    item.external_id,
                    f"its language is {item.version.language!r}; the EsBBQ layout holds one "
                    "language, es (EsBBQ) or ca (CaBBQ), for the whole export",
                )
                for item in templates
                if len(languages) > 1 or item.version.language not in script.LANGUAGES
            ]
        )
    language = languages.pop()
    vocabulary: list[dict[str, str]] | None = None
    proper_names: list[dict[str, str]] | None = None
    vocabulary_from = proper_names_from = ""
    sheets: dict[str, list[dict[str, Any]]] = {}
    for item in templates:
        version = item.version
        if version.generator == GENERATOR:
            data = edited_data(template_version_spec(version=version))
            row = dict(data.get("row") or {})
            for name, given, first in (
                ("vocabulary", data.get("vocabulary") or [], vocabulary),
                ("proper_names", data.get("proper_names") or [], proper_names),
            ):
                if not given:
                    continue
                if first is None:
                    if name == "vocabulary":
                        vocabulary, vocabulary_from = given, item.external_id
                    else:
                        proper_names, proper_names_from = given, item.external_id
                elif first != given:
                    other = vocabulary_from if name == "vocabulary" else proper_names_from
                    problems.append(
                        (
                            item.external_id,
                            f"it was generated with another {name.replace('_', ' ')} than "
                            f"template {other}; one export has one vocabulary",
                        )
                    )
        elif version.generator == "kasauti":
            row, reason = _kasauti_row(item)
            if reason:
                problems.append((item.external_id, reason))
                continue
            try:
                script.generate({"row": row, "vocabulary": [], "proper_names": []}, language)
            except GenerationError as error:
                problems.append(
                    (
                        item.external_id,
                        f"EsBBQ's generator cannot run the row it would get ({error})",
                    )
                )
                continue
            row[KASAUTI_COLUMN] = kasauti_cell(version)
        else:
            problems.append(
                (
                    item.external_id,
                    f"it is instantiated by the {version.generator!r} generator; the EsBBQ "
                    "layout carries EsBBQ's and Kasauti's templates only",
                )
            )
            continue
        _adaptation_cells(item, row)
        sheets.setdefault(item.template.category.name, []).append(row)
    if problems:
        raise ExportRefused(problems)
    files = [
        ExportFile(f"templates/{file_stem(category)}.xlsx", _template_sheet(rows, language))
        for category, rows in sheets.items()
    ]
    vocabulary_file = _vocabulary_sheet(vocabulary or [], language)
    files.append(ExportFile("templates/vocabulary.xlsx", vocabulary_file))
    files.append(
        ExportFile(
            "templates/vocabulary_proper_names.xlsx",
            _proper_names_sheet(proper_names or [], language),
        )
    )
    return files


def _adaptation_cells(item: ExportTemplate, row: dict[str, Any]) -> None:
    label = LABELS.get(item.version.transformation_type)
    if label:
        row["label"] = label
    if item.sources:
        row["bbq_template_id"] = ", ".join(
            dict.fromkeys(s.question_index or s.external_id for s in item.sources)
        )
        row["bbq_category"] = ", ".join(dict.fromkeys(s.category.name for s in item.sources))


def _kasauti_row(item: ExportTemplate) -> tuple[dict[str, Any], str]:
    """A Kasauti-written version as an EsBBQ row, or ("", why it cannot be one)."""
    version, template = item.version, item.template
    lists: dict[str, list[str]] = {"names": [], "lexical_diversity": []}
    for key in sorted(version.placeholders):
        values = version.placeholders[key]
        unsafe = [v for v in values if _LIST_UNSAFE.search(v) or v != v.strip() or not v]
        if unsafe:
            return {}, (
                f"the value {unsafe[0]!r} of {key} cannot be written in an EsBBQ list "
                "(no commas, semicolons, colons, quotes, brackets or empty values)"
            )
        column = "names" if key.startswith("NAME") else "lexical_diversity"
        lists[column].append(f"{key}: [{', '.join(values)}]")
    # EsBBQ tells the stereotyped NAME by its *_info being among the stereotyped groups.
    groups = version.placeholder_groups or {}
    target = version.target_placeholder
    other = "NAME2" if target == "NAME1" else "NAME1"
    stereotyped = list(version.stereotyped_groups) or list(dict.fromkeys(groups.get(target, [])))
    infos = {
        target: ", ".join(stereotyped),
        other: ", ".join(
            list(version.non_stereotyped_groups) or list(dict.fromkeys(groups.get(other, [])))
        ),
    }
    row: dict[str, Any] = {
        "esbbq_template_id": template.question_index or template.external_id,
        "version": template.variant,
        "esbbq_category": template.category.name,
        "subcategory": version.subcategory,
        "ambiguous_context": version.ambiguous_context,
        "disambiguating_context": version.disambiguating_context,
        "names": "; ".join(lists["names"]),
        "lexical_diversity": "; ".join(lists["lexical_diversity"]),
        "question_negative_stereotype": version.question_negative,
        "question_non_negative": version.question_non_negative,
        "answer_negative": version.answer_negative,
        "answer_non_negative": version.answer_non_negative,
        "relevant_social_values": version.relevant_social_values,
        "stereotyped_groups": json.dumps(stereotyped, ensure_ascii=False),
        "name1_info": infos["NAME1"],
        "name2_info": infos["NAME2"],
        "non_stereotyped_groups": (
            json.dumps(list(version.non_stereotyped_groups), ensure_ascii=False)
            if version.non_stereotyped_groups
            else ""
        ),
        "proper_nouns_only": "1" if version.proper_noun else "",
        "esbbq_source": version.source,
    }
    return row, ""


def _header(key: str, language: str) -> str:
    if key == KASAUTI_COLUMN:
        return key
    label = HEADERS.get(key, key)
    return f"{label}_{language}" if key in SUFFIXED else label


def _cell(key: str, value: Any) -> Any:
    if value is None or value == "":
        return None
    if key in NUMERIC and isinstance(value, str) and _INTEGER.fullmatch(value):
        return int(value)
    return value


def _template_sheet(rows: list[dict[str, Any]], language: str) -> bytes:
    keys = [k for k in FIRST_COLUMNS if any(k in row for row in rows)]
    for row in rows:
        keys.extend(k for k in row if k not in keys and k != KASAUTI_COLUMN)
    if any(KASAUTI_COLUMN in row for row in rows):
        keys.append(KASAUTI_COLUMN)
    return xlsx_bytes(
        [_header(k, language) for k in keys],
        ([_cell(k, row.get(k)) for k in keys] for row in rows),
    )


def _vocabulary_sheet(rows: list[dict[str, str]], language: str) -> bytes:
    # generate_instances.py selects these columns by name (and filters include_name == "").
    if language == "ca":
        fields = ("category", "subcategory", "name", "name_def", "f", "f_def", "information")
    else:
        fields = ("category", "subcategory", "name", "f", "information")
    suffixed = {"name", "name_def", "f", "f_def"}
    header = [f"{f}_{language}" if f in suffixed else f for f in fields] + ["include_name"]
    return xlsx_bytes(header, ([row.get(f) or None for f in fields] + [None] for row in rows))


def _proper_names_sheet(rows: list[dict[str, str]], language: str) -> bytes:
    fields = [f for f in PROPER_NAME_FIELDS if language == "ca" or f != "proper_name_def"]
    header = [f if f == "gender" else f"{f}_{language}" for f in fields]
    return xlsx_bytes(header, ([row.get(f) or None for f in fields] for row in rows))
