"""Template export layouts: a dataset's templates written back as a benchmark's own files, one
registered object per layout (BBQ's `templates/` CSVs, BharatBBQ's `Templates/<Category>.csv`,
EsBBQ/CaBBQ's `templates/*.xlsx`), so that the benchmark's own tools and Kasauti's importer read
them. An unknown name is an error; a test may register a throwaway layout and remove it again.

Each benchmark package registers its layout from its `register()`
(apps/catalog/benchmarks/<name>/__init__.py) with a writer in `<name>/export.py`: a function
`write(templates: list[ExportTemplate]) -> list[ExportFile]` that raises `ExportRefused` with
every template it cannot express (and why); nothing is written then.

What is exported (`dataset_templates_export`): the current version of every template that is
not rejected (or only the approved ones), in import order (Template.position), so that a
re-import numbers the instances as the original did. Every file's text is NFC.

A template written in Kasauti (generator "kasauti") exports like any other: its row carries
the layout's usual columns, filled from the version, plus one column the benchmark's own tools
do not read, `Kasauti_template` (KASAUTI_COLUMN), a JSON object with what the layout cannot
say (its external id, generator and exact placeholder lists, groups, target and pairing).
Kasauti's readers, seeing it, rebuild the version from it, so the re-imported template gives
exactly its instances (`kasauti_template_fields`).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from django.utils.module_loading import import_string

from apps.core.errors import KasautiError
from apps.core.text import nfc, nfc_deep

# The extra column of a Kasauti-written template (header as written; its canonical key below).
KASAUTI_COLUMN = "Kasauti_template"
KASAUTI_KEY = "kasauti_template"
# What the column carries: the version fields a benchmark's columns cannot say exactly (the
# language too: a layout's import takes one language for all its rows).
KASAUTI_FIELDS = (
    "generator",
    "language",
    "placeholders",
    "placeholder_groups",
    "target_placeholder",
    "pairing",
    "noun_form",
    "proper_noun",
    "generator_data",
)


@dataclass(frozen=True)
class ExportFile:
    name: str  # path inside the export, e.g. "templates/Age.xlsx"
    data: bytes


@dataclass
class ExportTemplate:
    """One template to export: its current version (template and category joined) and the
    source templates it was adapted from (Adaptation links; category joined)."""

    version: Any  # TemplateVersion
    sources: list[Any] = field(default_factory=list)  # Template

    @property
    def template(self) -> Any:
        return self.version.template

    @property
    def external_id(self) -> str:
        return self.version.template.external_id


class ExportRefused(KasautiError):
    """The layout cannot express some templates: every (external id, reason), nothing written."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        lines = [f"template {external_id}: {reason}" for external_id, reason in problems]
        super().__init__("cannot export: " + "; ".join(lines))


@dataclass(frozen=True)
class Exporter:
    name: str  # what `export_templates --format` and `?format=` take
    label: str  # "EsBBQ / CaBBQ templates"
    description: str  # one sentence: what the download holds
    writer_path: str  # "module.function": list[ExportTemplate] -> list[ExportFile]
    # The import format that reads the export back, per template language ("" = any).
    import_formats: tuple[tuple[str, str], ...] = ()

    @property
    def writer(self) -> Callable[[list[ExportTemplate]], list[ExportFile]]:
        return import_string(self.writer_path)

    def import_format(self, language: str) -> str:
        for lang, fmt in self.import_formats:
            if lang in ("", language):
                return fmt
        return self.name


_EXPORTERS: dict[str, Exporter] = {}


def exporter_register(*, exporter: Exporter) -> Exporter:
    existing = _EXPORTERS.get(exporter.name)
    if existing is not None and existing != exporter:
        raise ValueError(f"export layout {exporter.name!r} is already registered")
    _EXPORTERS[exporter.name] = exporter
    return exporter


def exporter_get(*, name: str) -> Exporter:
    found = _EXPORTERS.get(name)
    if found is None:
        raise KasautiError(
            f"unknown export layout {name!r}; use one of {', '.join(exporter_names()) or 'none'}"
        )
    return found


def exporter_names() -> tuple[str, ...]:
    return tuple(_EXPORTERS)


def exporters() -> tuple[Exporter, ...]:
    return tuple(_EXPORTERS.values())


def exporter_unregister(*, name: str) -> None:
    """For tests that register a throwaway layout."""
    _EXPORTERS.pop(name, None)


