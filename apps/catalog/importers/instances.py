"""Import published instance files as instances (no templates behind them).

    instances_import(*, dataset_name, fmt, files, created_by=None) -> InstanceImportReport

All-or-nothing like the template import: every file is parsed and checked first (no database);
any problem rejects the whole import with the complete list. Then one transaction writes the new
instances with the bulk COPY path (apps.catalog.bulk) and the findings.

Re-importing a file is idempotent: an instance already in the dataset (same category, language
and published id) with the same content is left alone; one whose content differs rejects the
import, because instances are never edited in place (releases point to them).
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from apps.catalog import compare, selectors, services
from apps.catalog.bulk import (
    INSTANCE_ALL_COLUMNS,
    INSTANCE_TEXT_COLUMNS,
    TRANSLATION_ONLY_COLUMNS,
    instances_insert,
)
from apps.catalog.models import Dataset, Finding, Instance
from apps.core.errors import ImportProblem, ImportRejected
from apps.core.text import nfc

from .formats import INSTANCES, format_find, format_get, format_names
from .layouts import InstanceParse, InstanceRecord
from .reports import InstanceImportReport
from .tables import ImportFile

# A published row sets every Instance column (bulk's one list, noun form, source id and
# additional metadata included) but a translation's review facts (its database default).
PUBLISHED_INSTANCE_COLUMNS = tuple(
    c for c in INSTANCE_ALL_COLUMNS if c not in TRANSLATION_ONLY_COLUMNS
)
# What must be equal for a re-imported row to count as the same instance.
_CONTENT = (
    "question_index",
    "context_condition",
    "question_polarity",
    *INSTANCE_TEXT_COLUMNS,
    "label",
)


# Columns a model's output carries and a published instance file does not (Kasauti's own
# prediction files, lm-evaluation-harness samples): such a file goes to the predictions import.
PREDICTION_COLUMNS = frozenset(
    {"prediction", "predictions", "pred", "predicted", "predicted_label", "model_answer",
     "model_prediction", "logprobs", "resps", "filtered_resps"}
)  # fmt: skip


def predictions_file_problem(*, upload: ImportFile) -> ImportProblem | None:
    """A problem when the file's first row (a JSON object's keys or a CSV header) has
    prediction columns: it holds a model's answers, not benchmark instances."""
    head = upload.data[:65536].decode("utf-8", "replace").lstrip("\ufeff")
    first = next((line for line in head.splitlines() if line.strip()), "")
    try:
        row = json.loads(first)
        names = set(row) if isinstance(row, dict) else set()
    except ValueError:  # not JSON (or cut off): read the line as a CSV header
        names = set(next(csv.reader([first]), []))
    found = sorted(PREDICTION_COLUMNS & {str(name).strip().casefold() for name in names})
    if not found:
        return None
    return ImportProblem(
        upload.name,
        1,
        "predictions file",
        f"this is a predictions file (it has a {', '.join(map(repr, found))} column), not "
        "benchmark instances: import it against its dataset on the predictions import page, "
        f"{reverse('evaluation:import')} (or POST /api/evaluation/runs/import/)",
    )


def instances_parse(*, fmt: str, files: list[ImportFile]) -> InstanceParse:
    """Phase 1: read and check every file; touches no table. Problems are in the result."""
    parse = InstanceParse()
    found = format_find(name=fmt)
    if found is None or found.kind != INSTANCES:
        names = ", ".join(format_names(kind=INSTANCES))
        parse.problem("", None, "format", f"unknown format {fmt!r}; use one of {names}")
        return parse
    if not files:
        parse.problem("", None, "files", "no file was given")
        return parse
    names = Counter(upload.name for upload in files)
    for name, count in names.items():
        if count > 1:
            parse.problem(name, None, "file", f"given {count} times (file names must differ)")
    reader = found.reader()
    for upload in files:
        predictions = predictions_file_problem(upload=upload)
        if predictions is not None:
            parse.problems.append(predictions)
            continue
        before = len(parse.records)
        reader.read(upload, parse)
        if len(parse.records) == before and not any(p.file == upload.name for p in parse.problems):
            parse.problem(upload.name, None, "file", "the file has no instance rows")
    _check_duplicates(parse)
    return parse


