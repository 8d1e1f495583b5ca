"""Release file formats: one Writer and one Reader class per format.

A Writer takes row dicts (as built by apps.releases.selectors) and a binary file object, and
returns the number of rows written: `JsonlWriter(fileobj, kind="instances").write(rows)`.
Release creation fans one database pass out to the three formats, so writers also accept
batches (`write_batch`) and are finished with `close()`.

Writers also take `LineBatch`es (`write_lines`): rows already serialised as JSONL lines
(PostgreSQL builds them for a release's instances, see apps.releases.selectors). JSONL writes
the bytes as they are, Parquet the rows parsed into Arrow from them, CSV is assembled
column-wise by Arrow compute: no per-row Python at all. Both paths produce byte-identical
files (tests/releases/test_fast_path.py).

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
from functools import cached_property
from typing import Any, BinaryIO, ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json
import pyarrow.parquet as pq

from .csv_safety import (
    csv_cell_neutralise,
    csv_cell_restore,
    csv_cells_neutralise,
    first_bytes,
    text_scalar,
)

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
                        ("review_status", _STR),
                        ("pairing", _STR),
                        ("proper_noun", pa.bool_()),
                        (
                            "translation_review",
                            pa.struct(
                                [
                                    ("status", _STR),
                                    ("revision", pa.int64()),
                                    ("threshold", pa.float64()),
                                    ("similarity", pa.float64()),
                                    ("embedder_version", _STR),
                                    ("forward_model_version", _STR),
                                    ("backward_model_version", _STR),
                                ]
                            ),
                        ),
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


# --- line batches: rows the database has already serialised --------------------------------

# Lines per LineBatch: a multiple of BATCH_SIZE, so that Parquet row groups fall where the
# row-dict path puts them (one per BATCH_SIZE rows) and the files stay byte-identical.
LINES_PER_BATCH = BATCH_SIZE


class LineBatch:
    """Complete JSONL lines of one kind (UTF-8, each ending in \\n, exactly as JsonlWriter
    writes them), with where each line ends and, per nested column, where each line's value
    starts and stops (the producer knows these offsets). From the bytes, in C++ (Arrow), once:
    the JSON text of the nested values (CSV writes it) and the rows as an Arrow table.

    The table is parsed in two parts, because nested values repeat (a template version's
    metadata, a combination's answer_info) and the JSON parser spends most of its time on
    them: the lines without their nested members, and each nested column's distinct values,
    expanded afterwards."""

    def __init__(
        self,
        data: bytes,
        *,
        kind: str,
        line_ends: np.ndarray,
        spans: dict[str, tuple[np.ndarray, np.ndarray]],
    ) -> None:
        self.data = data
        self.kind = kind
        self.rows = len(line_ends)
        self.schema = SCHEMAS[kind]
        if len(data) >= 2**31:  # Arrow's 32-bit string offsets; a batch is some MB in practice
            raise ValueError(f"{kind}: a line batch of {len(data)} bytes is too large")
        # Nested columns in schema order, each with the key that precedes its value.
        self.nested = [field for field in self.schema if _is_nested(field)]
        if sorted(spans) != sorted(field.name for field in self.nested):
            raise ValueError(f"{kind}: spans of {sorted(spans)}, nested columns {self.nested}")
        if self.schema.names[0] in spans:
            raise ValueError(f"{kind}: the first column cannot be nested")
        self.line_starts = np.concatenate([[0], line_ends[:-1]]).astype(np.int64)
        self.line_ends = np.asarray(line_ends, dtype=np.int64)
        self.spans = {name: spans[name] for name in self.schema.names if name in spans}
        # Every line ends in a newline, the last one at the end of the data, every nested
        # value lies inside its line after its key, in schema order.
        byte = np.frombuffer(data, dtype=np.uint8)
        ranges = self._member_ranges()
        if self.rows and (
            self.line_ends[-1] != len(data)
            or np.any(byte[self.line_ends - 1] != ord("\n"))
            or np.any(np.diff(ranges.ravel()) < 0)
            or np.any(ranges[:, -1] <= ranges[:, 0])
            or not all(
                np.all(
                    byte[start[:, None] - len(key) + np.arange(len(key))]
                    == np.frombuffer(key, np.uint8)
                )
                for key, (start, _) in zip(self._keys(), self.spans.values(), strict=True)
            )
        ):
            raise ValueError(f"{kind}: the line batch does not match its line and span offsets")

    def _keys(self) -> list[bytes]:
        return [f', "{name}": '.encode() for name in self.spans]

    def _member_ranges(self) -> np.ndarray:
        """Per line, the byte offsets [line start, key 1 start, value 1 end, key 2 start, ...,
        line end]: between consecutive pairs lies the line without its nested members."""
        columns = [self.line_starts]
        for key, (start, stop) in zip(self._keys(), self.spans.values(), strict=True):
            columns += [np.asarray(start, dtype=np.int64) - len(key), np.asarray(stop, np.int64)]
        return np.stack([*columns, self.line_ends], axis=1)

    def parse(self) -> None:
        """Work out the nested JSON text and the table now, once, before the writers share
        them (cached_property is not safe to race from threads)."""
        self.table  # noqa: B018 (computes and caches nested_json too)

    @cached_property
    def nested_json(self) -> dict[str, pa.DictionaryArray]:
        """The JSON text of each nested column, cut out of the lines and dictionary-encoded
        (distinct values once): the same text CsvWriter encodes (both use json's default
        separators and ensure_ascii=False)."""
        data = pa.py_buffer(self.data)
        return {
            name: pc.dictionary_encode(_pieces(data, np.stack([start, stop], axis=1)))
            for name, (start, stop) in self.spans.items()
        }

    @cached_property
    def table(self) -> pa.Table:
        nested = self.nested_json
        # Distinct values that are all JSON objects of a struct column parse as lines of their
        # own (always, for instances); otherwise the lines are parsed as they are.
        structs = self.rows and all(
            pa.types.is_struct(field.type)
            and np.all(first_bytes(nested[field.name].dictionary) == ord("{"))
            for field in self.nested
        )
        if not structs:  # (not for instances) parse the lines as they are
            return _json_table(self.data, self.schema, rows=self.rows, kind=self.kind)
        flat_schema = pa.schema([field for field in self.schema if not _is_nested(field)])
        flat = _concatenated(_pieces(pa.py_buffer(self.data), self._member_ranges()))
        columns = dict(
            zip(
                flat_schema.names,
                _json_table(flat, flat_schema, rows=self.rows, kind=self.kind).columns,
                strict=True,
            )
        )
        for field in self.nested:
            encoded = nested[field.name]
            lines = pc.binary_join_element_wise(
                encoded.dictionary, text_scalar("\n"), text_scalar("")
            )
            members = pa.schema(list(field.type))
            values = _json_table(
                _concatenated(lines), members, rows=len(encoded.dictionary), kind=self.kind
            )
            struct = pa.StructArray.from_arrays(
                [column.combine_chunks() for column in values.columns], fields=list(field.type)
            )
            columns[field.name] = struct.take(encoded.indices)
        return pa.Table.from_arrays(
            [columns[name] for name in self.schema.names], schema=self.schema
        )


def _json_table(data, schema: pa.Schema, *, rows: int, kind: str) -> pa.Table:
    """JSON lines (one object a line) parsed by Arrow into a table of `schema`."""
    table = pa_json.read_json(
        io.BytesIO(data),
        read_options=pa_json.ReadOptions(block_size=1 << 20),
        parse_options=pa_json.ParseOptions(
            explicit_schema=schema, unexpected_field_behavior="error"
        ),
    )
    if table.num_rows != rows:
        raise ValueError(f"{kind}: {rows} lines parsed into {table.num_rows} rows")
    return table.select(schema.names).cast(schema)


def _pieces(data: pa.Buffer, ranges: np.ndarray) -> pa.StringArray:
    """The byte ranges [r[0], r[1]), [r[2], r[3]), ... of each row r of `ranges` (offsets into
    `data`, in increasing order), in order, one value per range."""
    bounds = np.append(ranges.ravel(), ranges[-1, -1] if len(ranges) else 0).astype(np.int32)
    count = len(bounds) - 1
    pieces = pa.StringArray.from_buffers(count, pa.py_buffer(bounds), data)
    # Every other piece (the rest lies between ranges). Built from buffers: pa.array() would
    # import pandas (half a second, once per process).
    every_other = np.arange(0, count, 2, dtype=np.int64)
    return pieces.take(
        pa.Array.from_buffers(pa.int64(), len(every_other), [None, pa.py_buffer(every_other)])
    )


def _csv_quoted(cells: pa.Array) -> list[pa.Array | pa.Scalar]:
    """A column as csv.writer quotes it (QUOTE_MINIMAL, excel dialect: a cell holding the
    delimiter, the quote character or a line break is quoted, quotes inside doubled), as
    pieces to join: the cells, or '"', the cells, '"' when every cell is quoted (the wrapping
    then costs nothing)."""
    quote = text_scalar('"')
    data = np.frombuffer(_concatenated(cells), dtype=np.uint8)
    if not (
        (data == ord('"')) | (data == ord(",")) | (data == ord("\n")) | (data == ord("\r"))
    ).any():
        return [cells]  # nothing in the whole column to quote: the common case for most
    if pc.all(pc.match_substring(cells, '"')).as_py():  # every cell quoted (JSON objects)
        return [quote, pc.replace_substring(cells, '"', '""'), quote]
    needs = pc.match_substring_regex(cells, '[",\r\n]')
    doubled = pc.replace_substring(cells, '"', '""')
    quoted = pc.binary_join_element_wise(quote, doubled, quote, text_scalar(""))
    return [pc.if_else(needs, quoted, cells)]


def _csv_cells(column: pa.ChunkedArray | pa.Array, field: pa.Field) -> pa.Array:
    """One column as csv.writer renders its values: str() of scalars, "" for None."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if pa.types.is_boolean(field.type):
        cells = pc.if_else(column, text_scalar("True"), text_scalar("False"))
    elif pa.types.is_string(field.type):
        cells = column
    else:
        cells = pc.cast(column, pa.string())
    return pc.fill_null(cells, text_scalar(""))


def _concatenated(cells: pa.Array) -> memoryview:
    """The values of a string array back to back, as a view of its data buffer (no copy)."""
    if len(cells) == 0:
        return memoryview(b"")
    offsets = np.frombuffer(cells.buffers()[1], dtype=np.int32)[cells.offset :]
    start, stop = int(offsets[0]), int(offsets[len(cells)])
    return memoryview(cells.buffers()[2])[start:stop]


class HashingFile:
    """A write-only binary file that hashes and counts what goes through it, so a release
    file's checksum is known the moment it is written (no second read)."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw = raw
        self.hash = hashlib.sha256()
        self.size = 0

    def write(self, data) -> int:
        view = memoryview(data)  # bytes, or a buffer pyarrow hands over: no copy
        self.hash.update(view)
        self.size += view.nbytes
        return self.raw.write(view)

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

    def write_lines(self, batch: LineBatch) -> None:
        """Write a LineBatch: the same bytes as write_batch of the same rows."""
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

    def write_lines(self, batch: LineBatch) -> None:
        self.fileobj.write(batch.data)
        self.rows += batch.rows


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

    def write_lines(self, batch: LineBatch) -> None:
        if not self.header_written:
            self.write_batch([])
        # Column-wise: every cell rendered and quoted by Arrow compute, then each row's cells
        # joined with ',' and ended with csv.writer's '\r\n', all in one pass.
        nested = batch.nested_json
        pieces: list[pa.Array | pa.Scalar] = []
        for field in self.schema:
            if field.name in nested:  # quoted once per distinct value
                encoded = nested[field.name]
                quoted = [
                    piece.take(encoded.indices) if isinstance(piece, pa.Array) else piece
                    for piece in _csv_quoted(encoded.dictionary)
                ]
            else:
                cells = _csv_cells(batch.table.column(field.name), field)
                if pa.types.is_string(field.type):
                    cells = csv_cells_neutralise(cells)
                quoted = _csv_quoted(cells)
            pieces += [*quoted, text_scalar(",")]
        pieces[-1] = text_scalar("\r\n")
        self.fileobj.write(_concatenated(pc.binary_join_element_wise(*pieces, text_scalar(""))))
        self.rows += batch.rows

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

    def write_lines(self, batch: LineBatch) -> None:
        # row_group_size keeps one row group per BATCH_SIZE rows, as write_batch makes them.
        self.writer.write_table(batch.table, row_group_size=BATCH_SIZE)
        self.rows += batch.rows

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