# --- the export ------------------------------------------------------------------------------


def export_templates_select(*, dataset: Any, approved_only: bool = False) -> list[ExportTemplate]:
    """The current version of every template of the dataset that is not rejected (only the
    approved ones with `approved_only`), in import order, with their adaptation sources."""
    from apps.catalog.models import Adaptation, ReviewStatus
    from apps.catalog.selectors import template_current_versions

    versions = (
        template_current_versions(dataset=dataset)
        .exclude(status=ReviewStatus.REJECTED)
        .select_related("template", "template__category")
        .order_by("template__position", "template_id")
    )
    if approved_only:
        versions = versions.filter(status=ReviewStatus.APPROVED)
    chosen = [ExportTemplate(version=version) for version in versions]
    by_template = {item.version.template_id: item for item in chosen}
    links = (
        Adaptation.objects.filter(template_id__in=list(by_template))
        .select_related("source", "source__category")
        .order_by("source__position", "source_id")
    )
    for link in links:
        by_template[link.template_id].sources.append(link.source)
    return chosen


def dataset_templates_export(
    *, dataset: Any, fmt: str, approved_only: bool = False
) -> list[ExportFile]:
    """The dataset's templates as the files of layout `fmt`. Raises KasautiError when the
    dataset has no template to export, ExportRefused (every template the layout cannot
    express, and why) when some cannot be written."""
    exporter = exporter_get(name=fmt)
    chosen = export_templates_select(dataset=dataset, approved_only=approved_only)
    if not chosen:
        which = "approved template" if approved_only else "template that is not rejected"
        raise KasautiError(f"dataset {dataset.name!r} has no {which} to export")
    problems = [
        (item.external_id, "its current version v{} has errors ({}); fix them or reject it".format(
            item.version.number, "; ".join(p.get("message", "") for p in item.version.problems)
        ))
        for item in chosen
        if item.version.problems
    ]  # fmt: skip
    if problems:
        raise ExportRefused(problems)
    files = exporter.writer(chosen)
    return [ExportFile(nfc(f.name), f.data) for f in files]


def export_write(*, files: Iterable[ExportFile], directory: Path) -> list[Path]:
    """Write the files under `directory` (created if needed); returns the paths written."""
    written = []
    for item in files:
        path = directory / item.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(item.data)
        written.append(path)
    return written


def export_zip(*, files: Iterable[ExportFile]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for item in files:
            archive.writestr(item.name, item.data)
    return buffer.getvalue()


# --- helpers the writers share -----------------------------------------------------------------

_UNSAFE_FILE_CHARACTERS = re.compile(r'[\\/:*?"<>|\x00-\x1f]')


def file_stem(name: str) -> str:
    """A category name made safe as a file name (path separators and the like replaced)."""
    return _UNSAFE_FILE_CHARACTERS.sub("_", name).strip() or "_"


def csv_bytes(header: list[str], rows: Iterable[list[Any]]) -> bytes:
    """UTF-8 CSV (no BOM, "\\n" line ends), every cell NFC; None is an empty cell."""
    import csv

    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([nfc(h) for h in header])
    for row in rows:
        writer.writerow(["" if v is None else nfc(v) if isinstance(v, str) else v for v in row])
    return out.getvalue().encode("utf-8")


def xlsx_bytes(header: list[str], rows: Iterable[list[Any]], *, sheet: str = "Sheet1") -> bytes:
    """One-sheet workbook; strings NFC, None an empty cell."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell

    workbook = Workbook(write_only=True)
    worksheet = workbook.create_sheet(sheet)

    def cell(value: Any) -> Any:
        if not isinstance(value, str):
            return value
        value = nfc(value)
        if not value.startswith("="):
            return value
        text = WriteOnlyCell(worksheet, value)
        text.data_type = "s"  # a text, not a formula
        return text

    worksheet.append([nfc(h) for h in header])
    for row in rows:
        worksheet.append([cell(v) for v in row])
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def notes_value(notes: str, label: str) -> str:
    """A `Label: value` line the importers put in notes for columns with no field of their own
    (e.g. "Relevant_social_values: ..."); "" if absent."""
    prefix = f"{label}: "
    for line in (notes or "").split("\n"):
        if line.startswith(prefix):
            return line[len(prefix) :]
    return ""


def kasauti_cell(version: Any) -> str:
    """The Kasauti_template cell of a version not instantiated by the layout's generator."""
    payload = {"external_id": version.template.external_id}
    payload.update({name: getattr(version, name) for name in KASAUTI_FIELDS})
    return json.dumps(nfc_deep(payload), ensure_ascii=False, sort_keys=True)


def kasauti_template_fields(cell: str) -> dict[str, Any]:
    """The version fields a Kasauti_template cell gives (with its `external_id`). Raises
    ValueError, naming what is wrong, for a cell that is not such an object."""
    try:
        payload = json.loads(cell)
    except json.JSONDecodeError as error:
        raise ValueError(f"not JSON ({error.msg} at character {error.pos})") from None
    if not isinstance(payload, dict):
        raise ValueError("not a JSON object")
    unknown = set(payload) - {"external_id", *KASAUTI_FIELDS}
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(sorted(unknown))}")
    placeholders = payload.get("placeholders")
    if not isinstance(placeholders, dict) or not all(
        isinstance(values, list) and all(isinstance(v, str) for v in values)
        for values in placeholders.values()
    ):
        raise ValueError("placeholders must be an object of lists of strings")
    if not isinstance(payload.get("external_id"), str) or not payload["external_id"]:
        raise ValueError("external_id must be a non-empty string")
    if not isinstance(payload.get("generator"), str):
        raise ValueError("generator must be a string")
    return nfc_deep(payload)


