"""The Format registry: every file format Kasauti imports, one registered object per name.

A format is one of two kinds:
    "templates"  template sets and other source files (BBQ's templates, IndiBias pairs, ...):
                 a `Reader` (importers/base.py) turns their tables into records.
    "instances"  published instance files (BBQ's data/*.jsonl, ...): an
                 `InstanceFileReader` (importers/layouts.py) reads them and writes them back.
The kind decides which parse and write phase the one import pipeline runs (importers/pipeline.py)
and which report it returns; callers ask `format_get(name)` instead of testing names.

Each benchmark package registers its formats in its `register()`
(apps/catalog/benchmarks/<name>/__init__.py); CatalogConfig.ready() calls them all
(apps.catalog.benchmarks.benchmarks_register).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.utils.module_loading import import_string

TEMPLATES = "templates"
INSTANCES = "instances"
KINDS = (TEMPLATES, INSTANCES)


@dataclass(frozen=True)
class Format:
    name: str  # what `import_benchmark --format` and the API's `format` take
    label: str  # a human name ("BBQ templates")
    kind: str  # TEMPLATES or INSTANCES
    # "module.Class" of the reader, imported when first used so that registering every format
    # at start-up stays cheap. TEMPLATES: a Reader subclass; INSTANCES: an InstanceFileReader.
    reader_path: str
    # INSTANCES: "module.function" (file name, first line) -> bool: does the file look like this
    # format? For the reproduction report when no format is given; "": never guessed.
    detect_path: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(
                f"format {self.name!r}: kind must be one of {KINDS}, not {self.kind!r}"
            )

    @property
    def reader(self) -> type:
        reader = import_string(self.reader_path)
        if getattr(reader, "format", self.name) != self.name:
            raise ValueError(f"format {self.name!r}: its reader reads {reader.format!r}")
        return reader

    @property
    def detect(self) -> Callable[[str, str], bool] | None:
        return import_string(self.detect_path) if self.detect_path else None

    @property
    def language(self) -> str:
        """INSTANCES: the language of the files (their rows do not say it)."""
        return self.reader.language


_FORMATS: dict[str, Format] = {}


def format_register(*, format: Format) -> Format:
    existing = _FORMATS.get(format.name)
    if existing is not None and existing != format:
        raise ValueError(f"format {format.name!r} is already registered")
    _FORMATS[format.name] = format
    return format


def format_find(*, name: str) -> Format | None:
    return _FORMATS.get(name)


def format_get(*, name: str) -> Format:
    found = _FORMATS.get(name)
    if found is None:
        raise ValueError(f"unknown format {name!r}; use one of {', '.join(format_names())}")
    return found


def format_names(*, kind: str | None = None) -> tuple[str, ...]:
    """The registered format names (of one kind), template formats first, in registration
    order within a kind."""
    kinds: Any = KINDS if kind is None else (kind,)
    return tuple(f.name for k in kinds for f in _FORMATS.values() if f.kind == k)


def format_unregister(*, name: str) -> None:
    """For tests that register a throwaway format."""
    _FORMATS.pop(name, None)
