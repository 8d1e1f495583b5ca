"""Release file readers: they give back the row dicts the writers took, so "what was written
equals what is read" is a plain equality in the tests and in `export_release`."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import BinaryIO, ClassVar

import pyarrow as pa
import pyarrow.parquet as pq

from .csv_safety import csv_cell_restore
from .schemas import BATCH_SIZE, SCHEMAS, Row, is_nested


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
            if is_nested(field):
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


READERS: dict[str, type[Reader]] = {r.format: r for r in (JsonlReader, CsvReader, ParquetReader)}
