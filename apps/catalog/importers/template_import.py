"""Import of template-kind formats (template sets, sentence pairs, tuples, context sets):
parse and validate everything, then write everything, or nothing.

Phase 1 (no database): every file is decoded and parsed by the format's Reader, every row is
validated, and ids are checked for duplicates across the whole import. Any problem at all ->
ImportRejected with the complete list. Defects in published data that the import keeps are
findings, not problems; a strict import turns each of them into a problem too.
Phase 2 (importers/template_write.py): one transaction creates the dataset if needed and writes
the records and their findings.

Callers use the one entry, importers/pipeline.py, which sends each format to its kind's import.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict
from typing import Any

from django.db import transaction

from apps.catalog import services
from apps.catalog.models import Category, Dataset
from apps.core.errors import ImportProblem, ImportRejected
from apps.core.text import nfc

from .formats import TEMPLATES, format_find, format_names
from .records import FindingRecord, ParseResult
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
) -> ImportReport:
    """Import benchmark files into a dataset (created if needed). All-or-nothing: raises
    ImportRejected listing every problem, with nothing written. Findings (defects of the
    published data that the import keeps) are stored and reported; with `strict`, every
    finding is a problem instead and nothing is written. `seed`: the draws of formats whose
    generator samples (BBQ), recorded with each template."""
    dataset_name = nfc(dataset_name.strip())
    result = templates_parse(fmt=fmt, files=files, language=language, category=category, seed=seed)
    if not dataset_name:
        result.problem("", None, "dataset", "a dataset name is required")
    elif len(dataset_name) > 100:
        result.problem("", None, "dataset", "the dataset name is longer than 100 characters")
    findings = parse_findings(result=result)
    if strict:
        result.problems.extend(findings_as_problems(findings=findings))
    if result.problems:
        raise ImportRejected(result.problems)

    report = ImportReport(
        dataset=dataset_name, format=fmt, files=[f.name for f in files], strict=strict, seed=seed
    )
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
