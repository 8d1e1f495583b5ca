"""Import of template-kind formats (template sets, sentence pairs, tuples, context sets):
parse and validate everything, then write everything, or nothing.

Phase 1 (no database): every file is decoded and parsed by the format's Reader, every row is
validated, and ids are checked for duplicates across the whole import. Any problem at all ->
ImportRejected with the complete list. Defects in published data that the import keeps are
findings, not problems; a strict import turns each of them into a problem too.
Phase 2 (importers/template_write.py): one transaction creates the dataset if needed and writes
the records and their findings.

With `adapted_from` (a source dataset already imported, e.g. BBQ), the import also writes the
adaptation record (EsBBQ §3.2.2): the dataset's source is set, each template is linked to the
source templates its row names (TemplateRecord.sources: category compared without case,
underscores or spaces; ids as numbers where numeric; every source row with that id, its
versions a/b included), a reference to no source template is a finding (`missing-source`), and
every source template no template of the dataset adapts is Sample-Removed. An unknown source
dataset, or a format whose rows name no source, rejects the import before anything is written.

Callers use the one entry, importers/pipeline.py, which sends each format to its kind's import.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

from django.db import transaction

from apps.catalog import services
from apps.catalog.models import Category, Dataset, Template, TemplateVersion
from apps.core.errors import ImportProblem, ImportRejected, KasautiError
from apps.core.text import nfc

from .formats import TEMPLATES, format_find, format_names
from .records import FindingRecord, ParseResult, TemplateRecord
from .reports import ImportReport
from .tables import ImportFile, TableError, read_table
from .template_write import (
    context_sets_write,
    findings_write,
    pairs_write,
    templates_write,
    tuples_write,
)


def _finding_dict(record: FindingRecord, concerns: str) -> dict[str, Any]:
    return {**asdict(record), "concerns": concerns}


def parse_findings(*, result: ParseResult) -> list[FindingRecord]:
    """Every finding of a parse: file-level ones, then per record, in file order."""
    found = list(result.findings)
    for template in result.templates:
        found.extend(template.findings)
    for pair in result.pairs:
        found.extend(pair.findings)
    for context_set in result.context_sets:
        found.extend(finding for _, finding in context_set.findings)
    return sorted(found, key=lambda f: (f.file, f.line or 0))


def findings_as_problems(*, findings: list[FindingRecord]) -> list[ImportProblem]:
    """What a strict import reports: each finding as a rejection, its kind kept."""
    return [ImportProblem(f.file, f.line, f.field, f.message, kind=f.kind) for f in findings]


def templates_parse(
    *, fmt: str, files: list[ImportFile], language: str = "en", category: str = "", seed: int = 0
) -> ParseResult:
    """Phase 1: read and validate every file; touches no table. Problems are in the result."""
    result = ParseResult()
    found = format_find(name=fmt)
    if found is None or found.kind != TEMPLATES:
        names = ", ".join(format_names(kind=TEMPLATES))
        result.problem("", None, "format", f"unknown format {fmt!r}; use one of {names}")
        return result
    if not files:
        result.problem("", None, "files", "no file was given")
        return result
    if not language.strip() or len(language) > 16:
        result.problem("", None, "language", f"invalid language code {language!r}")
        return result
    tables = []
    for upload in files:
        try:
            table = read_table(upload)
        except TableError as error:
            result.problems.append(error.problem(upload.name))
            continue
        if not table.rows:
            result.problem(upload.name, None, "file", "the file has a header but no data rows")
            continue
        tables.append(table)
    reader = found.reader(language=nfc(language.strip()), category=nfc(category))
    reader.seed = seed  # set, not passed: readers with their own __init__ need not know it
    reader.read(tables, result)
    _check_duplicates(result)
    return result


def _check_duplicates(result: ParseResult) -> None:
    seen: dict[Any, tuple[str, int]] = {}

    def check(key: Any, file: str, line: int, field_name: str, label: str) -> None:
        if key in seen:
            first_file, first_line = seen[key]
            result.problem(
                file, line, field_name, f"duplicate id {label!r}: also at {first_file}:{first_line}"
            )
        else:
            seen[key] = (file, line)

    for record in result.templates:
        check(
            ("template", record.external_id),
            record.file,
            record.line,
            record.id_field,
            record.external_id,
        )
    for pair in result.pairs:
        check(("pair", pair.external_id), pair.file, pair.line, pair.id_field, pair.external_id)
    for item in result.tuples:
        key = (
            item.category.casefold(),
            item.identity_term.casefold(),
            item.attribute.casefold(),
            item.language,
        )
        check(
            ("tuple", key),
            item.file,
            item.line,
            "identity_term",
            f"{item.identity_term} / {item.attribute}",
        )


@dataclass
class AdaptedImportReport(ImportReport):
    """The report of an import with --adapted-from: the counts, and the adaptation record
    written (links from a template to a source template; source templates Sample-Removed;
    references to no source template, each also a `missing-source` finding)."""

    adapted_from: str = ""
    adaptation_links: int = 0
    sample_removed: int = 0
    missing_sources: int = 0

    def counts_summary(self) -> list[str]:
        return super().counts_summary() + [
            f"adapted from {self.adapted_from!r}: {self.adaptation_links} link(s) to source "
            f"templates, {self.sample_removed} source template(s) Sample-Removed, "
            f"{self.missing_sources} reference(s) to no source template"
        ]


MISSING_SOURCE = "missing-source"
_REMOVED_PREFIX = "Sample-Removed: no template"


def source_key(category: str, template_id: str) -> tuple[str, str]:
    """How a row's source reference and a source template are compared: the category without
    case, underscores, hyphens or spaces (EsBBQ `RaceEthnicity` is BBQ `Race_ethnicity`), the
    id as a number where it is one (a workbook gives 1.0, BBQ's Q_id is "1")."""
    loose = re.sub(r"[\s_\-]+", "", category).casefold()
    text = template_id.strip()
    try:
        number = float(text)
    except ValueError:
        return loose, text.casefold()
    return loose, (str(int(number)) if number.is_integer() else repr(number))


def _source_dataset(name: str, dataset_name: str, fmt: str, result: ParseResult) -> Dataset | None:
    """Phase 1 checks of --adapted-from: the source exists and the format names sources."""
    source = Dataset.objects.filter(name=name).first()
    if source is None:
        result.problem(
            "", None, "adapted_from",
            f"unknown dataset {name!r}: import the source benchmark first (e.g. BBQ's "
            "templates with --format bbq), then name it here",
        )  # fmt: skip
    found = format_find(name=fmt)
    reads_sources = found is not None and getattr(found.reader, "records_sources", False)
    if found is not None and found.kind == TEMPLATES and not reads_sources:
        result.problem(
            "", None, "adapted_from",
            f"format {fmt} does not say which source template each row adapts; "
            "--adapted-from reads esbbq/cabbq's bbq_category and bbq_template_id",
        )  # fmt: skip
    if name == dataset_name:
        result.problem("", None, "adapted_from", f"{name} cannot adapt itself")
    return source


def _source_matches(*, source: Dataset, records: list[TemplateRecord]) -> list[list[int]]:
    """Phase 1 of --adapted-from (reads only): for each record, the source templates its row
    names (every row of that id: versions a/b, duplicates); a reference to none is a
    `missing-source` finding on the record, naming file, line and column."""
    by_key: dict[tuple[str, str], list[int]] = {}
    categories: set[str] = set()
    for pk, name, question_index in Template.objects.filter(dataset=source).values_list(
        "pk", "category__name", "question_index"
    ):
        by_key.setdefault(source_key(name, question_index), []).append(pk)
        categories.add(source_key(name, "")[0])
    matches: list[list[int]] = []
    for record in records:
        found: list[int] = []
        for category, template_id in record.sources:
            pks = by_key.get(source_key(category, template_id))
            if pks:
                found.extend(pks)
                continue
            unknown_category = source_key(category, "")[0] not in categories
            column = record.source_columns[0 if unknown_category or not template_id else 1]
            if not category:
                message = f"the row names template {template_id} but no source category"
            elif unknown_category:
                message = f"{source.name} has no category {category!r}"
            else:
                message = f"{source.name} has no template {template_id!r} in {category}"
            record.findings.append(
                FindingRecord(
                    record.file, record.line, column, MISSING_SOURCE,
                    f"the source template is missing: {message}; the template is not linked "
                    "to a source",
                    f"{category} {template_id}".strip(),
                )
            )  # fmt: skip
        matches.append(list(dict.fromkeys(found)))
    return matches


def _adaptation_write(
    *,
    dataset: Dataset,
    source: Dataset,
    versions: list[TemplateVersion],
    matches: list[list[int]],
    report: AdaptedImportReport,
) -> None:
    """Phase 2 of --adapted-from (in the import's transaction): the dataset's source, the links
    this import's rows name (replacing those of the same templates; links of templates not in
    this import are kept, so workbooks may come in several imports), and Sample-Removed for
    every source template no template of the dataset adapts."""
    try:
        dataset = services.dataset_source_set(dataset=dataset, source=source)
    except KasautiError as error:  # another source already recorded, or a cycle
        raise ImportRejected([ImportProblem("", None, "adapted_from", str(error))]) from error
    # Matched in phase 1; a source template deleted since then is simply not linked. Two
    # queries for the templates on both sides (a version's `.template` is one per row).
    sources = Template.objects.in_bulk({pk for pks in matches for pk in pks})
    targets = Template.objects.in_bulk({version.template_id for version in versions})
    links = [
        (sources[pk], targets[version.template_id])
        for version, pks in zip(versions, matches, strict=True)
        for pk in pks
        if pk in sources
    ]
    report.adaptation_links, report.sample_removed = services.adaptation_links_replace(
        dataset=dataset,
        templates=targets.values(),
        links=links,
        removed_reason=f"{_REMOVED_PREFIX} of {dataset.name} adapts it (the import "
        f"of {', '.join(report.files)} with --adapted-from {source.name} names it in no row's "
        "source reference).",
        # A removal recorded by hand (adaptation_remove, with its reason) keeps its reason.
        import_reason_prefix=_REMOVED_PREFIX,
    )


def templates_import(
    *,
    dataset_name: str,
    fmt: str,
    files: list[ImportFile],
    created_by=None,
    language: str = "en",
    category: str = "",
    seed: int = 0,
    strict: bool = False,
    adapted_from: str = "",
) -> ImportReport:
    """Import benchmark files into a dataset (created if needed). All-or-nothing: raises
    ImportRejected listing every problem, with nothing written. Findings (defects of the
    published data that the import keeps) are stored and reported; with `strict`, every
    finding is a problem instead and nothing is written. `seed`: the draws of formats whose
    generator samples (BBQ), recorded with each template. `adapted_from`: the name of the
    dataset the files adapt; the adaptation record is written too (see the module's doc)."""
    dataset_name = nfc(dataset_name.strip())
    adapted_from = nfc(adapted_from.strip())
    result = templates_parse(fmt=fmt, files=files, language=language, category=category, seed=seed)
    if not dataset_name:
        result.problem("", None, "dataset", "a dataset name is required")
    elif len(dataset_name) > 100:
        result.problem("", None, "dataset", "the dataset name is longer than 100 characters")
    source = _source_dataset(adapted_from, dataset_name, fmt, result) if adapted_from else None
    matches = _source_matches(source=source, records=result.templates) if source else []
    findings = parse_findings(result=result)
    if strict:
        result.problems.extend(findings_as_problems(findings=findings))
    if result.problems:
        raise ImportRejected(result.problems)

    common = {"dataset": dataset_name, "format": fmt, "files": [f.name for f in files],
              "strict": strict, "seed": seed}  # fmt: skip
    report = AdaptedImportReport(**common, adapted_from=adapted_from) if source else None
    report = report or ImportReport(**common)
    report.skipped = result.skipped
    report.by_category = _by_category(result)
    with transaction.atomic():
        dataset, report.dataset_created = services.dataset_get_or_create(
            name=dataset_name, created_by=created_by
        )
        # Serialise imports into one dataset: the create-or-edit decisions below must not race.
        Dataset.objects.select_for_update().get(pk=dataset.pk)
        if fmt and not dataset.source_format:
            dataset.source_format = fmt
            dataset.save(update_fields=["source_format"])
        categories = _categories(result)
        targets: list[tuple[FindingRecord, dict[str, Any], str]] = [
            (finding, {}, "dataset") for finding in result.findings
        ]
        versions = templates_write(
            dataset=dataset,
            records=result.templates,
            categories=categories,
            created_by=created_by,
            counts=report.templates,
        )
        for record, version in zip(result.templates, versions, strict=True):
            targets.extend(
                (f, {"template_version": version}, f"template {record.external_id}")
                for f in record.findings
            )
        if source is not None:
            report.missing_sources = sum(1 for f in findings if f.kind == MISSING_SOURCE)
            _adaptation_write(
                dataset=dataset, source=source, versions=versions, matches=matches, report=report
            )
        pairs = pairs_write(
            dataset=dataset, records=result.pairs, categories=categories, counts=report.pairs
        )
        for record, pair in zip(result.pairs, pairs, strict=True):
            targets.extend(
                (f, {"sentence_pair": pair}, f"pair {record.external_id}") for f in record.findings
            )
        tuples_write(
            dataset=dataset, records=result.tuples, categories=categories, counts=report.tuples
        )
        report.sentences, sentences = context_sets_write(
            dataset=dataset,
            records=result.context_sets,
            categories=categories,
            counts=report.context_sets,
        )
        for record in result.context_sets:
            for position, finding in record.findings:
                sentence = sentences[record.external_id, record.language][position]
                targets.append(
                    (
                        finding,
                        {"context_sentence": sentence},
                        f"context set {record.external_id}, sentence {position + 1}",
                    )
                )
        report.findings_new = findings_write(dataset=dataset, targets=targets)
    targets.sort(key=lambda item: (item[0].file, item[0].line or 0))
    report.findings = [_finding_dict(finding, concerns) for finding, _, concerns in targets]
    report.findings_by_kind = dict(Counter(finding.kind for finding, _, _ in targets).most_common())
    return report


def _by_category(result: ParseResult) -> dict[str, int]:
    """Rows read per category: a context set counts its sentences (one row each)."""
    counts: Counter[str] = Counter()
    for records in (result.templates, result.pairs, result.tuples):
        counts.update(record.category for record in records)
    for record in result.context_sets:
        counts[record.category] += len(record.sentences)
    return dict(sorted(counts.items()))


def _categories(result: ParseResult) -> dict[str, Category]:
    names: set[str] = set()
    for records in (result.templates, result.pairs, result.tuples, result.context_sets):
        names.update(record.category.strip() for record in records)
    return {name: services.category_get_or_create(name=name) for name in sorted(names)}
