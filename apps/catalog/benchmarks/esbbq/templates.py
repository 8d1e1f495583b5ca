"""EsBBQ / CaBBQ templates with their vocabulary (langtech-bsc/EsBBQ-CaBBQ `templates/`).

One import takes the category workbooks (`Age.xlsx`, ...; sheet "Sheet1") together with
`vocabulary.xlsx` and `vocabulary_proper_names.xlsx`; the reader tells them apart by their
columns (esbbq_vocabulary.py). As in `generate_instances.py`, columns of the other language are
dropped and the language suffix is stripped (`ambiguous_context_es` -> `ambiguous_context`):
format esbbq reads `_es`, cabbq reads `_ca`.

Template columns the original script requires: esbbq_template_id, esbbq_category,
ambiguous_context, disambiguating_context, question_negative_stereotype, question_non_negative,
answer_negative, answer_non_negative, stereotyped_groups. Optional: version, label,
subcategory, names, lexical_diversity, relevant_social_values, non_stereotyped_groups,
NAME1_info, NAME2_info, stated_gender_info, proper_nouns_only, esbbq_source.

The adaptation record each row carries (EsBBQ §3.2.2): `label` t / m / n is the template's
class (transformation_type ST Simply-Transferred, TM Target-Modified, NC Newly-Created; any other
value is a problem), and `bbq_category` + `bbq_template_id` name the BBQ template it adapts (kept
on the record as its source; `import_benchmark --adapted-from` links them). The
`relevant_social_values` go to the version's field of that name.

Every template version is instantiated by script.py (EsBBQ's own rules) from the row
and the vocabulary kept in `generator_data`, so the instances are the published ones. A row the
original script would stop on is rejected with its reason; defects it lets through are
findings (duplicate ids).
"""

from __future__ import annotations

from typing import Any, ClassVar

from apps.catalog.exporters import KASAUTI_KEY, kasauti_template_record
from apps.catalog.importers.base import Reader
from apps.catalog.importers.records import FindingRecord, ParseResult, TemplateRecord
from apps.catalog.importers.tables import Row, Table, missing_columns
from apps.catalog.importers.values import normalise_text_placeholders
from apps.catalog.models import NounForm, ReviewStatus, TransformationType

from . import GENERATOR, script
from .filling import EsbbqInstance
from .published import template_fields
from .text import GenerationError, is_set, parse_list
from .vocabulary import VocabularySheets, classify, strip_language

REQUIRED_COLUMNS = (
    "esbbq_template_id",
    "esbbq_category",
    "ambiguous_context",
    "disambiguating_context",
    "question_negative_stereotype",
    "question_non_negative",
    "answer_negative",
    "answer_non_negative",
    "stereotyped_groups",
)
# Kasauti's template text fields and the EsBBQ columns they come from.
# Older template releases name a few columns differently.
ALIASES = {
    "template_id": "esbbq_template_id",
    "category": "esbbq_category",
    "question_negative": "question_negative_stereotype",
    "source": "esbbq_source",
}
_LIMITS = {"external_id": 100, "question_index": 50, "variant": 20, "subcategory": 100}
# EsBBQ's `label` (§3.2.2, after KoBBQ): t Simply-Transferred, m Target-Modified, n Newly-Created.
LABELS = {
    "t": TransformationType.SIMPLY_TRANSFERRED.value,
    "m": TransformationType.TARGET_MODIFIED.value,
    "n": TransformationType.NEWLY_CREATED.value,
}
# The reasons the generator gives, mapped to the column an author fixes.
_ERROR_COLUMNS = (
    ("Same NAME variable", "answer_negative"),
    ("lexical diversity", "lexical_diversity"),
    ("stated_gender_info", "stated_gender_info"),
    ("No gender info", "stated_gender_info"),
    ("stereotyped group", "stereotyped_groups"),
    ("NAME1", "names"),
    ("NAME2", "names"),
    ("names column", "names"),
    ("Lists for", "names"),
)


