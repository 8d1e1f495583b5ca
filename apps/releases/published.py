"""The `published` release file: a dataset imported from published instance files, written back
in the source's own layout (BBQ jsonl, BharatBBQ csv, EsBBQ/CaBBQ csv or jsonl).

The file is a zip archive with one entry per source file, under its original name, each equal
byte for byte to the file that was imported (apps.catalog.importers.layouts renders
them). The archive itself is deterministic (fixed timestamps, entries by name), so the same
release content always has the same checksum.

Also here: the BBQ-compatible row stream for such a dataset (the regular instances files), whose
additional_metadata comes from the published row rather than from a template.
"""

from __future__ import annotations

import ast
import json
import zipfile
from collections.abc import Iterator
from itertools import groupby
from pathlib import Path
from typing import Any

from django.db.models import IntegerField
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast

from apps.catalog.bulk import INSTANCE_TEXT_COLUMNS
from apps.catalog.importers.formats import INSTANCES, format_find
from apps.catalog.importers.layouts import published_file_render
from apps.catalog.models import Instance

from .models import FileFormat, FileKind, Release, ReleaseFile
from .schemas import instance_provenance
from .writers import HashingFile

CONTENT_TYPES = {FileFormat.ZIP: "application/zip"}
CHUNK_SIZE = 5000
# A fixed date (the earliest a zip can hold): the archive's bytes depend on content only.
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)

_FIELDS = (
    "example_id",
    "source_id",
    "question_index",
    "category__name",
    "context_condition",
    "question_polarity",
    "pairing",
    "noun_form",
    "proper_noun",
    *INSTANCE_TEXT_COLUMNS,  # catalog's one list of an instance's texts
    "label",
    "answer_info",
    "additional_metadata",
    "language",
)


def release_is_published(*, release: Release) -> bool:
    found = format_find(name=release.dataset.source_format)
    return found is not None and found.kind == INSTANCES


def _published_instances(release: Release):
    # Translations of the published rows live in the same dataset but are not the source.
    return Instance.objects.filter(
        memberships__release=release,
        template_version__isnull=True,
        source_instance__isnull=True,
    )


def _values(row: dict[str, Any]) -> dict[str, Any]:
    row["category"] = row.pop("category__name")
    return row


def published_file_rows(*, release: Release) -> Iterator[tuple[str, Iterator[dict[str, Any]]]]:
    """(source file name, its rows in file order), files by name."""
    rows = (
        _published_instances(release)
        .annotate(
            source_file=KeyTextTransform("file", "additional_metadata"),
            source_row=Cast(KeyTextTransform("row", "additional_metadata"), IntegerField()),
        )
        .order_by("source_file", "source_row", "id")
        .values("source_file", *_FIELDS)
        .iterator(chunk_size=CHUNK_SIZE)
    )
    for name, group in groupby(rows, key=lambda row: row["source_file"]):
        yield name, (_values(row) for row in group)


def published_file_write(
    *, release: Release, directory: Path, relative_dir: str
) -> list[ReleaseFile]:
    """Write `published.zip` for a release of a published-instance dataset (none otherwise)."""
    if not release_is_published(release=release):
        return []
    fmt = release.dataset.source_format
    name = f"{FileKind.PUBLISHED}.{FileFormat.ZIP}"
    written = 0
    with open(directory / name, "wb") as raw:
        sink = HashingFile(raw)
        with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for file_name, rows in published_file_rows(release=release):
                info = zipfile.ZipInfo(file_name, date_time=_ZIP_DATE)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                counted = _counting(rows)
                with archive.open(info, "w") as entry:
                    for chunk in _joined(
                        published_file_render(fmt=fmt, file_name=file_name, rows=counted)
                    ):
                        entry.write(chunk.encode("utf-8"))
                written += counted.count  # type: ignore[attr-defined]
        raw.flush()
    return [
        ReleaseFile(
            release=release,
            kind=FileKind.PUBLISHED,
            format=FileFormat.ZIP,
            path=f"{relative_dir}/{name}",
            sha256=sink.sha256,
            size=sink.size,
            rows=written,
        )
    ]


