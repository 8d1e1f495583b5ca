"""Release file formats: one Writer class per format (the Readers are in readers.py, the
columns of each kind in schemas.py).

A Writer takes row dicts (as built by apps.releases.selectors) and a binary file object, and
returns the number of rows written: `JsonlWriter(fileobj, kind="instances").write(rows)`.
Release creation fans one database pass out to the three formats, so writers also accept
batches (`write_batch`) and are finished with `close()`.

Writers also take `LineBatch`es (`write_lines`, line_batches.py): rows already serialised as
JSONL lines. Both paths produce byte-identical files (tests/releases/test_fast_path.py).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterable, Iterator
from typing import BinaryIO, ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .csv_safety import csv_cell_neutralise, csv_cells_neutralise, text_scalar
from .line_batches import LineBatch, concatenated
from .schemas import BATCH_SIZE, SCHEMAS, Row, is_nested


def batched(rows: Iterable[Row], size: int = BATCH_SIZE) -> Iterator[list[Row]]:
    batch: list[Row] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _csv_quoted(cells: pa.Array) -> list[pa.Array | pa.Scalar]:
    """A column as csv.writer quotes it (QUOTE_MINIMAL, excel dialect: a cell holding the
    delimiter, the quote character or a line break is quoted, quotes inside doubled), as
    pieces to join: the cells, or '"', the cells, '"' when every cell is quoted (the wrapping
    then costs nothing)."""
    quote = text_scalar('"')
    data = np.frombuffer(concatenated(cells), dtype=np.uint8)
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
        self.nested = [is_nested(field) for field in self.schema]
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
        self.fileobj.write(concatenated(pc.binary_join_element_wise(*pieces, text_scalar(""))))
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


WRITERS: dict[str, type[Writer]] = {w.format: w for w in (JsonlWriter, CsvWriter, ParquetWriter)}
