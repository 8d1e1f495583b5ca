"""BBQ templates written back as nyu-mll/BBQ `templates/`: `new_templates - <Category>.csv` per
category, `vocabulary.csv` and `vocabulary_proper_names.csv`.

An imported template is written from the cells the importer kept for BBQ's generator
(`generator_data["row"]`: Q_id, version, Names, Lexical_diversity, the group columns, ...; a
column absent from the original sheet stays absent) and the version's texts (an edited text is
exported as edited); Notes is the version's source (its outer spaces are not kept by the
import); Category is the file's category, or the cell as published where it said otherwise
(the import's `category-label` finding keeps it). The vocabularies are the rows the
templates were generated with (per category; all templates must agree). BBQ's draws are seeded
per template from the import's seed, so every row also carries `Kasauti_seed`, a column BBQ's
scripts do not read and Kasauti's reader uses instead of `--seed`: the re-import draws the same
names. A template written in Kasauti gets a row with BBQ's columns filled from its fields
(`NAME1: [a, b]` lists in Names and Lexical_diversity where the sheet has those columns) and
the Kasauti_template column (apps/catalog/exporters.py), from which Kasauti's reader rebuilds
it exactly; BBQ's scripts, which sample by their own rules, may not take every such row.
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

from . import GENERATOR
from .draws import INTERSECTIONAL

SEED_COLUMN = "Kasauti_seed"
# (header as BBQ writes it, where the value comes from): "row:<cell>", "text:<field>", or a
# special name. Columns read from the kept row are written only if the original sheet had them.
COLUMNS = (
    ("needs_val", "notes:needs_val"),
    ("Q_id", "row:q_id"),
    ("version", "row:version"),
    ("Category", "category"),
    ("Subcategory", "row:subcategory"),
    ("Ambiguous_Context", "text:ambiguous_context"),
    ("Disambiguating_Context", "text:disambiguating_context"),
    ("Names", "row:names"),
    ("Lexical_diversity", "row:lexical_diversity"),
    ("Proper_nouns_only", "row:proper_nouns_only"),
    ("Question_negative_stereotype", "text:question_negative"),
    ("Question_non_negative", "text:question_non_negative"),
    ("Answer_negative", "text:answer_negative"),
    ("Answer_non_negative", "text:answer_non_negative"),
    ("Relevant_social_values", "notes:Relevant_social_values"),
    ("Known_stereotyped_groups", "row:known_stereotyped_groups"),
    ("Known_stereotyped_race", "row:known_stereotyped_race"),
    ("Known_stereotyped_var2", "row:known_stereotyped_var2"),
    ("Var2_info", "row:var2_info"),
    ("NAME1_info", "row:name1_info"),
    ("NAME2_info", "row:name2_info"),
    ("Stated_gender_info", "row:stated_gender_info"),
    ("Notes", "source"),
    (SEED_COLUMN, "seed"),
)


def write(templates: list[ExportTemplate]) -> list[ExportFile]:
    problems: list[tuple[str, str]] = []
    sheets: dict[str, list[ExportTemplate]] = {}
    vocabulary: dict[str, list[list[str]]] = {}
    vocabulary_from: dict[str, str] = {}
    proper_names: list[list[str]] | None = None
    proper_from = ""
    for item in templates:
        version = item.version
        if version.generator == "kasauti":
            sheets.setdefault(item.template.category.name, []).append(item)
            continue
        if version.generator != GENERATOR:
            problems.append(
                (
                    item.external_id,
                    f"it is instantiated by the {version.generator!r} generator; the BBQ layout "
                    "carries BBQ's and Kasauti's templates only",
                )
            )
            continue
        data = version.generator_data or {}
        by_category: dict[str, list[list[str]]] = {}
        for entry in data.get("vocabulary") or []:
            by_category.setdefault(entry[0], []).append(list(entry))
        for category, rows in by_category.items():
            known = vocabulary.setdefault(category, rows)
            vocabulary_from.setdefault(category, item.external_id)
            if known != rows:
                problems.append(
                    (
                        item.external_id,
                        f"it was generated with other {category} vocabulary rows than template "
                        f"{vocabulary_from[category]}; one export has one vocabulary",
                    )
                )
        if data.get("proper_names"):
            if proper_names is None:
                proper_names, proper_from = data["proper_names"], item.external_id
            elif proper_names != data["proper_names"]:
                problems.append(
                    (
                        item.external_id,
                        f"it was generated with other proper names than template {proper_from}",
                    )
                )
        sheets.setdefault(data.get("category") or item.template.category.name, []).append(item)
    for category, all_items in sheets.items():
        items = [item for item in all_items if item.version.generator == GENERATOR]
        for key in {source[4:] for _, source in COLUMNS if source.startswith("row:")}:
            absent = {(item.version.generator_data["row"].get(key) is None) for item in items}
            if len(absent) > 1:
                problems.append(
                    (
                        items[0].external_id,
                        f"the {category} templates disagree on whether the sheet has a {key} "
                        "column (BBQ's generator reads an absent column differently)",
                    )
                )
    if problems:
        raise ExportRefused(problems)
    labels = _category_cells(templates)
    files = [
        ExportFile(
            f"templates/new_templates - {file_stem(category)}.csv",
            _sheet(category, items, labels),
        )
        for category, items in sheets.items()
    ]
    files.append(
        ExportFile(
            "templates/vocabulary.csv",
            csv_bytes(
                ["Category", "Pilot_include", "SubCat", "Name", "Info"],
                (
                    [entry[0], "", entry[1], entry[2], entry[3]]
                    for rows in vocabulary.values()
                    for entry in rows
                ),
            ),
        )
    )
    files.append(
        ExportFile(
            "templates/vocabulary_proper_names.csv",
            csv_bytes(["Name", "First_last", "gender", "ethnicity"], proper_names or []),
        )
    )
    return files


def _category_cells(templates: list[ExportTemplate]) -> dict[int, str]:
    """Template id -> its Category cell as published where it named the category otherwise
    (RaceEthnicity, Gender_x_race): the import kept it as a `category-label` finding. BBQ's
    scripts copy the cell into their output, so it is written back as it was."""
    from apps.catalog.models import Finding

    found = Finding.objects.filter(
        template_version__template__in=[item.template for item in templates],
        kind="category-label",
    ).values_list("template_version__template_id", "original")
    return dict(found)


def _sheet(category: str, items: list[ExportTemplate], labels: dict[int, str]) -> bytes:
    own = [item for item in items if item.version.generator == GENERATOR]
    if own:
        first = own[0].version.generator_data["row"]
    else:  # only templates written in Kasauti: every column of a BBQ sheet of this category
        keys = [s[4:] for _, s in COLUMNS if s.startswith("row:")]
        single = {"known_stereotyped_race", "known_stereotyped_var2", "var2_info"}
        first = {k: "" for k in keys if (k in single) == (category in INTERSECTIONAL)}
    columns = [
        (header, source)
        for header, source in COLUMNS
        if not source.startswith("row:") or first.get(source[4:]) is not None
    ]
    if not any(s == "row:known_stereotyped_groups" for _, s in columns) and not first.get(
        "known_stereotyped_race"
    ):
        columns.insert(15, ("Known_stereotyped_groups", "row:known_stereotyped_groups"))
    kasauti = len(own) < len(items)
    if kasauti:
        columns.append((KASAUTI_COLUMN, "kasauti"))
    return csv_bytes(
        [header for header, _ in columns],
        (
            [
                labels.get(item.template.pk, category)
                if source == "category"
                else _value(item, category, source)
                if item.version.generator == GENERATOR
                else _kasauti_value(item, source)
                for _, source in columns
            ]
            for item in items
        ),
    )


def _kasauti_value(item: ExportTemplate, source: str) -> Any:
    """A cell of a template written in Kasauti: its lists as BBQ writes them (`NAME1: [a, b]`),
    for BBQ's scripts; Kasauti's reader takes them from the Kasauti_template cell."""
    version, template = item.version, item.template
    kind, _, name = source.partition(":")
    lists = version.placeholders
    infos = {
        axis: ", ".join(dict.fromkeys(version.placeholder_groups.get(axis) or []))
        for axis in ("NAME1", "NAME2")
    }
    values = {
        "q_id": template.question_index,
        "version": template.variant,
        "subcategory": version.subcategory,
        "names": "; ".join(
            f"{k}: [{', '.join(v)}]" for k, v in lists.items() if k.startswith("NAME")
        ),
        "lexical_diversity": "; ".join(
            f"{k}: [{', '.join(v)}]" for k, v in lists.items() if k.startswith("WORD")
        ),
        "proper_nouns_only": "TRUE" if version.proper_noun else "",
        "known_stereotyped_groups": json.dumps(
            list(version.stereotyped_groups), ensure_ascii=False
        ),
        "name1_info": infos["NAME1"],
        "name2_info": infos["NAME2"],
    }
    if kind == "row":
        return values.get(name, "")
    if kind == "text":
        return getattr(version, name)
    if kind == "notes":
        return version.relevant_social_values if name == "Relevant_social_values" else ""
    if kind == "category":
        return template.category.name
    if kind == "source":
        return version.source
    if kind == "kasauti":
        return kasauti_cell(version)
    return ""


def _value(item: ExportTemplate, category: str, source: str) -> Any:
    version = item.version
    data = version.generator_data
    kind, _, name = source.partition(":")
    if kind == "row":
        return data["row"].get(name) or ""
    if kind == "text":
        return getattr(version, name)
    if kind == "notes":
        if name == "Relevant_social_values" and version.relevant_social_values:
            return version.relevant_social_values
        return notes_value(version.notes, name)
    if kind == "category":
        return category
    if kind == "source":
        return version.source
    if kind == "seed":
        return str(data.get("seed", 0))
    return ""  # the Kasauti_template cell: empty for BBQ's own templates