class _counting:
    """Passes rows through and counts them."""

    def __init__(self, rows: Iterator[dict[str, Any]]) -> None:
        self.rows = rows
        self.count = 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for row in self.rows:
            self.count += 1
            yield row


def _joined(chunks: Iterator[str], size: int = 1 << 16) -> Iterator[str]:
    # One write per row is slow through zlib; join rows into blocks first.
    block: list[str] = []
    length = 0
    for chunk in chunks:
        block.append(chunk)
        length += len(chunk)
        if length >= size:
            yield "".join(block)
            block, length = [], 0
    if block:
        yield "".join(block)


def published_extract(*, archive_path: Path, directory: Path) -> list[Path]:
    """Unpack a verified published.zip into `directory` (the source files by name)."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    with zipfile.ZipFile(archive_path) as archive:
        for info in archive.infolist():
            # Names are the imported files' base names; refuse anything that is not.
            if Path(info.filename).name != info.filename:
                raise ValueError(f"unexpected entry {info.filename!r} in {archive_path}")
            target = directory / info.filename
            target.write_bytes(archive.read(info))
            written.append(target)
    return written


# --- the BBQ-compatible instances files of a published dataset -------------------------------


def _as_list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    if isinstance(value, str) and value.startswith("["):
        try:  # EsBBQ's CSV keeps lists as Python reprs
            parsed = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            return [value]
        return [str(v) for v in parsed] if isinstance(parsed, list) else [value]
    return [] if value in (None, "") else [str(value)]


def _as_text(value: Any) -> str:
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else str(value)


def _subcategory(value: Any) -> str:
    text = _as_text(value)
    return "" if text.strip() in ("", "None") else text


def published_metadata(row: dict[str, Any]) -> dict[str, Any]:
    """BBQ's additional_metadata for a published instance, from the fields it was imported with
    (BBQ: its own additional_metadata; EsBBQ: top-level keys; BharatBBQ: none)."""
    extra = row["additional_metadata"].get("extra", {})
    nested = extra.get("additional_metadata")
    source = nested if isinstance(nested, dict) else extra
    return {
        # Missing, or BBQ's own "None": empty, as for every release (instance_lines).
        "subcategory": _subcategory(source.get("subcategory")),
        "stereotyped_groups": _as_list(source.get("stereotyped_groups")),
        "version": _as_text(source.get("version")) or "None",
        "source": _as_text(source.get("source")),
        "template_id": row["question_index"],
        "pairing": row["pairing"],
        "proper_noun": row["proper_noun"],
    }


def published_instance_rows(*, release: Release) -> Iterator[dict[str, Any]]:
    """The release's instances as BBQ-compatible dicts (the layout of the instances files)."""
    rows = (
        Instance.objects.filter(memberships__release=release)
        .order_by("category__name", "language", "example_id", "id")
        .values(*_FIELDS, "id", "template_version_id", "source_instance_id")
        .iterator(chunk_size=CHUNK_SIZE)
    )
    for row in rows:
        info = row["answer_info"]
        yield {
            "example_id": row["example_id"],
            "question_index": row["question_index"],
            "question_polarity": row["question_polarity"],
            "context_condition": row["context_condition"],
            "category": row["category__name"],
            "answer_info": {key: info.get(key, []) for key in ("ans0", "ans1", "ans2")},
            "additional_metadata": published_metadata(row),
            **{column: row[column] for column in INSTANCE_TEXT_COLUMNS},
            "label": row["label"],
            "language": row["language"],
            # An imported row has no template version (null), a translation of one its
            # source.
            "provenance": instance_provenance(
                instance_id=row["id"],
                template_version_id=row["template_version_id"],
                source_instance_id=row["source_instance_id"],
                **{column: row[column] for column in INSTANCE_TEXT_COLUMNS},
                label=row["label"],
            ),
        }
