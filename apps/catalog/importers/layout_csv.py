"""The CSV layout of published instance files (BharatBBQ's Examples/*.csv, EsBBQ's .full.csv),
as pandas writes them; each benchmark subclass maps its columns."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import Any, ClassVar

from apps.core.text import nfc

from .layouts import (
    InstanceParse,
    InstanceRecord,
    RowError,
    Values,
    file_decode,
    line_terminator,
    text_lines,
)
from .records import FindingRecord
from .tables import ImportFile


class CsvFormat:
    """A CSV layout written by pandas (`to_csv(index=False)`: minimal quoting, "\\n" rows).

    Subclasses say which columns are Kasauti fields (`parse_row`) and how to write them back
    (`row_cells`); every other column is kept as its original cell text in "extra"."""

    format: ClassVar[str]
    language: ClassVar[str]
    required: ClassVar[tuple[str, ...]]
    mapped: ClassVar[frozenset[str]]

    def read(self, upload: ImportFile, parse: InstanceParse) -> None:
        decoded = file_decode(upload, parse)
        if decoded is None:
            return
        text, bom = decoded
        raw_lines: list[str] = []
        numbers: list[int] = []

        def feed() -> Iterator[str]:
            for number, line in text_lines(text):
                raw_lines.append(line)
                numbers.append(number)
                yield line

        reader = csv.reader(feed())
        try:
            header = next(reader)
        except StopIteration:
            parse.problem(upload.name, None, "file", "the file is empty")
            return
        except csv.Error as error:
            parse.problem(upload.name, 1, "header", f"cannot parse the CSV header: {error}")
            return
        header_text, newline = line_terminator("".join(raw_lines))
        missing = [name for name in self.required if name not in header]
        if missing:
            for name in missing:
                parse.problem(upload.name, 1, name, f"required column {name!r} is missing")
            return
        if len(set(header)) != len(header):
            parse.problem(upload.name, 1, "header", "a column name is repeated")
            return
        file_info = {
            "bom": bom,
            "header": header_text,
            "newline": newline or "\n",
            "final_newline": text.endswith(("\n", "\r")),
        }
        row = 0
        while True:
            raw_lines.clear()
            numbers.clear()
            try:
                cells = next(reader)
            except StopIteration:
                break
            except csv.Error as error:
                line = numbers[0] if numbers else None
                parse.problem(upload.name, line, "csv", f"cannot parse the CSV: {error}")
                return
            number = numbers[0]
            raw, row_newline = line_terminator("".join(raw_lines))
            if not any(cell.strip() for cell in cells):
                parse.problem(upload.name, number, "line", "empty row")
                continue
            if len(cells) != len(header):
                parse.problem(
                    upload.name,
                    number,
                    "row",
                    f"has {len(cells)} cells, the header has {len(header)} columns",
                )
                continue
            named = dict(zip(header, cells, strict=True))
            try:
                values = self.parse_row(named)
            except RowError as error:
                parse.problem(upload.name, number, error.field_name, str(error))
                continue
            meta = values["additional_metadata"]
            meta.update(
                format=self.format,
                file=upload.name,
                row=row,
                line=number,
                extra={name: nfc(cell) for name, cell in named.items() if name not in self.mapped},
            )
            if row == 0:
                meta["file_info"] = file_info
            if row_newline and row_newline != file_info["newline"]:
                meta["newline"] = row_newline
            if self.render(values, file_info) != raw:
                meta["verbatim"] = raw
                parse.verbatim += 1
            for finding in values.pop("_findings", []):
                parse.findings.append(FindingRecord(upload.name, number, *finding))
            parse.records.append(
                InstanceRecord(upload.name, number, values["category"], self.language, values)
            )
            row += 1

    def parse_row(self, cells: dict[str, str]) -> Values:
        raise NotImplementedError

    def row_cells(self, values: Values) -> dict[str, str]:
        raise NotImplementedError

    def header_names(self, file_info: dict[str, Any]) -> list[str]:
        header = file_info.get("header", "")
        if header != getattr(self, "_header", None):
            # Parsed once per file, not per row: a file's rows all share its header.
            self._header = header
            self._names = next(csv.reader([header]), [])
        return self._names

    def file_head(self, file_info: dict[str, Any]) -> str:
        return file_info.get("header", "") + file_info.get("newline", "\n")

    def render(self, values: Values, file_info: dict[str, Any]) -> str:
        meta = values["additional_metadata"]
        if "verbatim" in meta:
            return meta["verbatim"]
        cells = meta.get("extra", {}) | self.row_cells(values)
        if not hasattr(self, "_buffer"):
            # One buffer and csv writer for all rows (emptied after each row).
            self._buffer = io.StringIO()
            self._writer = csv.writer(self._buffer, lineterminator="")
        self._writer.writerow([cells.get(name, "") for name in self.header_names(file_info)])
        text = self._buffer.getvalue()
        self._buffer.seek(0)
        self._buffer.truncate()
        return text