def _check_duplicates(parse: InstanceParse) -> None:
    seen: dict[tuple[str, str, str], InstanceRecord] = {}
    for record in parse.records:
        key = (record.category, record.language, record.values["source_id"])
        first = seen.setdefault(key, record)
        if first is not record:
            parse.problem(
                record.file,
                record.line,
                "id",
                f"duplicate instance id {key[2]!r} in category {key[0]!r}: also at "
                f"{first.file}:{first.line}",
            )


def instances_import(
    *,
    dataset_name: str,
    fmt: str,
    files: list[ImportFile],
    created_by=None,
    strict: bool = False,
) -> InstanceImportReport:
    """Import published instance files into a dataset (created if needed). All-or-nothing:
    raises ImportRejected listing every problem, with nothing written. `strict` turns every
    finding into a problem (for authoring pipelines)."""
    dataset_name = nfc(dataset_name.strip())
    parse = instances_parse(fmt=fmt, files=files)
    if strict:
        parse.problems.extend(
            ImportProblem(f.file, f.line, f.field, f"{f.kind}: {f.message} (--strict)")
            for f in parse.findings
        )
    if not dataset_name:
        parse.problem("", None, "dataset", "a dataset name is required")
    elif len(dataset_name) > 100:
        parse.problem("", None, "dataset", "the dataset name is longer than 100 characters")
    if parse.problems:
        raise ImportRejected(parse.problems)
    report = InstanceImportReport(
        dataset=dataset_name,
        format=fmt,
        files=[upload.name for upload in files],
        by_category=dict(sorted(Counter(r.category for r in parse.records).items())),
        verbatim=parse.verbatim,
    )
    with transaction.atomic():
        dataset, report.dataset_created = services.dataset_get_or_create(
            name=dataset_name, created_by=created_by
        )
        # Serialise imports into one dataset: the create-or-keep decisions must not race.
        dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
        _check_dataset(dataset, fmt)
        new = _new_records(dataset, parse.records, report)
        if dataset.source_format != fmt:
            dataset.source_format = fmt
            dataset.save(update_fields=["source_format"])
        _write(dataset, new)
        created = {(record.file, record.line) for record in new}
        findings = [f for f in parse.findings if (f.file, f.line) in created]
        Finding.objects.bulk_create(f.as_finding(dataset=dataset) for f in findings)
        report.findings = dict(sorted(Counter(f.kind for f in findings).items()))
    return report


def _check_dataset(dataset: Dataset, fmt: str) -> None:
    problems = []
    if dataset.templates.exists():
        problems.append(
            ImportProblem(
                "",
                None,
                "dataset",
                f"dataset {dataset.name!r} is built from templates; import published instances "
                "into a dataset of their own (compare the two with compare_published)",
            )
        )
    elif dataset.source_format and dataset.source_format != fmt:
        problems.append(
            ImportProblem(
                "",
                None,
                "format",
                f"dataset {dataset.name!r} holds {dataset.source_format} instances; import "
                f"{fmt} files into another dataset",
            )
        )
    if problems:
        raise ImportRejected(problems)


def _new_records(
    dataset: Dataset, records: list[InstanceRecord], report: InstanceImportReport
) -> list[InstanceRecord]:
    existing: dict[tuple[str, str, str], tuple] = {}
    if Instance.objects.filter(dataset=dataset).exists():
        for values in Instance.objects.filter(
            dataset=dataset, template_version__isnull=True
        ).values_list("category__name", "language", "source_id", *_CONTENT):
            existing[values[:3]] = values[3:]
    new: list[InstanceRecord] = []
    problems: list[ImportProblem] = []
    for record in records:
        stored = existing.get((record.category, record.language, record.values["source_id"]))
        if stored is None:
            new.append(record)
        elif stored == tuple(record.values[name] for name in _CONTENT):
            report.unchanged += 1
        else:
            changed = [
                name
                for name, value in zip(_CONTENT, stored, strict=True)
                if value != record.values[name]
            ]
            problems.append(
                ImportProblem(
                    record.file,
                    record.line,
                    changed[0],
                    f"instance {record.values['source_id']!r} ({record.category}) is already in "
                    f"the dataset with a different {', '.join(changed)}; instances are never "
                    "edited in place: import the new file into a new dataset",
                )
            )
    if problems:
        raise ImportRejected(problems)
    report.created = len(new)
    return new


