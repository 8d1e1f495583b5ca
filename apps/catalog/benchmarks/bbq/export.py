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
names. A template written in Kasauti has no BBQ row (BBQ's columns cannot say its lists): the
export refuses it, naming it (use the BharatBBQ or EsBBQ layout).
"""

from __future__ import annotations

from typing import Any

from apps.catalog.exporters import (
    ExportFile,
    ExportRefused,
    ExportTemplate,
    csv_bytes,
    file_stem,
    notes_value,
)

from . import GENERATOR

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
        if version.generator != GENERATOR:
            problems.append(
                (
                    item.external_id,
                    f"it is instantiated by the {version.generator!r} generator; BBQ's columns "
                    "carry only templates of BBQ's own generator (export it as bharatbbq or "
                    "esbbq)",
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
    for category, items in sheets.items():
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
    first = items[0].version.generator_data["row"]
    columns = [
        (header, source)
        for header, source in COLUMNS
        if not source.startswith("row:") or first.get(source[4:]) is not None
    ]
    if not any(s == "row:known_stereotyped_groups" for _, s in columns) and not first.get(
        "known_stereotyped_race"
    ):
        columns.insert(15, ("Known_stereotyped_groups", "row:known_stereotyped_groups"))
    return csv_bytes(
        [header for header, _ in columns],
        (
            [
                labels.get(item.template.pk, category)
                if source == "category"
                else _value(item, category, source)
                for _, source in columns
            ]
            for item in items
        ),
    )


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
    return str(data.get("seed", 0))
