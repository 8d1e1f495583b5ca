"""The one import pipeline: every caller (the command, the API, the Import page, the import job)
comes here with a format name, and the registered Format's kind says which parse and write phase
run and which report comes back:

    "templates"  importers/template_import.py  -> ImportReport
    "instances"  importers/instances.py        -> InstanceImportReport

Both are all-or-nothing: every problem is collected first (nothing is written) and raised as one
ImportRejected; findings (defects of the published data that the import keeps) are reported, or
rejected with `strict`.
"""

from __future__ import annotations

from apps.core.errors import ImportProblem, ImportRejected

from .formats import INSTANCES, format_find
from .instances import instances_import, instances_parse
from .layouts import InstanceParse
from .records import ParseResult
from .reports import ImportReport, InstanceImportReport
from .tables import ImportFile
from .template_import import templates_import, templates_parse


def parse_import(
    *, fmt: str, files: list[ImportFile], language: str = "en", category: str = "", seed: int = 0
) -> ParseResult | InstanceParse:
    """Phase 1 only: read and check every file; touches no table. Problems are in the result.
    `language`, `category` and `seed` are for template formats (instance files say theirs)."""
    found = format_find(name=fmt)
    # An unknown name goes the template way, which reports it with the template format names.
    if found is not None and found.kind == INSTANCES:
        return instances_parse(fmt=fmt, files=files)
    return templates_parse(fmt=fmt, files=files, language=language, category=category, seed=seed)


def benchmark_import(
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
) -> ImportReport | InstanceImportReport:
    """Import benchmark files of any format into a dataset (created if needed). Raises
    ImportRejected listing every problem, with nothing written. `seed`: the draws of formats
    whose generator samples (BBQ), recorded with each template. `adapted_from`: the dataset
    the files adapt (template sets that name their source templates, esbbq/cabbq); the
    adaptation record is written with the templates (importers/template_import.py)."""
    found = format_find(name=fmt)
    # An unknown name goes the template way, which rejects it (as parse_import says).
    if found is not None and found.kind == INSTANCES:
        if adapted_from.strip():
            raise ImportRejected(
                [
                    ImportProblem(
                        "",
                        None,
                        "adapted_from",
                        f"{fmt} files are published instances: only a template set records "
                        "which source template each row adapts",
                    )  # fmt: skip
                ]
            )
        return instances_import(
            dataset_name=dataset_name, fmt=fmt, files=files, created_by=created_by, strict=strict
        )
    return templates_import(
        dataset_name=dataset_name,
        fmt=fmt,
        files=files,
        created_by=created_by,
        language=language,
        category=category,
        seed=seed,
        strict=strict,
        adapted_from=adapted_from,
    )