# --- what a round trip keeps --------------------------------------------------------------------

# Not content: an Instance row's keys and bookkeeping, and what only a translation carries.
_NOT_CONTENT = {
    "dataset_id",
    "template_version_id",
    "source_id",
    "source_instance_id",
    "retired_at",
    "created_at",
    "review",
}


@cache
def roundtrip_columns() -> tuple[str, ...]:
    """Every Instance column that is content: importing an export into a new dataset and
    instantiating it must give these exactly. Derived from the one list of an Instance row's
    columns (apps/catalog/bulk.py, imported when first asked: registering the layouts at start-up
    stays free), with the category by name and the template by its external id, as a new dataset
    has other keys."""
    from apps.catalog.bulk import INSTANCE_ALL_COLUMNS

    return (
        *("category__name" if column == "category_id" else column
          for column in INSTANCE_ALL_COLUMNS if column not in _NOT_CONTENT),
        "template_version__template__external_id",
    )  # fmt: skip


def roundtrip_rows(*, dataset: Any) -> list[tuple]:
    """The dataset's live original instances as roundtrip_columns() tuples, by category and
    example id (what `export_templates` round trips are checked on)."""
    from apps.catalog.models import Instance

    return list(
        Instance.objects.filter(dataset=dataset, retired_at__isnull=True, source_instance=None)
        .order_by("category__name", "example_id")
        .values_list(*roundtrip_columns())
    )


def kasauti_template_record(
    *,
    table: Any,
    row: Any,
    result: Any,
    texts: dict[str, str],
    category: str,
    question_index: str,
    variant: str,
    language: str,
    extra: dict[str, Any] | None = None,
) -> Any:
    """For a reader whose row has a Kasauti_template cell: the TemplateRecord of the version it
    describes (texts from the row's text columns, the rest from the cell), validated by the
    generator it names; or None, with the problems in `result`. `extra`: more content fields
    the layout's columns give (stereotyped groups, subcategory, source, ...)."""
    from apps.catalog.importers.templates import TemplateDraft, finish_template

    try:
        fields = kasauti_template_fields(row.get(KASAUTI_KEY))
    except ValueError as error:
        result.problem(table.file, row.line, table.label(KASAUTI_KEY), str(error))
        return None
    draft = TemplateDraft(
        table=table,
        row=row,
        columns={},
        external_id=fields["external_id"],
        category=category,
        question_index=question_index,
        variant=variant,
        language=fields.get("language") or language,
        texts=texts,
        placeholders=fields["placeholders"],
        placeholder_groups=fields.get("placeholder_groups") or {},
        target_placeholder=fields.get("target_placeholder") or "NAME1",
        pairing=fields.get("pairing") or "stereotypical",
        extra={
            **(extra or {}),
            "generator": fields["generator"],
            "generator_data": fields.get("generator_data") or {},
            "noun_form": fields.get("noun_form") or "",
            "proper_noun": bool(fields.get("proper_noun")),
        },
    )
    return finish_template(draft, result)
