"""Formula neutralisation for CSV exports (CSV injection, OWASP).

A spreadsheet opens a cell that starts with `=`, `+`, `-` or `@` (or a tab / carriage return
that it strips first) as a live formula: `=HYPERLINK(...)` in a benchmark sentence would become
a clickable link, and worse. In CSV files such a cell is written with a leading apostrophe,
which spreadsheets read as "this is text" and do not display. A cell that already starts
with an apostrophe gets one more, so reading back (drop one leading apostrophe) is exact for
every string. JSONL and Parquet are not touched: they are data formats, not spreadsheets.
"""

from __future__ import annotations

import functools

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

# The apostrophe itself is in the set so that neutralise/restore is a bijection.
FORMULA_START = frozenset("=+-@\t\r'")


def csv_cell_neutralise(value: str) -> str:
    """The text as it goes into a CSV cell."""
    return "'" + value if value and value[0] in FORMULA_START else value


def csv_cell_restore(value: str) -> str:
    """The original text of a neutralised CSV cell (inverse of csv_cell_neutralise)."""
    return value[1:] if value.startswith("'") else value


@functools.cache
def text_scalar(value: str) -> pa.StringScalar:
    """An Arrow string scalar for Arrow compute. Built from buffers: converting a Python value
    (pa.scalar, or a str passed to a compute function) imports pandas, about half a second
    once per process, in the middle of a release."""
    data = value.encode("utf-8")
    offsets = np.array([0, len(data)], dtype=np.int32)
    return pa.StringArray.from_buffers(1, pa.py_buffer(offsets), pa.py_buffer(data))[0]


def first_bytes(values: pa.StringArray) -> np.ndarray:
    """The first byte of each value of a string array (0 for an empty one), read from its
    buffers."""
    offsets = np.frombuffer(values.buffers()[1], dtype=np.int32)[
        values.offset : values.offset + len(values) + 1
    ]
    data = values.buffers()[2]
    if data is None or not data.size:  # no values, or all of them empty
        return np.zeros(len(values), dtype=np.uint8)
    first = np.frombuffer(data, dtype=np.uint8)[np.minimum(offsets[:-1], data.size - 1)]
    return np.where(offsets[1:] > offsets[:-1], first, 0)


# The same test for a whole Arrow column (CsvWriter's column-wise fast path): every character
# of FORMULA_START is one byte in UTF-8, so a cell's first byte decides.
_FORMULA_START_RE = "^[=+\\-@\t\r']"
_FORMULA_FIRST_BYTE = np.zeros(256, dtype=bool)
_FORMULA_FIRST_BYTE[[ord(character) for character in FORMULA_START]] = True


def csv_cells_neutralise(cells: pa.StringArray) -> pa.StringArray:
    """csv_cell_neutralise for every value of a string column (nulls stay null)."""
    # The first byte of each cell (0 when empty; a null's bytes, if any, only lead to the exact
    # test below).
    if not _FORMULA_FIRST_BYTE[first_bytes(cells)].any():
        return cells  # no cell to neutralise: the common case
    needs = pc.match_substring_regex(cells, _FORMULA_START_RE)
    prefixed = pc.binary_join_element_wise(text_scalar("'"), cells, text_scalar(""))
    return pc.if_else(needs, prefixed, cells)
