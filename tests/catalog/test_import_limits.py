"""What one imported file may hold: rows, cells, columns and the unpacked size of an xlsx
are capped; a file past a cap is refused with a problem naming the limit (issue 7, item 2).
Workbooks are read in streaming mode, so refusing a huge one costs no more than the cap."""

from __future__ import annotations

import io
import re
import time
import zipfile

import pytest
from openpyxl import Workbook

from apps.catalog.importers.limits import TableError, TableLimits
from apps.catalog.importers.tables import ImportFile, read_table

HEADER = ["Q_id", "Category", "Names"]


def xlsx(rows: int, *, width: int = 3, dimension: str | None = None) -> bytes:
    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet("Sheet1")
    sheet.append(HEADER + [f"extra{i}" for i in range(width - 3)])
    for number in range(rows):
        sheet.append([number, "Age", "x"] + ["y"] * (width - 3))
    buffer = io.BytesIO()
    workbook.save(buffer)
    if dimension is None:
        return buffer.getvalue()
    # Rewrite the sheet's declared size, as a hostile (or broken) file may.
    source = zipfile.ZipFile(io.BytesIO(buffer.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename.startswith("xl/worksheets/sheet"):
                data = re.sub(rb"<dimension [^>]*/>", b"", data)
                data = data.replace(
                    b"<sheetData>", f'<dimension ref="{dimension}"/><sheetData>'.encode(), 1
                )
            target.writestr(item, data)
    return out.getvalue()


def csv_file(rows: int, width: int = 3) -> bytes:
    header = ",".join(HEADER + [f"extra{i}" for i in range(width - 3)])
    line = ",".join(["1", "Age", "x"] + ["y"] * (width - 3))
    return (header + "\n" + (line + "\n") * rows).encode()


def refusal(data: bytes, limits: TableLimits) -> TableError:
    with pytest.raises(TableError) as caught:
        read_table(ImportFile(name="big.xlsx", data=data), limits=limits)
    return caught.value


def test_within_the_limits_everything_is_read() -> None:
    limits = TableLimits(rows=100, cells=300, columns=3)
    assert len(read_table(ImportFile("ok.xlsx", xlsx(100)), limits=limits).rows) == 100
    assert len(read_table(ImportFile("ok.csv", csv_file(100)), limits=limits).rows) == 100


@pytest.mark.parametrize("maker", [xlsx, csv_file])
def test_too_many_rows_is_refused_at_the_first_excess_row(maker) -> None:
    error = refusal(maker(101), TableLimits(rows=100))
    assert error.line == 102  # header is line 1; the 101st data row is line 102
    assert "more than 100 rows" in error.message and "KASAUTI_IMPORT_MAX_ROWS" in error.message


@pytest.mark.parametrize("maker", [xlsx, csv_file])
def test_too_many_cells_is_refused(maker) -> None:
    error = refusal(maker(50, width=10), TableLimits(cells=200))
    assert error.line == 22  # 21 rows x 10 cells pass 200
    assert "more than 200 cells" in error.message and "KASAUTI_IMPORT_MAX_CELLS" in error.message


@pytest.mark.parametrize("maker", [xlsx, csv_file])
def test_too_many_columns_is_refused_from_the_header(maker) -> None:
    error = refusal(maker(5, width=40), TableLimits(columns=30))
    assert (error.line, error.field_name) == (1, "header")
    assert "40 columns" in error.message and "KASAUTI_IMPORT_MAX_COLUMNS" in error.message


def test_a_workbook_that_unpacks_past_the_limit_is_refused_before_it_is_opened() -> None:
    data = xlsx(2000)
    error = refusal(data, TableLimits(xlsx_bytes=len(data)))  # unpacked > packed
    assert error.field_name == "file" and "KASAUTI_IMPORT_MAX_XLSX_BYTES" in error.message


def test_a_sheet_declaring_16384_columns_is_refused_before_it_is_parsed() -> None:
    """openpyxl pads every row to the declared width: 1,048,576 x 16,384 cells claimed. The
    declared <dimension> is read first, so the workbook is refused before parsing."""
    data = xlsx(5000, dimension="A1:XFD1048576")
    start = time.monotonic()
    error = refusal(data, TableLimits())
    assert time.monotonic() - start < 2
    assert error.line is None and error.field_name == "file"
    assert "declares 1,048,576 rows x 16,384 columns" in error.message
    assert "KASAUTI_IMPORT_MAX_COLUMNS" in error.message


@pytest.mark.parametrize(
    ("dimension", "limit"),
    [("A1:C400000", "KASAUTI_IMPORT_MAX_ROWS"), ("A1:CV200000", "KASAUTI_IMPORT_MAX_CELLS")],
)
def test_declared_rows_and_cells_past_the_limits_are_refused_before_parsing(
    dimension, limit
) -> None:
    error = refusal(xlsx(10, dimension=dimension), TableLimits())
    assert error.line is None and limit in error.message, error.message


def test_a_sheet_that_declares_less_than_it_holds_is_still_stopped_while_read() -> None:
    error = refusal(xlsx(101, dimension="A1:C2"), TableLimits(rows=100))
    assert error.line == 102 and "KASAUTI_IMPORT_MAX_ROWS" in error.message


def test_the_extent_comes_from_the_zip_directory_and_the_dimension() -> None:
    from apps.catalog.importers.limits import xlsx_extent

    data = xlsx(10, dimension="B2:E11")
    extent = xlsx_extent(data)
    assert (extent.sheet, extent.rows, extent.columns) == ("xl/worksheets/sheet1.xml", 11, 5)
    assert extent.unpacked_bytes == sum(
        i.file_size for i in zipfile.ZipFile(io.BytesIO(data)).infolist()
    )
    assert xlsx_extent(xlsx(10)).rows is None  # write-only workbooks declare none


def test_limits_come_from_settings(settings) -> None:
    settings.KASAUTI_IMPORT_MAX_ROWS = 7
    settings.KASAUTI_IMPORT_MAX_CELLS = 70
    settings.KASAUTI_IMPORT_MAX_COLUMNS = 9
    settings.KASAUTI_IMPORT_MAX_XLSX_BYTES = 1234
    assert TableLimits.from_settings() == TableLimits(rows=7, cells=70, columns=9, xlsx_bytes=1234)
    with pytest.raises(TableError, match="more than 7 rows"):
        read_table(ImportFile("x.csv", csv_file(8)))
