"""BBQ (nyu-mll/BBQ `templates/`): template CSVs and the two vocabularies, in one import.

The files are told apart by their columns, not their names:
* `vocabulary.csv` (Category, Pilot_include, SubCat, Name, Info): the group labels the
  generator pairs (rows with Pilot_include = No are dropped, as the generator does);
* `vocabulary_proper_names.csv` (Name, First_last, gender, ethnicity): first and last names;
* `new_templates - Filler_items.csv` (Context, Ans0..Ans2, no Ambiguous_Context): filler
  items, not templates: skipped with a note;
* every other table is a template sheet: `new_templates - <Category>.csv` with Q_id,
  Category, Ambiguous_Context, Disambiguating_Context, Lexical_diversity,
  Question_negative_stereotype, Question_non_negative, Answer_negative, Answer_non_negative,
  Notes and either Known_stereotyped_groups (the nine single categories; optional Names,
  Subcategory, Proper_nouns_only, NAME1_info, NAME2_info, version) or, for Race_x_gender and
  Race_x_SES, Known_stereotyped_race, Known_stereotyped_var2, Var2_info, Names,
  Proper_nouns_only (and Stated_gender_info for Race_x_SES).

A template is instantiated by BBQ's own generator (generator.py): the
reader keeps the cells that generator reads, as published, plus the vocabulary rows it draws
from, in `generator_data`, with the seed of the import. BBQ's category is the file's (the
generator's `cat`); a Category cell that names another category is a finding, as are every
other defect of the published data (see `_findings`). Rows the original generator could not
run (a Known_stereotyped_groups cell that is not a list, too few names to sample) reject the
import, with every such problem listed. A `Kasauti_seed` column (written by Kasauti's export,
bbq/export.py) gives a row's seed instead of the import's; a row with a `Kasauti_template`
cell is a template written in Kasauti, rebuilt from that cell (apps/catalog/exporters.py).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from apps.catalog.exporters import kasauti_template_record
from apps.catalog.importers.base import Reader
from apps.catalog.importers.records import FindingRecord, ParseResult, TemplateRecord
from apps.catalog.importers.tables import Row, Table, apply_aliases, missing_columns
from apps.catalog.importers.values import parse_group_list
from apps.catalog.instantiation import (
    ANTI_STEREOTYPICAL,
    STEREOTYPED,
    STEREOTYPICAL,
    TemplateSpec,
)
from apps.catalog.models import NounForm, ReviewStatus, TemplateVersion

from . import GENERATOR
from .draws import INTERSECTIONAL
from .findings import row_findings
from .generator import UNKNOWN_OPTIONS, BbqGenerator, option_roles

CATEGORIES = (
    "Age",
    "Disability_status",
    "Gender_identity",
    "Nationality",
    "Physical_appearance",
    "Race_ethnicity",
    "Race_x_SES",
    "Race_x_gender",
    "Religion",
    "SES",
    "Sexual_orientation",
)
_FILE_CATEGORY = re.compile(r"new_templates\s*-\s*(.+?)\.csv$", re.IGNORECASE)
# The Category cell of Race_x_gender rows says Gender_x_race; the results script maps it.
_CATEGORY_ALIASES = {"genderxrace": "Race_x_gender"}
ALIASES = {"question_negative_stereotype": "question_negative"}
# The six template texts, each under its own name (Question_negative_stereotype is aliased).
TEXTS = {name: name for name in TemplateVersion.TEXT_FIELDS}
# Columns the original generator reads from every row: without them it cannot run.
REQUIRED = ("q_id", "category", *TEXTS, "lexical_diversity", "notes")
REQUIRED_SINGLE = ("known_stereotyped_groups",)
REQUIRED_INTERSECTIONAL = (
    "known_stereotyped_race",
    "known_stereotyped_var2",
    "var2_info",
    "names",
    "proper_nouns_only",
)
# Cells kept for the generator: None in generator_data means the column is absent (the
# original branches on that).
ROW_CELLS = (
    "q_id",
    "version",
    "names",
    "lexical_diversity",
    "known_stereotyped_groups",
    "subcategory",
    "proper_nouns_only",
    "name1_info",
    "name2_info",
    "known_stereotyped_race",
    "known_stereotyped_var2",
    "var2_info",
    "stated_gender_info",
)


def loose(text: str) -> str:
    return re.sub(r"[\s_\-]+", "", text).casefold()


_LOOSE_CATEGORIES = {loose(c): c for c in CATEGORIES} | _CATEGORY_ALIASES


def file_category(table: Table) -> str | None:
    """BBQ's `cat` for a template file: from `new_templates - <cat>.csv`, else None."""
    match = _FILE_CATEGORY.search(table.file)
    if match is None:
        return None
    return _LOOSE_CATEGORIES.get(loose(match.group(1)), match.group(1).strip())


