"""Release file formats: one Writer and one Reader class per format.

A Writer takes row dicts (as built by apps.releases.selectors) and a binary file object, and
returns the number of rows written: `JsonlWriter(fileobj, kind="instances").write(rows)`.
Release creation fans one database pass out to the three formats, so writers also accept
batches (`write_batch`) and are finished with `close()`.

Readers give back the same row dicts, so "what was written equals what is read" is a plain
equality in the tests and in `export_release`.

The pyarrow schemas below are the single description of each kind's columns: Parquet uses
them directly, CSV uses them to know which columns are nested (JSON-encoded) or integers.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, ClassVar

import pyarrow as pa
import pyarrow.parquet as pq

from .csv_safety import csv_cell_neutralise, csv_cell_restore

Row = dict[str, Any]

BATCH_SIZE = 5000

_STR = pa.string()
_STR_LIST = pa.list_(pa.string())

SCHEMAS: dict[str, pa.Schema] = {
    # BBQ's JSONL layout (key order matters for BBQ tooling), plus `language`.
    "instances": pa.schema(
        [
            ("example_id", pa.int64()),
            ("question_index", _STR),
            ("question_polarity", _STR),
            ("context_condition", _STR),
            ("category", _STR),
            (
                "answer_info",
                pa.struct([("ans0", _STR_LIST), ("ans1", _STR_LIST), ("ans2", _STR_LIST)]),
            ),
            (
                "additional_metadata",
                pa.struct(
                    [
                        ("subcategory", _STR),
                        ("stereotyped_groups", _STR_LIST),
                        ("version", _STR),
                        ("source", _STR),
                        ("template_id", _STR),
                        ("pairing", _STR),
                        ("proper_noun", pa.bool_()),
                    ]
                ),
            ),
            ("context", _STR),
            ("question", _STR),
            ("ans0", _STR),
            ("ans1", _STR),
            ("ans2", _STR),
            ("label", pa.int64()),
            ("language", _STR),
        ]
    ),
    "sentence_pairs": pa.schema(
        [
            ("external_id", _STR),
            ("category", _STR),
            ("language", _STR),
            ("sent_more", _STR),
            ("sent_less", _STR),
            ("direction", _STR),
            ("target_group", _STR),
        ]
    ),
    "tuples": pa.schema(
        [
            ("id", pa.int64()),
            ("category", _STR),
            ("language", _STR),
            ("identity_term", _STR),
            ("attribute", _STR),
            ("polarity", _STR),
            ("votes", pa.list_(pa.int64())),
        ]
    ),
    "context_sets": pa.schema(
        [
            ("external_id", _STR),
            ("category", _STR),
            ("language", _STR),
            ("context", _STR),
            ("target_group", _STR),
            ("stereotypes", _STR_LIST),
            ("anti_stereotypes", _STR_LIST),
        ]
    ),
}


def _is_nested(field: pa.Field) -> bool:
    return pa.types.is_struct(field.type) or pa.types.is_list(field.type)


def batched(rows: Iterable[Row], size: int = BATCH_SIZE) -> Iterator[list[Row]]:
    batch: list[Row] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


class HashingFile:
    """A write-only binary file that hashes and counts what goes through it, so a release
    file's checksum is known the moment it is written (no second read)."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw = raw
        self.hash = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes) -> int:
        data = bytes(data)  # pyarrow hands over memoryviews/buffers
        self.hash.update(data)
        self.size += len(data)
        return self.raw.write(data)

    def tell(self) -> int:
        return self.size

    def flush(self) -> None:
        self.raw.flush()

    def writable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def readable(self) -> bool:
        return False

    def close(self) -> None:
        # The owner closes the underlying file; pyarrow calls close() when its writer ends.
        if not self.raw.closed:
            self.raw.flush()

    @property
    def closed(self) -> bool:
        return self.raw.closed

    @property
    def sha256(self) -> str:
        return self.hash.hexdigest()


