"""Importing benchmark files: the shared machinery. What Kasauti knows about each benchmark (its
readers, generator and published-instance layouts) lives in apps/catalog/benchmarks/<name>/.

Public API:
    benchmark_import(*, dataset_name, fmt, files, created_by=None, language="en", category="",
                     seed=0, strict=False) -> ImportReport | InstanceImportReport,
        raising apps.core.errors.ImportRejected (nothing written) on any problem
    parse_import(...) -> ParseResult | InstanceParse  (phase 1 only: no database writes)
    ImportFile(name, data)                             (one uploaded file)
    Format, format_get(name=...), format_names(kind=None)   (the registered formats)

The modules, by job:
    formats.py          the Format registry (kinds "templates" and "instances")
    pipeline.py         the one entry: sends a format to its kind's import
    tables.py           CSV/xlsx files -> tables (encodings, headers); values.py cell parsers
    limits.py           what one file may hold; an xlsx's declared extent
    base.py, records.py, templates.py   template-kind readers: base class, records, helpers
    template_import.py, template_write.py   template-kind parse and write phases
    layouts.py, layout_jsonl.py, layout_csv.py   instance-kind file layouts (read and write back)
    instances.py        instance-kind parse and write phases, and the reproduction comparison
    reports.py          what an import reports
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .formats import INSTANCES, TEMPLATES, Format, format_get, format_names, format_register

if TYPE_CHECKING:
    from .pipeline import benchmark_import, parse_import
    from .reports import ImportReport, InstanceImportReport
    from .tables import ImportFile

# The rest loads when first used: every process registers the formats at start-up
# (CatalogConfig.ready()), and that must not cost the import machinery (the pipeline brings the
# catalog's services and selectors).
_LAZY = {
    "benchmark_import": "pipeline",
    "parse_import": "pipeline",
    "ImportReport": "reports",
    "InstanceImportReport": "reports",
    "ImportFile": "tables",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "INSTANCES",
    "TEMPLATES",
    "Format",
    "ImportFile",
    "ImportReport",
    "InstanceImportReport",
    "benchmark_import",
    "format_get",
    "format_names",
    "format_register",
    "parse_import",
]