class BbqReader(Reader):
    format = "bbq"
    template_format = True

    def __init__(self, *, language: str = "en", category: str = "", seed: int = 0) -> None:
        super().__init__(language=language, category=category, seed=seed)
        self.vocabulary: list[list[str]] = []
        self.proper_names: list[list[str]] = []
        self.has_vocabulary = False
        self.has_proper_names = False

    def read(self, tables: list[Table], result: ParseResult) -> None:
        self._result = result
        templates = []
        for table in tables:
            if table.has("first_last"):
                self._read_proper_names(table, result)
            elif table.has("pilot_include") or (table.has("name") and not table.has("q_id")):
                self._read_vocabulary(table, result)
            elif not table.has("ambiguous_context") and table.has("context"):
                result.skipped.append(
                    f"{table.file}: filler items (Context, Ans0-Ans2), not a template sheet"
                )
            else:
                templates.append(table)
        seen: Counter[str] = Counter()
        for table in templates:
            self._read_templates(table, result, seen)

    # --- vocabularies ------------------------------------------------------------------------

    def _read_vocabulary(self, table: Table, result: ParseResult) -> None:
        problems = list(missing_columns(table, ("category", "name")))
        if problems:
            result.problems.extend(problems)
            return
        self.has_vocabulary = True
        for row in table.rows:
            # pandas reads the cells as published; the generator drops Pilot_include == "No".
            if row.get_raw("pilot_include") == "No":
                continue
            self.vocabulary.append(
                [row.get_raw(key) for key in ("category", "subcat", "name", "info")]
            )

    def _read_proper_names(self, table: Table, result: ParseResult) -> None:
        problems = list(missing_columns(table, ("name", "first_last", "gender", "ethnicity")))
        if problems:
            result.problems.extend(problems)
            return
        self.has_proper_names = True
        for row in table.rows:
            self.proper_names.append(
                [row.get_raw(key) for key in ("name", "first_last", "gender", "ethnicity")]
            )

    # --- template sheets ---------------------------------------------------------------------

    def _read_templates(self, table: Table, result: ParseResult, seen: Counter[str]) -> None:
        apply_aliases(table, ALIASES)
        cat = file_category(table)
        if cat is None and table.rows:
            first = table.rows[0].get("category")
            cat = _LOOSE_CATEGORIES.get(loose(first), first)
        intersectional = cat in INTERSECTIONAL
        required = REQUIRED + (REQUIRED_INTERSECTIONAL if intersectional else REQUIRED_SINGLE)
        problems = list(missing_columns(table, required))
        if problems:
            result.problems.extend(problems)
            return
        for row in table.rows:
            if row.get_raw("ambiguous_context") == "":
                # The generator keeps only rows whose Ambiguous_Context is not empty.
                result.skipped.append(f"{table.file}:{row.line}: no Ambiguous_Context")
                continue
            self._read_row(table, row, cat or "", result, seen)

    def _read_row(
        self, table: Table, row: Row, cat: str, result: ParseResult, seen: Counter[str]
    ) -> None:
        findings: list[FindingRecord] = []
        file, line = table.file, row.line

        def finding(column: str, kind: str, message: str, original: str = "") -> None:
            findings.append(FindingRecord(file, line, table.label(column), kind, message, original))

        if row.get("kasauti_template"):
            self._read_kasauti_row(table, row)
            return
        label = row.get("category")
        # Spelling and spacing aside (DisabilityStatus, "Religion "), the cell must name the
        # file's category; Race_x_gender rows say Gender_x_race.
        if loose(label) != loose(cat):
            finding(
                "category",
                "category-label",
                f"the row says category {label!r} but it is in the {cat} file; BBQ's generator "
                f"(and its results) use {cat}",
                row.get_raw("category"),
            )
        q_id, version = row.get("q_id"), row.get("version")
        if not q_id:
            result.problem(file, line, table.label("q_id"), "is empty")
            return
        base_id = f"{cat}-{q_id}{version}"
        seen[base_id] += 1
        external_id = base_id if seen[base_id] == 1 else f"{base_id}~{seen[base_id]}"
        if seen[base_id] > 1:
            finding(
                "q_id",
                "duplicate-id",
                f"Q_id {q_id}{version} appears again in {cat}; both rows are generated, as "
                f"published; this one is {external_id}",
                q_id,
            )
        # Kasauti_seed: the seed a Kasauti export recorded for this row (bbq/export.py); it
        # wins over the import's --seed, so the re-import draws what the original drew.
        seed = self.seed
        if row.get("kasauti_seed"):
            try:
                seed = int(row.get("kasauti_seed"))
            except ValueError:
                result.problem(
                    file, line, table.label("kasauti_seed"),
                    f"expected a whole number, got {row.get('kasauti_seed')!r}",
                )  # fmt: skip
                return
        cells = {key: (row.get_raw(key) if table.has(key) else None) for key in ROW_CELLS}
        proper = cells.get("proper_nouns_only") == "TRUE"
        if not self._vocabulary_available(table, row, cat, cells, proper, result):
            return
        intersectional = cat in INTERSECTIONAL
        groups_column = "known_stereotyped_race" if intersectional else "known_stereotyped_groups"
        groups = parse_group_list(row.get(groups_column))
        data: dict[str, Any] = {
            "category": cat,
            "seed": seed,
            "row": cells,
            "stereotyped_groups": groups,
            "unknown_options": list(UNKNOWN_OPTIONS),
            "vocabulary": self._vocabulary_for(cat),
        }
        if proper:
            data["proper_names"] = self.proper_names
        texts = {name: row.get_raw(key) for name, key in TEXTS.items()}
        spec = TemplateSpec(
            template_id=external_id,
            language=self.language,
            placeholders={},
            generator="bbq",
            generator_data=data,
            **texts,
        )
        generator = BbqGenerator()
        problems = generator.validate(spec)
        if problems:
            for problem in problems:
                result.problem(
                    file, line, table.label(_problem_column(problem.field)), problem.message
                )
            return
        drawn = list(generator.drawn_combinations(spec))
        combinations = [combination for _, combination in drawn]
        findings.extend(
            row_findings(table=table, row=row, combinations=combinations, text_columns=TEXTS)
        )
        undecided = sum(
            1 for draw, combo in drawn if not option_roles(spec, draw, combo.answer_info)
        )
        if undecided:
            findings.append(
                FindingRecord(
                    file, line, table.label(groups_column), "stereotyped-group-unclear",
                    f"in {undecided} of {len(drawn)} answer sets the answers' group codes do not "
                    "single out one stereotyped answer (as BBQ's results script matches them); "
                    "Kasauti's option roles there follow the template as written",
                    row.get_raw(groups_column),
                )
            )  # fmt: skip
        pairing = STEREOTYPICAL
        if combinations:
            first = combinations[0]
            negative = first.variants[1][6]  # the (neg, disambig) instance's label
            pairing = (
                STEREOTYPICAL if first.option_roles[negative] == STEREOTYPED else ANTI_STEREOTYPICAL
            )
        content = {
            **texts,
            "language": self.language,
            "placeholders": _placeholders(combinations),
            "placeholder_groups": {},
            "target_placeholder": "NAME1",
            "pairing": pairing,
            "proper_noun": proper,
            "noun_form": NounForm.PROPER_NAME.value if proper else NounForm.GROUP_LABEL.value,
            "generator": GENERATOR,
            "generator_data": data,
            "stereotyped_groups": groups,
            "non_stereotyped_groups": [],
            "subcategory": (cells.get("subcategory") or "").strip()[:100],
            "source": row.get("notes"),
            "notes": "\n".join(
                f"{table.label(key)}: {row.get(key)}"
                for key in ("relevant_social_values", "stated_gender_info", "needs_val")
                if row.get(key)
            ),
            "status": ReviewStatus.DRAFT.value,
            "origin": f"{file}:{line}"[-300:],
        }
        result.templates.append(
            TemplateRecord(
                file=file,
                line=line,
                external_id=external_id,
                category=cat,
                question_index=q_id,
                variant=version,
                content=content,
                id_field=table.label("q_id"),
                findings=findings,
            )
        )

    def _read_kasauti_row(self, table: Table, row: Row) -> None:
        """A template written in Kasauti, exported (bbq/export.py): rebuilt from its
        Kasauti_template cell and the text columns, with Kasauti's generator; its category is
        the Category cell (a file name cannot carry every category name)."""
        kasauti_template_record(
            table=table,
            row=row,
            result=self._result,
            texts={name: row.get_raw(key) for name, key in TEXTS.items()},
            category=row.get("category"),
            question_index=row.get("q_id"),
            variant=row.get("version"),
            language=self.language,
            extra={
                "stereotyped_groups": parse_group_list(row.get("known_stereotyped_groups")),
                "subcategory": row.get("subcategory")[:100],
                "source": row.get("notes"),
                "relevant_social_values": row.get("relevant_social_values"),
                "status": ReviewStatus.DRAFT.value,
                "origin": f"{table.file}:{row.line}"[-300:],
            },
        )

    def _vocabulary_available(
        self, table: Table, row: Row, cat: str, cells: dict, proper: bool, result: ParseResult
    ) -> bool:
        needs_names = proper
        needs_vocabulary = cat in INTERSECTIONAL or len(cells.get("names") or "") < 2
        ok = True
        if needs_vocabulary and not self.has_vocabulary:
            result.problem(
                table.file, row.line, table.label("names") if table.has("names") else "Names",
                "this row takes its groups from vocabulary.csv: import it with the templates",
            )  # fmt: skip
            ok = False
        if needs_names and not self.has_proper_names:
            result.problem(
                table.file, row.line, table.label("proper_nouns_only"),
                "this row samples proper names: import vocabulary_proper_names.csv with it",
            )  # fmt: skip
            ok = False
        return ok

    def _vocabulary_for(self, cat: str) -> list[list[str]]:
        """The vocabulary rows the generator may read for this category (the whole file
        would be stored with every template for nothing). Nationality and SES occupations
        look their Info up by name, which the category's own rows answer."""
        wanted = {"Race_ethnicity", "SES"} if cat in INTERSECTIONAL else {cat}
        return [v for v in self.vocabulary if v[0] in wanted]


def _problem_column(field: str) -> str:
    return "known_stereotyped_groups" if field == "generator_data" else field


def _placeholders(combinations: list) -> dict[str, list[str]]:
    """The values the draws put in each slot, for display (the generator reads generator_data)."""
    values: dict[str, dict[str, None]] = {}
    for combo in combinations:
        for name, value in combo.values.items():
            if name != "subcategory":
                values.setdefault(name, {})[value] = None
    return {name: list(found) for name, found in values.items()}