class EsBbqReader(Reader):
    format = "esbbq"
    template_format = True
    suffix: ClassVar[str] = "es"
    # Its rows name the source template they adapt (bbq_category, bbq_template_id):
    # `import_benchmark --adapted-from` reads them.
    records_sources: ClassVar[bool] = True

    def __init__(self, *, language: str = "en", category: str = "") -> None:
        # The language is the one of the columns read, whatever --language says.
        super().__init__(language=self.suffix, category=category)

    def read(self, tables: list[Table], result: ParseResult) -> None:
        sheets = VocabularySheets()
        templates: list[Table] = []
        for table in tables:
            kind = classify(table, self.suffix)
            if kind == "templates":
                templates.append(table)
            elif kind is None:
                result.problem(
                    table.file,
                    1,
                    "header",
                    "not an EsBBQ sheet: a template sheet has esbbq_template_id and "
                    f"ambiguous_context_{self.suffix}, the vocabulary has category, "
                    f"name_{self.suffix} and information, the proper names have "
                    f"proper_name_{self.suffix}, gender and ethnicity_{self.suffix}",
                )
            else:
                sheets.read(table, kind, self.suffix, result)
        seen: dict[str, int] = {}
        for table in templates:
            self.read_table(table, result, sheets=sheets, seen=seen)

    def read_table(
        self,
        table: Table,
        result: ParseResult,
        *,
        sheets: VocabularySheets | None = None,
        seen: dict[str, int] | None = None,
    ) -> None:
        sheets = sheets or VocabularySheets()
        seen = {} if seen is None else seen
        strip_language(table, self.suffix, ALIASES, result)
        problems = list(missing_columns(table, REQUIRED_COLUMNS))
        if problems:
            result.problems.extend(problems)
            return
        for row in table.rows:
            self.read_row(table, row, result, sheets, seen)

    def read_row(
        self,
        table: Table,
        row: Row,
        result: ParseResult,
        sheets: VocabularySheets,
        seen: dict[str, int],
    ) -> None:
        file, line = table.file, row.line
        missing = [key for key in ("esbbq_template_id", "esbbq_category") if not row.get(key)]
        for key in missing:
            result.problem(file, line, table.label(key), "is empty")
        label = row.get("label").casefold()
        if label and label not in LABELS:
            result.problem(
                file,
                line,
                table.label("label"),
                f"unknown label {row.get('label')!r}: use t (Simply-Transferred), "
                "m (Target-Modified) or n (Newly-Created)",
            )
            missing.append("label")
        if missing:
            return
        if row.get(KASAUTI_KEY):
            self.read_kasauti_row(table, row, result)
            return
        template_row = dict(row.cells)
        data = {
            "row": template_row,
            "vocabulary": sheets.vocabulary,
            "proper_names": sheets.proper_names,
        }
        try:
            instances = script.generate(data, self.language)
        except GenerationError as error:
            column = _error_column(str(error))
            message = str(error)
            if not sheets.given and message.startswith(("No names", "no white", "proper name")):
                message += (
                    " (the vocabulary gives these values: import vocabulary.xlsx and "
                    "vocabulary_proper_names.xlsx in the same call)"
                )
            result.problem(file, line, table.label(column), message)
            return
        if not instances:
            result.problem(file, line, "row", "the row generates no instance")
            return

        category = row.get("esbbq_category")
        template_id = row.get("esbbq_template_id")
        version = row.get("version")
        findings: list[FindingRecord] = []
        source_cells = (row.get("bbq_category"), row.get("bbq_template_id"))
        if row.get("label").casefold() == "n" and any(source_cells):
            findings.append(
                FindingRecord(
                    file, line, table.label("label"), "label-source-mismatch",
                    "label n says Newly-Created, but bbq_category / bbq_template_id name a "
                    f"source template ({' '.join(source_cells).strip()}); linked as published, "
                    "its source counts as to do in the adaptation report (no class) and the "
                    "template is not Newly-Created",
                    original=row.get("label"),
                )
            )  # fmt: skip
        external_id = f"{category}-{template_id}{version}"
        seen[external_id] = seen.get(external_id, 0) + 1
        if seen[external_id] > 1:
            # Upstream generates every row; the id is made unique so both are kept.
            original = external_id
            external_id = f"{original}~{seen[original]}"
            findings.append(
                FindingRecord(
                    file, line, table.label("esbbq_template_id"), "duplicate-id",
                    f"template id {template_id} version {version!r} is also used by an earlier "
                    f"{category} row; imported as {external_id}",
                    original=f"{template_id} {version}".strip(),
                )
            )  # fmt: skip
        for name, limit in _LIMITS.items():
            value = {"external_id": external_id, "question_index": template_id,
                     "variant": version, "subcategory": row.get("subcategory")}[name]  # fmt: skip
            if len(value) > limit:
                message = f"{value[:40]!r}… is longer than {limit} characters"
                result.problem(file, line, name, message)
                return
        source = (row.get("bbq_category"), row.get("bbq_template_id"))
        result.templates.append(
            TemplateRecord(
                file=file,
                line=line,
                external_id=external_id,
                category=category,
                question_index=template_id,
                variant=version,
                content=_content(table, row, data, instances, self.language),
                id_field=table.label("esbbq_template_id"),
                findings=findings,
                sources=[source] if any(source) else [],
                source_columns=(table.label("bbq_category"), table.label("bbq_template_id")),
            )
        )

    def read_kasauti_row(self, table: Table, row: Row, result: ParseResult) -> None:
        """A template written in Kasauti and exported in this layout (esbbq/export.py): its
        Kasauti_template cell says how Kasauti's own generator makes its instances, so they
        come back exactly; the layout's columns give its texts, class and source."""
        record = kasauti_template_record(
            table=table,
            row=row,
            result=result,
            texts={
                name: normalise_text_placeholders(row.get(column))
                for name, column in script.TEXT_COLUMNS.items()
            },
            category=row.get("esbbq_category"),
            question_index=row.get("esbbq_template_id"),
            variant=row.get("version"),
            language=self.language,
            extra={
                "stereotyped_groups": parse_list(row.get("stereotyped_groups")),
                "non_stereotyped_groups": parse_list(row.get("non_stereotyped_groups")),
                "subcategory": row.get("subcategory"),
                "source": row.get("esbbq_source"),
                "relevant_social_values": row.get("relevant_social_values"),
                "transformation_type": LABELS.get(row.get("label").casefold(), ""),
                "status": ReviewStatus.DRAFT.value,
                "origin": f"{table.file}:{row.line}"[-300:],
            },
        )
        source = (row.get("bbq_category"), row.get("bbq_template_id"))
        if record is not None and any(source):
            record.sources = [source]
            record.source_columns = (table.label("bbq_category"), table.label("bbq_template_id"))


