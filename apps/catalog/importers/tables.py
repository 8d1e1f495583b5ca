"""Reading an uploaded file into rows: decoding, CSV/xlsx parsing, header normalisation.

Every row remembers the physical line it starts on (header = line 1; for xlsx the sheet row),
because every problem an import reports must point the author at the exact place to fix.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from apps.core.errors import ImportProblem
from apps.core.text import nfc

from .limits import ReadBudget, TableError, TableLimits, xlsx_extent, xlsx_extent_check

# An xlsx file is a zip archive; sniffing the magic bytes beats trusting the file name.
XLSX_MAGIC = b"PK\x03\x04"
_HEADER_SEPARATORS = re.compile(r"[\s_\-]+")


@dataclass(frozen=True)
class ImportFile:
    """One uploaded file: its name (as shown in problems) and its raw bytes."""

    name: str
    data: bytes


def header_key(label: str) -> str:
    """Canonical form of a column name: case-insensitive, `_`/space/`-` equivalent."""
    return _HEADER_SEPARATORS.sub("_", label.strip().lower()).strip("_")


@dataclass
class Row:
    """One data row: cells keyed by canonical header, plus where it starts in the file."""

    line: int
    cells: dict[str, str]  # NFC, stripped
    # The cells whose text has spaces or newlines at its ends, as published (NFC): a reader
    # that reproduces a generator which keeps them (BharatBBQ) reads them with `get_raw`.
    raw: dict[str, str] = field(default_factory=dict)

    def get(self, key: str) -> str:
        return self.cells.get(key, "")

    def get_raw(self, key: str) -> str:
        return self.raw.get(key, self.cells.get(key, ""))


@dataclass
class Table:
    file: str
    # canonical header key -> the label as written in the file (first occurrence wins)
    headers: dict[str, str]
    rows: list[Row] = field(default_factory=list)

    def has(self, key: str) -> bool:
        return key in self.headers

    def label(self, key: str) -> str:
        return self.headers.get(key, key)


def read_table(upload: ImportFile, *, limits: TableLimits | None = None) -> Table:
    """Parse a CSV or xlsx upload into a Table. Raises TableError for unreadable files and
    for files past the limits (checked while reading, so a huge file costs no more than the
    limit to refuse)."""
    budget = ReadBudget(limits or TableLimits.from_settings())
    if not upload.data.strip():
        raise TableError(None, "file", "the file is empty")
    if upload.data.startswith(XLSX_MAGIC):
        return _read_xlsx(upload, budget)
    return _read_csv(upload, budget)


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        # Report where the first bad byte is, so the author can find the mis-encoded cell.
        bad = data[error.start : error.start + 1]
        line = data[: error.start].count(b"\n") + 1
        raise TableError(
            line,
            "encoding",
            f"the file is not valid UTF-8 ({error.reason}: byte 0x{bad.hex()} at byte offset "
            f"{error.start}, line {line}); save it as UTF-8 and import again",
        ) from None


def _read_csv(upload: ImportFile, budget: ReadBudget) -> Table:
    text = _decode(upload.data)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise TableError(None, "file", "the file is empty") from None
    except csv.Error as error:
        raise TableError(1, "header", f"cannot parse the CSV header: {error}") from None
    budget.header(len(header))
    table = Table(file=upload.name, headers={})
    keys = _header_keys(header, table)
    last_line = reader.line_num
    try:
        for values in reader:
            # line_num counts physical lines read so far; a row starts after the previous one.
            start = last_line + 1
            last_line = reader.line_num
            budget.row(start, len(values))
            _append_row(table, keys, values, start)
    except csv.Error as error:
        raise TableError(last_line + 1, "csv", f"cannot parse the CSV: {error}") from None
    return table


def _trim(values: tuple) -> tuple:
    """Drop the empty cells openpyxl pads a row with up to the sheet's declared width."""
    end = len(values)
    while end and values[end - 1] is None:
        end -= 1
    return values[:end]


def _read_xlsx(upload: ImportFile, budget: ReadBudget) -> Table:
    from openpyxl import load_workbook  # imported lazily: only xlsx imports need it

    xlsx_extent_check(xlsx_extent(upload.data), budget.limits)
    try:
        workbook = load_workbook(io.BytesIO(upload.data), read_only=True, data_only=True)
    except Exception as error:  # openpyxl raises many types for a corrupt archive
        raise TableError(None, "file", f"cannot open the workbook: {error}") from None
    try:
        # EsBBQ's generator reads the sheet named Sheet1; fall back to the first sheet.
        sheet = workbook["Sheet1"] if "Sheet1" in workbook.sheetnames else workbook.worksheets[0]
        # Read what the sheet holds, not what it declares: read-only openpyxl otherwise stops
        # at the declared last row (rows past a too-small <dimension> were silently dropped)
        # and pads every row to the declared width. The declared extent was checked above.
        sheet.reset_dimensions()
        rows = sheet.iter_rows(values_only=True)
        header = next(rows, None)
        if header is None:
            raise TableError(None, "file", "the sheet is empty")
        # Streaming (read_only): rows come one at a time and the header is checked before
        # any data row is read.
        header = _trim(header)
        budget.header(len(header))
        table = Table(file=upload.name, headers={})
        keys = _header_keys([_cell_text(v) for v in header], table)
        for number, values in enumerate(rows, start=2):
            # Counted as delivered: the budget stops a sheet that holds more than it declared.
            budget.row(number, len(values))
            _append_row(table, keys, [_cell_text(v) for v in _trim(values)], number)
    finally:
        workbook.close()
    return table


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        # FALSE is a value, not an empty cell: EsBBQ's vocabulary excludes rows whose
        # include_name is FALSE and keeps the empty ones.
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # Excel stores ids such as 12 as 12.0
    return str(value)


def _header_keys(header: Iterable[str], table: Table) -> list[str | None]:
    keys: list[str | None] = []
    for label in header:
        key = header_key(nfc(label))
        # Unnamed columns (the pandas index) and repeated names are ignored.
        if not key or key in table.headers:
            keys.append(None)
            continue
        table.headers[key] = label.strip()
        keys.append(key)
    return keys


def _append_row(table: Table, keys: list[str | None], values: list[str], line: int) -> None:
    if not any(v.strip() for v in values):
        return  # blank lines and empty spreadsheet rows carry nothing
    cells: dict[str, str] = {}
    raw: dict[str, str] = {}
    for key, value in zip(keys, values, strict=False):
        if key is None:
            continue
        text = nfc(value)
        cells[key] = text.strip()
        if len(cells[key]) != len(text):
            raw[key] = text
    table.rows.append(Row(line=line, cells=cells, raw=raw))


def apply_aliases(table: Table, aliases: dict[str, str]) -> None:
    """Rename alternative column names (older releases) to their canonical key, in place."""
    for alias, canonical in aliases.items():
        if alias in table.headers and canonical not in table.headers:
            table.headers[canonical] = table.headers.pop(alias)
            for row in table.rows:
                if alias in row.cells:
                    row.cells[canonical] = row.cells.pop(alias)
                if alias in row.raw:
                    row.raw[canonical] = row.raw.pop(alias)


def missing_columns(table: Table, required: Iterable[str]) -> Iterator[ImportProblem]:
    for key in required:
        if key not in table.headers:
            yield ImportProblem(table.file, 1, key, f"required column {key!r} is missing")
