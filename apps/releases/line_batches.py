"""Line batches: rows the database has already serialised as JSONL lines (PostgreSQL builds
them for a release's instances, see apps.releases.instance_lines). The writers take them
whole: JSONL writes the bytes as they are, Parquet the rows parsed into Arrow from them, CSV
is assembled column-wise by Arrow compute; no per-row Python at all."""

from __future__ import annotations

import io
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from .csv_safety import first_bytes, text_scalar
from .schemas import BATCH_SIZE, SCHEMAS, is_nested

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
        self.nested = [field for field in self.schema if is_nested(field)]
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
        flat_schema = pa.schema([field for field in self.schema if not is_nested(field)])
        flat = concatenated(_pieces(pa.py_buffer(self.data), self._member_ranges()))
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
                concatenated(lines), members, rows=len(encoded.dictionary), kind=self.kind
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


def concatenated(cells: pa.Array) -> memoryview:
    """The values of a string array back to back, as a view of its data buffer (no copy)."""
    if len(cells) == 0:
        return memoryview(b"")
    offsets = np.frombuffer(cells.buffers()[1], dtype=np.int32)[cells.offset :]
    start, stop = int(offsets[0]), int(offsets[len(cells)])
    return memoryview(cells.buffers()[2])[start:stop]
