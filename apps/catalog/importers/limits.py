"""What one imported file may hold (TableLimits, settings KASAUTI_IMPORT_MAX_*), the budget that
stops a read at the first excess, and the extent an xlsx workbook declares, read before any of
it is parsed (the import page decides from it whether to import inline or in a job)."""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from typing import BinaryIO

from django.conf import settings

from apps.core.errors import ImportProblem


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


class ReadBudget:
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