def _write(dataset: Dataset, records: list[InstanceRecord]) -> None:
    categories = {
        name: services.category_get_or_create(name=name)
        for name in sorted({record.category for record in records})
    }
    instances_insert(
        instance_rows(dataset, records, categories), columns=PUBLISHED_INSTANCE_COLUMNS
    )


def instance_rows(
    dataset: Dataset, records: list[InstanceRecord], categories: dict[str, Any]
) -> Iterator[tuple]:
    """The COPY rows (PUBLISHED_INSTANCE_COLUMNS order) of the records."""
    now = timezone.now()
    dumps = json.JSONEncoder(ensure_ascii=False).encode
    for combination, record in enumerate(records):
        values = record.values
        yield (
            dataset.pk,
            None,
            categories[record.category].pk,
            record.language,
            values["example_id"],
            values["question_index"],
            combination,
            "12",
            values["context_condition"],
            values["question_polarity"],
            values["pairing"],
            values["proper_noun"],
            values["noun_form"],
            values["source_id"],
            dumps(values["additional_metadata"]),
            "{}",
            values["context"],
            values["question"],
            values["ans0"],
            values["ans1"],
            values["ans2"],
            dumps(values["option_roles"]),
            dumps(values["answer_info"]),
            values["label"],
            None,
            None,
            now,
        )


# --- reproduction report -----------------------------------------------------------------------


def published_format_detect(*, upload: ImportFile) -> str | None:
    """Which instance format a file is, from its name and first line: the first registered
    format whose `detect` says so (EsBBQ and CaBBQ look alike: esbbq-instances is returned for
    both; they differ only in language)."""
    first = upload.data[:4096].decode("utf-8", errors="replace").lstrip("\ufeff").split("\n")[0]
    for name in format_names(kind=INSTANCES):
        detect = format_get(name=name).detect
        if detect is not None and detect(upload.name, first):
            return name
    return None


def published_compare(
    *, dataset: Dataset, files: list[ImportFile], fmt: str = "", language: str = ""
) -> compare.Comparison:
    """Compare a dataset's instances with published instance files (nothing is written).
    Raises ImportRejected if a file cannot be read."""
    problems: list[ImportProblem] = []
    if not fmt:
        found = {published_format_detect(upload=upload) for upload in files}
        if None in found or len(found) != 1:
            problems.append(
                ImportProblem(
                    ", ".join(upload.name for upload in files),
                    None,
                    "format",
                    "cannot tell the format of every file (or they differ); give it with "
                    f"--format ({', '.join(format_names(kind=INSTANCES))})",
                )
            )
        else:
            fmt = found.pop()
    if problems:
        raise ImportRejected(problems)
    parse = instances_parse(fmt=fmt, files=files)
    if parse.problems:
        raise ImportRejected(parse.problems)
    if not language:
        languages = set(
            Instance.objects.filter(dataset=dataset, source_instance__isnull=True)
            .values_list("language", flat=True)
            .distinct()
        )
        language = languages.pop() if len(languages) == 1 else format_get(name=fmt).language
    published = [
        compare.Item(
            category=record.category,
            question_index=record.values["question_index"],
            context_condition=record.values["context_condition"],
            question_polarity=record.values["question_polarity"],
            context=record.values["context"],
            question=record.values["question"],
            answers=(record.values["ans0"], record.values["ans1"], record.values["ans2"]),
            label=record.values["label"],
            roles=tuple(record.values["option_roles"]),
            ref=f"{record.file}:{record.line}",
        )
        for record in parse.records
    ]
    kasauti = selectors.dataset_compare_items(dataset=dataset, language=language)
    return compare.compare_instances(published=published, kasauti=kasauti)
