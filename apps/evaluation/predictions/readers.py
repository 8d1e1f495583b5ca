"""CSV and JSON Lines prediction readers (see the package docstring)."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, ClassVar

from apps.core.errors import ImportProblem, ImportRejected
from apps.core.text import nfc

# A file with more problems than this is reported with its first ones only.
MAX_PROBLEMS = 50
# An integer in a JSON value longer than this is refused (an index or an id is short; Python's
# int() of a 5,000-digit string raises, and float() of a 400-digit one overflows).
MAX_INT_DIGITS = 30
# An answer given as digits longer than this cannot be an option index.
MAX_INDEX_DIGITS = 6


class ValueRefused(ValueError):
    """A JSON value the reader will not take (a number too long, nesting too deep)."""


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueRefused(f"a number with {len(text.lstrip('-')):,} digits")
    return int(text)


def json_value(text: str) -> Any:
    """json.loads with long integers, deep nesting and Python's own limits refused as
    ValueRefused / JSONDecodeError instead of escaping as ValueError, OverflowError or
    RecursionError."""
    try:
        return json.loads(text, parse_int=_int)
    except RecursionError:
        raise ValueRefused("nested too deeply") from None
    except json.JSONDecodeError:
        raise
    except (ValueError, OverflowError) as exc:
        raise ValueRefused(str(exc)) from None


@dataclass(frozen=True)
class PredictionRow:
    line: int
    item_id: str
    # The answer as given: an int (index) or a str (index digits or option text); None when
    # the cell is empty.
    prediction: int | str | None
    logprobs: tuple[float, ...] | None = None
    category: str = ""
    language: str = ""


@dataclass(frozen=True)
class Columns:
    id: str = "example_id"
    prediction: str = "prediction"
    logprobs: str = "logprobs"
    category: str = "category"
    language: str = "language"


class Reader:
    format: ClassVar[str] = ""
    suffixes: ClassVar[tuple[str, ...]] = ()

    def __init__(self, *, name: str, columns: Columns | None = None) -> None:
        self.name = name
        self.columns = columns or Columns()
        self.problems: list[ImportProblem] = []

    def problem(self, line: int | None, field: str, message: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(ImportProblem(self.name, line, field, message))

    def read(self, stream: IO[bytes]) -> list[PredictionRow]:
        """Every row, or ImportRejected listing every problem (nothing is half-read)."""
        try:
            text = stream.read().decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ImportRejected(
                [ImportProblem(self.name, None, "encoding", f"not UTF-8: {exc}")]
            ) from None
        rows = list(self._rows(text))
        if not rows and not self.problems:
            self.problem(None, "file", "no predictions in the file")
        if self.problems:
            raise ImportRejected(self.problems)
        return rows

    def _rows(self, text: str) -> Iterator[PredictionRow]:
        raise NotImplementedError

    def _row(self, line: int, data: dict[str, Any]) -> PredictionRow | None:
        cols = self.columns
        item_id = data.get(cols.id)
        if item_id is None or str(item_id).strip() == "":
            self.problem(line, cols.id, "empty id")
            return None
        if isinstance(item_id, float) and item_id.is_integer():
            item_id = int(item_id)
        prediction = data.get(cols.prediction)
        if isinstance(prediction, bool) or not isinstance(prediction, int | str | type(None)):
            self.problem(line, cols.prediction, f"expected an index or a text, got {prediction!r}")
            return None
        if isinstance(prediction, str):
            prediction = nfc(prediction)
            if not prediction.strip():
                prediction = None
            elif prediction.strip().isdigit() and len(prediction.strip()) > MAX_INDEX_DIGITS:
                self.problem(
                    line,
                    cols.prediction,
                    f"an index of {len(prediction.strip()):,} digits is not an option",
                )
                return None
        logprobs = self._logprobs(line, data.get(cols.logprobs))
        if logprobs is False:
            return None
        return PredictionRow(
            line=line,
            item_id=nfc(str(item_id).strip()),
            prediction=prediction,
            logprobs=logprobs or None,
            category=nfc(str(data.get(cols.category) or "").strip()),
            language=str(data.get(cols.language) or "").strip(),
        )

    def _logprobs(self, line: int, value: Any) -> tuple[float, ...] | None | bool:
        """None when absent; False (after recording the problem) when malformed."""
        if value is None or value == "":
            return None
        if isinstance(value, str):
            try:
                value = json_value(value)
            except json.JSONDecodeError as exc:
                self.problem(line, self.columns.logprobs, f"not a JSON list: {exc.msg}")
                return False
            except ValueRefused as exc:
                self.problem(line, self.columns.logprobs, f"not a JSON list: {exc}")
                return False
        if (
            not isinstance(value, list)
            or len(value) != 3
            or not all(
                isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                for v in value
            )
        ):
            self.problem(
                line, self.columns.logprobs, f"expected a list of 3 finite numbers, got {value!r}"
            )
            return False
        return tuple(float(v) for v in value)


class CsvReader(Reader):
    format = "csv"
    suffixes = (".csv",)

    def _rows(self, text: str) -> Iterator[PredictionRow]:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        try:
            yield from self._csv_rows(reader)
        except csv.Error as exc:  # a cell over csv's field size limit, a NUL byte
            # line_num counts the lines read before the row that failed
            self.problem(reader.line_num + 1, "row", f"not readable as CSV: {exc}")

    def _csv_rows(self, reader: csv.DictReader) -> Iterator[PredictionRow]:
        header = reader.fieldnames or []
        missing = [c for c in (self.columns.id, self.columns.prediction) if c not in header]
        if missing:
            for column in missing:
                self.problem(
                    1, column, f"no {column!r} column (the header has: {', '.join(header)})"
                )
            return
        for data in reader:
            if None in data:  # more cells than the header
                self.problem(reader.line_num, "row", "more cells than header columns")
                continue
            row = self._row(reader.line_num, data)
            if row is not None:
                yield row


class JsonlReader(Reader):
    format = "jsonl"
    suffixes = (".jsonl", ".ndjson", ".json")

    def _rows(self, text: str) -> Iterator[PredictionRow]:
        for number, raw in enumerate(text.splitlines(), start=1):
            if not raw.strip():
                continue
            try:
                data = json_value(raw)
            except json.JSONDecodeError as exc:
                self.problem(number, "line", f"not valid JSON: {exc.msg} (column {exc.colno})")
                continue
            except ValueRefused as exc:
                self.problem(number, "line", f"refused: {exc}")
                continue
            if not isinstance(data, dict):
                self.problem(number, "line", "expected a JSON object")
                continue
            if self.columns.id not in data:
                self.problem(number, self.columns.id, "missing")
                continue
            if self.columns.prediction not in data and self.columns.logprobs not in data:
                self.problem(number, self.columns.prediction, "missing")
                continue
            row = self._row(number, data)
            if row is not None:
                yield row


READERS: dict[str, type[Reader]] = {cls.format: cls for cls in (CsvReader, JsonlReader)}


def reader_for(*, name: str, file_format: str = "", columns: Columns | None = None) -> Reader:
    """The reader for a format ('csv', 'jsonl'), or guessed from the file name's suffix."""
    if not file_format:
        suffix = Path(name).suffix.lower()
        file_format = next((f for f, cls in READERS.items() if suffix in cls.suffixes), "")
    if file_format not in READERS:
        raise ImportRejected(
            [
                ImportProblem(
                    name,
                    None,
                    "format",
                    f"unknown prediction file format {file_format or Path(name).suffix!r}; "
                    f"use one of {', '.join(READERS)}",
                )
            ]
        )
    return READERS[file_format](name=name, columns=columns)