class Writer:
    format: ClassVar[str]
    extension: ClassVar[str]
    content_type: ClassVar[str]

    def __init__(self, fileobj: BinaryIO, *, kind: str) -> None:
        self.fileobj = fileobj
        self.kind = kind
        self.schema = SCHEMAS[kind]
        self.rows = 0

    def write(self, rows: Iterable[Row]) -> int:
        for batch in batched(rows):
            self.write_batch(batch)
        self.close()
        return self.rows

    def write_batch(self, rows: list[Row]) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Finish the file (footer, flush). The caller owns and closes fileobj."""


class JsonlWriter(Writer):
    format = "jsonl"
    extension = "jsonl"
    content_type = "application/x-ndjson"

    def write_batch(self, rows: list[Row]) -> None:
        # One encode and one write per batch: per-row writes dominate the cost otherwise.
        dumps = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode
        self.fileobj.write("".join(dumps(row) + "\n" for row in rows).encode("utf-8"))
        self.rows += len(rows)


class CsvWriter(Writer):
    """Same columns as JSONL; nested values (structs, lists) are JSON strings. Text cells
    that a spreadsheet would run as a formula are neutralised (csv_safety)."""

    format = "csv"
    extension = "csv"
    content_type = "text/csv; charset=utf-8"

    def __init__(self, fileobj: BinaryIO, *, kind: str) -> None:
        super().__init__(fileobj, kind=kind)
        self.names = self.schema.names
        self.nested = [_is_nested(field) for field in self.schema]
        self.text = [pa.types.is_string(field.type) for field in self.schema]
        self.header_written = False

    def write_batch(self, rows: list[Row]) -> None:
        buffer = io.StringIO()
        out = csv.writer(buffer)
        if not self.header_written:
            out.writerow(self.names)
            self.header_written = True
        dumps = json.JSONEncoder(ensure_ascii=False).encode
        columns = list(zip(self.names, self.nested, self.text, strict=True))
        out.writerows(
            [
                dumps(row[name])
                if nested
                else csv_cell_neutralise(row[name])
                if text and row[name] is not None
                else row[name]
                for name, nested, text in columns
            ]
            for row in rows
        )
        self.fileobj.write(buffer.getvalue().encode("utf-8"))
        self.rows += len(rows)

    def close(self) -> None:
        if not self.header_written:  # an empty file still says what its columns are
            self.write_batch([])


class ParquetWriter(Writer):
    """One row group per batch, so memory stays at one batch whatever the release size."""

    format = "parquet"
    extension = "parquet"
    content_type = "application/vnd.apache.parquet"

    def __init__(self, fileobj: BinaryIO, *, kind: str) -> None:
        super().__init__(fileobj, kind=kind)
        self.writer = pq.ParquetWriter(fileobj, self.schema, compression="zstd")

    def write_batch(self, rows: list[Row]) -> None:
        self.writer.write_table(pa.Table.from_pylist(rows, schema=self.schema))
        self.rows += len(rows)

    def close(self) -> None:
        self.writer.close()


class Reader:
    format: ClassVar[str]

    def __init__(self, fileobj: BinaryIO, *, kind: str) -> None:
        self.fileobj = fileobj
        self.kind = kind
        self.schema = SCHEMAS[kind]

    def __iter__(self) -> Iterator[Row]:
        raise NotImplementedError


class JsonlReader(Reader):
    format = "jsonl"

    def __iter__(self) -> Iterator[Row]:
        for line in self.fileobj:
            if line.strip():
                yield json.loads(line)


class CsvReader(Reader):
    format = "csv"

    def __iter__(self) -> Iterator[Row]:
        text = io.TextIOWrapper(self.fileobj, encoding="utf-8", newline="")
        decoders = {}
        for field in self.schema:
            if _is_nested(field):
                decoders[field.name] = json.loads
            elif pa.types.is_integer(field.type):
                decoders[field.name] = int
            elif pa.types.is_string(field.type):
                decoders[field.name] = csv_cell_restore
        try:
            for row in csv.DictReader(text):
                yield {
                    name: decoders[name](value) if name in decoders else value
                    for name, value in row.items()
                }
        finally:
            text.detach()  # leave the caller's file open


class ParquetReader(Reader):
    format = "parquet"

    def __iter__(self) -> Iterator[Row]:
        for batch in pq.ParquetFile(self.fileobj).iter_batches(batch_size=BATCH_SIZE):
            yield from batch.to_pylist()


WRITERS: dict[str, type[Writer]] = {w.format: w for w in (JsonlWriter, CsvWriter, ParquetWriter)}
READERS: dict[str, type[Reader]] = {r.format: r for r in (JsonlReader, CsvReader, ParquetReader)}