def _error_column(message: str) -> str:
    for fragment, column in _ERROR_COLUMNS:
        if fragment in message:
            return column
    return "row"


def _content(
    table: Table,
    row: Row,
    data: dict[str, Any],
    instances: list[EsbbqInstance],
    language: str,
) -> dict[str, Any]:
    """The TemplateVersion content: the texts as written, and for display the values each
    variable takes in the generated instances."""
    placeholders: dict[str, list[str]] = {}
    for instance in instances:
        for variable, value in instance.values.items():
            values = placeholders.setdefault(variable, [])
            if value not in values:
                values.append(value)
    first = instances[0]
    # The stereotyped group's axis as written: the answer that is ans0 in the original flip.
    stereotyped_answer_is_negative = first.negative_is_stereotyped
    negative_axis = "NAME1" if "NAME1" in row.get("answer_negative") else "NAME2"
    other_axis = "NAME2" if negative_axis == "NAME1" else "NAME1"
    target = negative_axis if stereotyped_answer_is_negative else other_axis
    proper = is_set(row.get("proper_nouns_only"))
    fields = template_fields(data["row"])
    notes = {
        table.label("stated_gender_info"): row.get("stated_gender_info"),
        table.label("name1_info"): row.get("name1_info"),
        table.label("name2_info"): row.get("name2_info"),
    }
    texts = {
        name: normalise_text_placeholders(row.get(column))
        for name, column in script.TEXT_COLUMNS.items()
    }
    data["texts"] = texts  # as imported: an edited text is told apart (generator.edited_data)
    return {
        **texts,
        "language": language,
        "placeholders": placeholders,
        "placeholder_groups": {},
        "target_placeholder": target,
        "pairing": "stereotypical" if stereotyped_answer_is_negative else "anti-stereotypical",
        "proper_noun": proper,
        "noun_form": NounForm.PROPER_NAME.value if proper else NounForm.COMMON_NOUN.value,
        "generator": GENERATOR,
        "generator_data": data,
        "stereotyped_groups": fields["stereotyped_groups"],
        "non_stereotyped_groups": parse_list(row.get("non_stereotyped_groups")),
        "subcategory": row.get("subcategory"),
        "transformation_type": LABELS.get(row.get("label").casefold(), ""),
        # The BBQ template adapted, as written (the link to it is made by --adapted-from).
        "original_bbq_id": " ".join(
            part for part in (row.get("bbq_category"), row.get("bbq_template_id")) if part
        )[:50],
        "relevant_social_values": row.get("relevant_social_values"),
        "source": "\n".join(fields["source"]),
        "notes": "\n".join(f"{label}: {value}" for label, value in notes.items() if value),
        "status": ReviewStatus.DRAFT.value,
        "origin": f"{table.file}:{row.line}"[-300:],
    }


class CaBbqReader(EsBbqReader):
    format = "cabbq"
    suffix = "ca"
