"""Reading an uploaded file into rows: decoding, CSV/xlsx parsing, header normalisation.

Every row remembers the physical line it starts on (header = line 1; for xlsx the sheet row),
because every problem an import reports must point the author at the exact place to fix.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from django.conf import settings

from apps.core.errors import ImportProblem
from apps.core.text import nfc

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


class TableError(Exception):
    """The file as a whole cannot be read (encoding, empty, not a table)."""

    def __init__(self, line: int | None, field_name: str, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.field_name = field_name
        self.message = message

    def problem(self, file: str) -> ImportProblem:
        return ImportProblem(file, self.line, self.field_name, self.message)


@dataclass(frozen=True)
class TableLimits:
    """How much one file may hold. Real benchmark files are far inside these (the largest
    published CSV has ~30k rows x 15 columns); a file past them is refused with a problem
    naming the limit, after reading no more than the limit. Settings: KASAUTI_IMPORT_MAX_*."""

    rows: int = 300_000
    cells: int = 5_000_000
    columns: int = 500
    # Sum of the uncompressed sizes of an xlsx archive's parts (zip bombs).
    xlsx_bytes: int = 300_000_000

    @classmethod
    def from_settings(cls) -> TableLimits:
        return cls(
            rows=getattr(settings, "KASAUTI_IMPORT_MAX_ROWS", cls.rows),
            cells=getattr(settings, "KASAUTI_IMPORT_MAX_CELLS", cls.cells),
            columns=getattr(settings, "KASAUTI_IMPORT_MAX_COLUMNS", cls.columns),
            xlsx_bytes=getattr(settings, "KASAUTI_IMPORT_MAX_XLSX_BYTES", cls.xlsx_bytes),
        )


class _Budget:
    """Counts rows and cells as they are read and stops the read at the first excess."""

    def __init__(self, limits: TableLimits) -> None:
        self.limits = limits
        self.rows = 0
        self.cells = 0

    def header(self, width: int) -> None:
        if width > self.limits.columns:
            raise TableError(
                1,
                "header",
                f"the header has {width:,} columns; at most {self.limits.columns:,} are "
                "accepted (KASAUTI_IMPORT_MAX_COLUMNS)",
            )

    def row(self, line: int, width: int) -> None:
        self.rows += 1
        self.cells += width
        if self.rows > self.limits.rows:
            raise TableError(
                line,
                "file",
                f"the file has more than {self.limits.rows:,} rows, the most one import "
                "reads (KASAUTI_IMPORT_MAX_ROWS); split it into several files",
            )
        if self.cells > self.limits.cells:
            raise TableError(
                line,
                "file",
                f"the file has more than {self.limits.cells:,} cells (by line {line:,}), the "
                "most one import reads (KASAUTI_IMPORT_MAX_CELLS); split it into several files",
            )


def read_table(upload: ImportFile, *, limits: TableLimits | None = None) -> Table:
    """Parse a CSV or xlsx upload into a Table. Raises TableError for unreadable files and
    for files past the limits (checked while reading, so a huge file costs no more than the
    limit to refuse)."""
    budget = _Budget(limits or TableLimits.from_settings())
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


def _read_csv(upload: ImportFile, budget: _Budget) -> Table:
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


# The sheet's declared extent: <dimension ref="A1:XFD1048576"/> sits before <sheetData>, in
# the first bytes of the sheet part; only these are inflated to read it.
_DIMENSION = re.compile(
    rb"<(?:[A-Za-z]\w*:)?dimension\s+ref=\"\$?([A-Z]{1,3})\$?(\d{1,7})"
    rb"(?::\$?([A-Z]{1,3})\$?(\d{1,7}))?\""
)
_SHEET_HEAD_BYTES = 64 * 1024
_MAIN_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL_NS = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PKG_REL_NS = "{http://schemas.openxmlformats.org/package/2006/relationships}"


@dataclass(frozen=True)
class XlsxExtent:
    """What a workbook says about its size before any of it is parsed: the uncompressed size
    of all its parts (zip directory) and the extent the read sheet declares (its
    <dimension ref>; None when it declares none). Header row included."""

    sheet: str
    unpacked_bytes: int
    rows: int | None
    columns: int | None

    @property
    def cells(self) -> int | None:
        return None if self.rows is None or self.columns is None else self.rows * self.columns


def _column_number(letters: bytes) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + letter - ord("A") + 1
    return number


def _read_sheet_part(archive: zipfile.ZipFile) -> str:
    """The part of the sheet an import reads (Sheet1, as EsBBQ's generator, else the first
    sheet), from the workbook and its relationships; the first worksheet part if they cannot
    be read."""
    from defusedxml.ElementTree import fromstring  # untrusted XML

    try:
        book = fromstring(archive.read("xl/workbook.xml"))
        rels = fromstring(archive.read("xl/_rels/workbook.xml.rels"))
        sheets = [(s.get("name"), s.get(f"{_REL_NS}id")) for s in book.iter(f"{_MAIN_NS}sheet")]
        targets = {
            r.get("Id"): r.get("Target", "") for r in rels.iter(f"{_PKG_REL_NS}Relationship")
        }
        name, rel = next(((n, r) for n, r in sheets if n == "Sheet1"), sheets[0])
        target = targets[rel]
        part = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
        archive.getinfo(part)
        return part
    except Exception:  # a workbook openpyxl will refuse anyway: take the first sheet part
        parts = sorted(n for n in archive.namelist() if n.startswith("xl/worksheets/"))
        return parts[0] if parts else ""


def xlsx_extent(source: bytes | BinaryIO) -> XlsxExtent:
    """Read a workbook's extent from the zip directory (each part's declared file_size) and
    the first 64 KiB of the read sheet (its <dimension ref>), before anything is parsed."""
    stream = io.BytesIO(source) if isinstance(source, bytes | bytearray) else source
    try:
        with zipfile.ZipFile(stream) as archive:
            unpacked = sum(part.file_size for part in archive.infolist())
            part = _read_sheet_part(archive)
            head = b""
            if part:
                with archive.open(part) as sheet:
                    head = sheet.read(_SHEET_HEAD_BYTES)
    except (zipfile.BadZipFile, ValueError, KeyError, EOFError, OSError) as error:
        raise TableError(None, "file", f"cannot open the workbook: {error}") from None
    finally:
        if stream is not source:
            stream.close()
        else:
            source.seek(0)
    found = _DIMENSION.search(head)
    if not found:
        return XlsxExtent(sheet=part, unpacked_bytes=unpacked, rows=None, columns=None)
    first_col, first_row, last_col, last_row = found.groups()
    last_col, last_row = last_col or first_col, last_row or first_row
    return XlsxExtent(
        sheet=part,
        unpacked_bytes=unpacked,
        rows=int(last_row),  # rows above the first declared one are still read
        columns=_column_number(last_col),
    )


def xlsx_extent_check(extent: XlsxExtent, limits: TableLimits) -> None:
    """Refuse a workbook past the limits from what it declares, before it is parsed: its
    unpacked size (zip bombs: a few hundred KB inflating to hundreds of MB) and the rows,
    columns and cells its sheet declares. A part that lies about its size, or a sheet that
    declares less than it holds, is still stopped by the row and cell limits while read."""
    if extent.unpacked_bytes > limits.xlsx_bytes:
        raise TableError(
            None,
            "file",
            f"the workbook unpacks to {extent.unpacked_bytes:,} bytes; the limit is "
            f"{limits.xlsx_bytes:,} (KASAUTI_IMPORT_MAX_XLSX_BYTES); save fewer rows per file",
        )
    if extent.rows is None:
        return
    declared = (
        f"the sheet ({extent.sheet}) declares {extent.rows:,} rows x {extent.columns:,} "
        f"columns ({extent.cells:,} cells, header included)"
    )
    if extent.columns > limits.columns:
        raise TableError(
            None,
            "file",
            f"{declared}; at most {limits.columns:,} columns are accepted "
            "(KASAUTI_IMPORT_MAX_COLUMNS): delete the unused columns and save again",
        )
    if extent.rows - 1 > limits.rows:
        raise TableError(
            None,
            "file",
            f"{declared}; at most {limits.rows:,} rows are read by one import "
            "(KASAUTI_IMPORT_MAX_ROWS): split it into several files",
        )
    if extent.cells > limits.cells + extent.columns:
        raise TableError(
            None,
            "file",
            f"{declared}; at most {limits.cells:,} cells are read by one import "
            "(KASAUTI_IMPORT_MAX_CELLS): split it into several files",
        )


def _trim(values: tuple) -> tuple:
    """Drop the empty cells openpyxl pads a row with up to the sheet's declared width."""
    end = len(values)
    while end and values[end - 1] is None:
        end -= 1
    return values[:end]


def _read_xlsx(upload: ImportFile, budget: _Budget) -> Table:
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
