"""Survey export formats: Google Forms and Typeform CSV exports, read into a table of columns
and rows, and a mapping of the survey's answer fields to the export's columns.

A format is a registered object (`SurveyFormat`: name, label, reader, the columns it knows),
registered by `register()` at start-up (apps/surveys/registry.py). Callers ask
`survey_format_get(name)`; nothing tests a format's name.

The real shapes (docs/surveys/import.md has examples):

* Google Forms ("Download responses (.csv)", or the responses sheet saved as CSV): first column
  `Timestamp` (`2024/03/05 4:12:33 PM GMT+5:30` from Forms; `3/5/2024 16:12:33` or
  `05/03/2024 16:12:33` from Sheets, by the sheet's locale), one column per question titled with
  the question text, checkbox answers joined with ", ", optional `Email Address` and `Score`.
  One row is one submission. A form whose section repeats ("Stereotype 2") repeats its question
  titles as they are: duplicate headers, told apart by position.
* Typeform (CSV download): first column `#` (the response token), question columns titled with
  the question text (older exports keep HTML tags such as <strong> in them), a multiple-choice
  question as one column per choice (the cell holds the choice text when picked) or as one
  column, then `Response Type` (newer exports: completed/partial), `Start Date (UTC)`,
  `Stage Date (UTC)`, `Submit Date (UTC)` (`2024-03-05 10:42:33`), `Network ID`, hidden fields
  and `Tags`.

A row may hold several answers (repeated sections): the mapping has one "slot" of answer fields
per section; the first slot is required, the others are read when their cells are filled.
"""

from __future__ import annotations

import csv
import io
import re
import zoneinfo
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone

from apps.core.errors import ImportProblem, ImportRejected
from apps.core.text import nfc

# The most an import takes in one go (the import runs inside the request, in one transaction:
# docs/surveys/import.md has the timing of a 10,000-row export).
MAX_BYTES = 20 * 1000 * 1000
MAX_ROWS = 100_000
MAX_COLUMNS = 500
# Longest free text kept (text, experience); the model's own limits for group_text/attribute.
TEXT_MAX_CHARS = 20_000
FIELD_MAX_CHARS = {"group_text": 300, "attribute": 500}

# Fields of one answer: a row has one set per repeated section ("slot").
ANSWER_FIELDS: dict[str, str] = {
    "text": "Stereotype (free text)",
    "group_text": "Target group(s)",
    "attribute": "Attribute (group, attribute tuple)",
    "category": "Social category",
    "exposure": "How they know it (one column: heard / witnessed / affected words)",
    "heard": "Heard it (yes/no column)",
    "witnessed": "Witnessed it (yes/no column)",
    "affected": "Affected by it (yes/no column)",
    "experience": "Experience described",
}
# Fields of the whole row (the submission).
ROW_FIELDS: dict[str, str] = {
    "submitted_at": "Submitted at (timestamp)",
    "respondent": "Respondent key (same key, same respondent)",
    "language": "Language of the answer",
}
DEMOGRAPHIC_PREFIX = "demographics."
EXPOSURE_KINDS = ("heard", "witnessed", "affected")
# Settings a mapping carries besides columns (what `--map KEY=VALUE` also takes).
OPTION_DEFAULTS: dict[str, str] = {
    "date_order": "auto",  # auto | mdy | dmy: how to read 3/5/2024
    "timezone": "UTC",  # the zone of timestamps that carry none
    "default_language": "",  # "" = the survey's first language
    "heard_words": "",  # "|"-separated; "" = the defaults (the survey's labels + built-ins)
    "witnessed_words": "",
    "affected_words": "",
}
DATE_ORDERS = ("auto", "mdy", "dmy")

# Words that say how a respondent knows a stereotype, in the exposure column, besides the
# survey's own option labels (matched case-insensitively, anywhere in the cell).
EXPOSURE_WORDS: dict[str, tuple[str, ...]] = {
    "heard": ("heard", "oído", "oido", "escuchado", "सुना"),
    "witnessed": ("witnessed", "seen", "presenciado", "visto", "observado", "देखा"),
    "affected": ("affected", "afectado", "afectada", "afectade", "प्रभावित"),
}
# A yes/no cell is "no" when empty or one of these (casefolded); anything else is "yes" (a
# Typeform choice column holds the choice text when picked).
NO_WORDS = frozenset({"0", "no", "false", "n", "falso", "नहीं", "nahin", "nahi", "non", "nein"})


# --------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class Column:
    index: int
    header: str
    # What the page, the command and the mapping call it: the header, "Header (2)" for the
    # second column of that title, "(column 7)" for a column with no title.
    label: str


@dataclass(frozen=True)
class ExportRow:
    line: int  # where the row starts in the file (1 = the header)
    cells: tuple[str, ...]

    def cell(self, index: int) -> str:
        return self.cells[index] if index < len(self.cells) else ""

    @property
    def empty(self) -> bool:
        return not any(self.cells)


@dataclass
class ExportTable:
    filename: str
    columns: list[Column]
    rows: list[ExportRow]

    def column(self, ref: str) -> Column | None:
        """A column by its label, by its header when that header is unique, or by its number
        (1 = the first column) when no column is titled with that number."""
        ref = nfc(ref.strip())
        for column in self.columns:
            if column.label == ref:
                return column
        same = [c for c in self.columns if c.header == ref]
        if len(same) == 1:
            return same[0]
        if ref.isdigit() and 1 <= int(ref) <= len(self.columns):
            return self.columns[int(ref) - 1]
        return None

    def by_header(self, names: Iterable[str]) -> list[Column]:
        wanted = {_fold(n) for n in names}
        return [c for c in self.columns if _fold(c.header) in wanted]


def _fold(text: str) -> str:
    """For comparing headers and cells: tags of old Typeform exports removed, NFC, blanks
    squeezed, casefolded."""
    text = re.sub(r"<[^>]{1,40}>", "", text)
    return " ".join(nfc(text).split()).casefold()


def table_read(data: bytes, filename: str) -> ExportTable:
    """Read an export's bytes into a table, or raise ImportRejected saying what and where.

    Handles a UTF-8 (or UTF-16) byte-order mark, CRLF or LF line ends, quoted cells with line
    breaks, ";" or tab separators (a CSV re-saved by a spreadsheet in some locales), rows
    shorter than the header (padded), and trailing columns with no title and no values (a
    trailing separator). Every cell is NFC, its line breaks LF, its surrounding blanks cut.
    """

    def reject(message: str, line: int | None = None, where: str = "file") -> ImportRejected:
        return ImportRejected([ImportProblem(filename, line, where, message)])

    if not data.strip():
        raise reject("the file is empty")
    if len(data) > MAX_BYTES:
        raise reject(f"the file has {len(data):,} bytes; at most {MAX_BYTES:,} are imported")
    if data[:4] == b"PK\x03\x04":
        raise reject("this is a workbook (xlsx), not CSV: download the responses as CSV")
    if data[:5] == b"%PDF-":
        raise reject("this is a PDF, not CSV")
    text = _decode(data, filename)
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise reject("a NUL character: this is not a text (CSV) file", line)
    first_line = text.split("\n", 1)[0]
    delimiter = ","
    if "," not in first_line and re.search("[;\t]", first_line):
        delimiter = max((";", "\t"), key=first_line.count)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    records: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for record in reader:
            records.append((start, record))
            start = reader.line_num + 1
            if len(records) > MAX_ROWS + 1:
                raise reject(f"more than {MAX_ROWS:,} rows; split the export")
    except csv.Error as exc:
        raise reject(f"not readable as CSV: {exc}", start) from None
    if not records:
        raise reject("the file is empty")
    header_line, header = records[0]
    header = [_cell(h) for h in header]
    width = len(header)
    # A trailing separator makes a last column with no title; drop such columns while no row
    # has a value in them.
    while width and not header[width - 1]:
        if any(_cell_at(r, width - 1) for _, r in records[1:]):
            break
        width -= 1
    if width == 0:
        raise reject("the first line (the column titles) is empty", header_line, "header")
    if width > MAX_COLUMNS:
        raise reject(f"{width} columns; at most {MAX_COLUMNS}", header_line, "header")
    if width == 1 and len(records) > 1 and any(len(r) > 1 for _, r in records[1:]):
        raise reject("one column title but rows with several cells", header_line, "header")
    seen: dict[str, int] = {}
    totals = {h: header[:width].count(h) for h in header[:width]}
    columns: list[Column] = []
    for index, title in enumerate(header[:width]):
        if not title:
            label = f"(column {index + 1})"
        elif totals[title] > 1:
            seen[title] = seen.get(title, 0) + 1
            label = f"{title} ({seen[title]})"
        else:
            label = title
        columns.append(Column(index, title, label))
    rows: list[ExportRow] = []
    for line, record in records[1:]:
        cells = [_cell(c) for c in record]
        extra = [c for c in cells[width:] if c]
        if extra:
            raise reject(
                f"{len(record)} cells but the header has {width} columns "
                f"(first extra value: {extra[0][:40]!r})",
                line,
                "row",
            )
        cells = cells[:width] + [""] * (width - len(cells))
        rows.append(ExportRow(line, tuple(cells)))
    return ExportTable(filename=filename, columns=columns, rows=rows)


def _decode(data: bytes, filename: str) -> str:
    encoding = "utf-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ImportRejected(
            [
                ImportProblem(
                    filename,
                    line,
                    "file",
                    f"not UTF-8 text (byte {data[exc.start]:#04x} at offset {exc.start}): "
                    "export the responses as CSV (UTF-8)",
                )
            ]
        ) from None


def _cell(value: str) -> str:
    return nfc(value.replace("\r\n", "\n").replace("\r", "\n")).strip()


def _cell_at(record: list[str], index: int) -> str:
    return record[index].strip() if index < len(record) else ""


# --------------------------------------------------------------------------- timestamps

_TZ = r"(?:\s*(?:GMT|UTC|Z)?\s*(?P<tz>[+-]\d{1,2}(?::?\d{2})?)?)?"
_TIME = r"(?P<H>\d{1,2}):(?P<M>\d{2})(?::(?P<S>\d{2})(?:\.\d+)?)?(?:\s*(?P<ampm>[AaPp]\.?[Mm]\.?))?"
_YMD = re.compile(rf"^(?P<y>\d{{4}})[/-](?P<a>\d{{1,2}})[/-](?P<b>\d{{1,2}})(?:[ T]{_TIME})?{_TZ}$")
_XYY = re.compile(rf"^(?P<a>\d{{1,2}})/(?P<b>\d{{1,2}})/(?P<y>\d{{4}})(?:,?\s+{_TIME})?{_TZ}$")
_DOT = re.compile(rf"^(?P<a>\d{{1,2}})\.(?P<b>\d{{1,2}})\.(?P<y>\d{{4}})(?:,?\s+{_TIME})?{_TZ}$")
TIMESTAMP_EXAMPLES = (
    "2024/03/05 4:12:33 PM GMT+5:30, 3/5/2024 16:12:33, 05/03/2024 16:12:33, "
    "05.03.2024 16:12:33, 2024-03-05 10:42:33"
)


class TimestampError(ValueError):
    pass


def timestamps_parse(
    values: list[str], *, date_order: str = "auto", zone: str = "UTC"
) -> tuple[list[datetime | None], str]:
    """Parse a column of timestamps. Returns the datetimes (None where a value is unreadable)
    and the date order used for a/b/yyyy dates ("mdy", "dmy" or "" when none was needed).
    Raises TimestampError when the order cannot be told: both orders appear, or (auto) every
    date reads both ways."""
    tz = _zone(zone)
    slashed = [m for v in values if (m := _XYY.match(v))]
    order = date_order if date_order in ("mdy", "dmy") else ""
    if slashed and not order:
        day_first = any(int(m["a"]) > 12 for m in slashed)
        month_first = any(int(m["b"]) > 12 for m in slashed)
        if day_first and month_first:
            raise TimestampError(
                "dates are written both month/day and day/month; choose the date order"
            )
        if not day_first and not month_first:
            if any(m["a"] != m["b"] for m in slashed):
                raise TimestampError(
                    f"dates such as {slashed[0].group(0)!r} read both as month/day and as "
                    "day/month: choose the date order (date_order=mdy or dmy)"
                )
            order = "mdy"  # every date is d/d: both orders agree
        else:
            order = "dmy" if day_first else "mdy"
    return [_timestamp(v, order, tz) for v in values], order if slashed else ""


def _zone(name: str) -> timezone | zoneinfo.ZoneInfo:
    if name.upper() in ("", "UTC", "GMT", "Z"):
        return UTC
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise TimestampError(
            f"unknown time zone {name!r} (use a name such as Asia/Kolkata)"
        ) from None


def _timestamp(value: str, order: str, tz) -> datetime | None:
    value = " ".join(value.split())
    match = _YMD.match(value)
    if match:
        month, day = int(match["a"]), int(match["b"])
    elif match := _XYY.match(value):
        a, b = int(match["a"]), int(match["b"])
        month, day = (b, a) if order == "dmy" else (a, b)
    elif match := _DOT.match(value):
        day, month = int(match["a"]), int(match["b"])
    else:
        return None
    hour = int(match["H"] or 0)
    if match["ampm"]:
        if not 1 <= hour <= 12:
            return None
        pm = match["ampm"][0] in "Pp"
        hour = hour % 12 + (12 if pm else 0)
    try:
        moment = datetime(
            int(match["y"]), month, day, hour, int(match["M"] or 0), int(match["S"] or 0)
        )
    except ValueError:
        return None
    if match["tz"]:
        sign = -1 if match["tz"][0] == "-" else 1
        digits = match["tz"][1:].replace(":", "")
        hours, minutes = (digits, "0") if len(digits) <= 2 else (digits[:-2], digits[-2:])
        offset = timedelta(hours=int(hours), minutes=int(minutes))
        if offset > timedelta(hours=14):
            return None
        return moment.replace(tzinfo=timezone(sign * offset))
    if "GMT" in value.upper() or value.upper().endswith(("UTC", "Z")):
        return moment.replace(tzinfo=UTC)
    return moment.replace(tzinfo=tz)


# --------------------------------------------------------------------------- formats


@dataclass(frozen=True)
class KnownColumn:
    """A column a format writes itself (not a question of the form)."""

    role: str  # "submitted_at", "respondent", or "meta" (not mapped by default)
    names: tuple[str, ...]
    # Left out of a row's import key: the column changes after the fact (a score regraded,
    # tags added), and the same response must still be recognised.
    volatile: bool = False


@dataclass(frozen=True)
class SurveyFormat:
    name: str  # what `import_survey --format` takes
    label: str
    known_columns: tuple[KnownColumn, ...]
    # (table) -> "" when the file looks like this format, else a note for the preview ("no
    # 'Timestamp' column: is this a Google Forms export? ...").
    looks_like: Callable[[ExportTable], str]
    # (table, row) -> a reason to skip the row ("a partial response (never submitted)"), or "".
    row_skip: Callable[[ExportTable, ExportRow], str] = field(default=lambda table, row: "")
    # Timestamps without a zone are in this zone whatever the mapping says ("" = the mapping's
    # timezone setting): Typeform's columns say "(UTC)".
    fixed_zone: str = ""
    # (bytes, file name) -> the table; both formats here are CSV and share table_read.
    reader: Callable[[bytes, str], ExportTable] = table_read

    def read(self, data: bytes, filename: str) -> ExportTable:
        return self.reader(data, filename)

    def columns_of(self, table: ExportTable, role: str) -> list[Column]:
        names = [n for k in self.known_columns if k.role == role for n in k.names]
        return table.by_header(names)

    def volatile_columns(self, table: ExportTable) -> set[int]:
        names = [n for k in self.known_columns if k.volatile for n in k.names]
        return {c.index for c in table.by_header(names)}

    def known_indexes(self, table: ExportTable) -> set[int]:
        return {c.index for c in table.by_header(n for k in self.known_columns for n in k.names)}


_FORMATS: dict[str, SurveyFormat] = {}


def survey_format_register(*, format: SurveyFormat) -> SurveyFormat:
    existing = _FORMATS.get(format.name)
    if existing is not None and existing != format:
        raise ValueError(f"survey format {format.name!r} is already registered")
    _FORMATS[format.name] = format
    return format


def survey_format_get(*, name: str) -> SurveyFormat:
    found = _FORMATS.get(name)
    if found is None:
        raise ValueError(
            f"unknown survey export format {name!r}; use one of {', '.join(survey_format_names())}"
        )
    return found


def survey_format_names() -> tuple[str, ...]:
    return tuple(_FORMATS)


def survey_formats() -> list[SurveyFormat]:
    return list(_FORMATS.values())


def survey_format_unregister(*, name: str) -> None:
    """For tests that register a throwaway format."""
    _FORMATS.pop(name, None)


# Google Forms writes its own column titles in the form's language.
GOOGLE_TIMESTAMP = (
    "Timestamp",
    "Marca temporal",
    "Horodateur",
    "Zeitstempel",
    "Carimbo de data/hora",
)
GOOGLE_EMAIL = ("Email Address", "Email address", "Dirección de correo electrónico", "Email")


def _google_looks_like(table: ExportTable) -> str:
    if table.by_header(GOOGLE_TIMESTAMP):
        return ""
    return (
        f"no {GOOGLE_TIMESTAMP[0]!r} column: is this a Google Forms export? "
        "Map submitted_at to the column holding the submission time."
    )


def _typeform_looks_like(table: ExportTable) -> str:
    if table.by_header(["#"]) and table.by_header(["Submit Date (UTC)"]):
        return ""
    return (
        "no '#' and 'Submit Date (UTC)' columns: is this a Typeform export? "
        "Map respondent and submitted_at to the columns holding them."
    )


def _typeform_row_skip(table: ExportTable, row: ExportRow) -> str:
    """Newer Typeform exports include responses left before the end (Response Type
    "partial", no submit date): the respondent never submitted them."""
    for column in table.by_header(["Response Type"]):
        if _fold(row.cell(column.index)) == "partial":
            return "a partial response (never submitted)"
    return ""


GOOGLE_FORMS = SurveyFormat(
    name="google-forms",
    label="Google Forms (CSV)",
    known_columns=(
        KnownColumn("submitted_at", GOOGLE_TIMESTAMP),
        KnownColumn("respondent", GOOGLE_EMAIL),
        KnownColumn("meta", ("Score", "Puntuación"), volatile=True),
    ),
    looks_like=_google_looks_like,
)
TYPEFORM = SurveyFormat(
    name="typeform",
    label="Typeform (CSV)",
    known_columns=(
        KnownColumn("respondent", ("#",)),
        KnownColumn("submitted_at", ("Submit Date (UTC)",)),
        KnownColumn("meta", ("Response Type", "Start Date (UTC)", "Network ID")),
        KnownColumn("meta", ("Stage Date (UTC)", "Tags"), volatile=True),
    ),
    looks_like=_typeform_looks_like,
    row_skip=_typeform_row_skip,
    fixed_zone="UTC",
)


def register() -> None:
    for format in (GOOGLE_FORMS, TYPEFORM):
        survey_format_register(format=format)


# --------------------------------------------------------------------------- the mapping


@dataclass
class Mapping:
    """Which column holds which of the survey's fields (column indexes), and the settings
    used to read them. `slots` holds one {answer field: column} per repeated section."""

    row: dict[str, int] = field(default_factory=dict)
    demographics: dict[str, int] = field(default_factory=dict)
    slots: list[dict[str, int]] = field(default_factory=lambda: [{}])
    options: dict[str, str] = field(default_factory=lambda: dict(OPTION_DEFAULTS))

    def flat(self, table: ExportTable) -> dict[str, str]:
        """FIELD -> column label (and option -> value): what `--map` and the page take.
        Slot n > 1 of a field is "field.n"."""
        label = {c.index: c.label for c in table.columns}
        out: dict[str, str] = {k: label[v] for k, v in self.row.items()}
        for n, slot in enumerate(self.slots, start=1):
            for name, index in slot.items():
                out[name if n == 1 else f"{name}.{n}"] = label[index]
        for key, index in self.demographics.items():
            out[f"{DEMOGRAPHIC_PREFIX}{key}"] = label[index]
        out.update({k: v for k, v in self.options.items() if v != OPTION_DEFAULTS[k]})
        return out

    def columns_used(self) -> list[tuple[str, int]]:
        used = list(self.row.items())
        used += [(f"{DEMOGRAPHIC_PREFIX}{k}", v) for k, v in self.demographics.items()]
        for n, slot in enumerate(self.slots, start=1):
            used += [(name if n == 1 else f"{name}.{n}", v) for name, v in slot.items()]
        return used


_SLOT_KEY = re.compile(r"^(?P<name>[a-z_]+)(?:\.(?P<n>\d{1,2}))?$")


def mapping_from_flat(
    flat: dict[str, str], *, table: ExportTable, demographic_keys: Iterable[str]
) -> tuple[Mapping, list[ImportProblem]]:
    """Read FIELD -> column (label, unique header or number) and option -> value; an empty
    column unmaps the field. Problems name the field and what is wrong, at the header line."""
    mapping = Mapping()
    problems: list[ImportProblem] = []
    demographic_keys = set(demographic_keys)

    def problem(key: str, message: str) -> None:
        problems.append(ImportProblem(table.filename, 1, key, message))

    for key, raw in flat.items():
        key, value = key.strip(), nfc((raw or "").strip())
        if key in OPTION_DEFAULTS:
            mapping.options[key] = value or OPTION_DEFAULTS[key]
            continue
        if not value:
            continue
        column = table.column(value)
        if key.startswith(DEMOGRAPHIC_PREFIX):
            name = key[len(DEMOGRAPHIC_PREFIX) :]
            if name not in demographic_keys:
                problem(key, f"the survey has no demographic question {name!r}")
                continue
            target: dict[str, int] = mapping.demographics
            slot_name = name
        else:
            match = _SLOT_KEY.match(key)
            name = match["name"] if match else ""
            n = int(match["n"] or 1) if match else 0
            if name in ROW_FIELDS and n == 1 and not (match and match["n"]):
                target, slot_name = mapping.row, name
            elif name in ANSWER_FIELDS and 1 <= n <= 20:
                while len(mapping.slots) < n:
                    mapping.slots.append({})
                target, slot_name = mapping.slots[n - 1], name
            else:
                known = [*ROW_FIELDS, *ANSWER_FIELDS, *OPTION_DEFAULTS]
                problem(
                    key,
                    f"unknown field; fields are {', '.join(known)}, "
                    f"{DEMOGRAPHIC_PREFIX}<question key>, "
                    "and <answer field>.2 for a repeated section",
                )
                continue
        if column is None:
            same = [c.label for c in table.columns if c.header == value]
            hint = f" (it appears {len(same)} times: use {' or '.join(repr(s) for s in same)})"
            problem(
                key,
                f"no column {value!r} in the file" + (hint if len(same) > 1 else ""),
            )
            continue
        target[slot_name] = column.index
    option = mapping.options
    if option["date_order"] not in DATE_ORDERS:
        problem("date_order", f"must be one of {', '.join(DATE_ORDERS)}")
    try:
        _zone(option["timezone"])
    except TimestampError as exc:
        problem("timezone", str(exc))
    while len(mapping.slots) > 1 and not mapping.slots[-1]:
        mapping.slots.pop()
    return mapping, problems


def mapping_problems(mapping: Mapping, *, table: ExportTable) -> list[ImportProblem]:
    """What stops an import with this mapping (before any row is read)."""
    problems: list[ImportProblem] = []

    def problem(key: str, message: str) -> None:
        problems.append(ImportProblem(table.filename, 1, key, message))

    if "submitted_at" not in mapping.row:
        problem("submitted_at", "not mapped: choose the column holding the submission time")
    first = mapping.slots[0] if mapping.slots else {}
    if "text" not in first and "attribute" not in first:
        problem("text", "not mapped: choose the column holding the stereotype (or the attribute)")
    for n, slot in enumerate(mapping.slots[1:], start=2):
        if slot and "text" not in slot and "attribute" not in slot:
            problem(f"text.{n}", f"section {n} has fields but no stereotype (text or attribute)")
    label = {c.index: c.label for c in table.columns}
    by_column: dict[int, list[str]] = {}
    for key, index in mapping.columns_used():
        by_column.setdefault(index, []).append(key)
    for index, keys in by_column.items():
        if len(keys) > 1:
            problem(keys[1], f"column {label[index]!r} is mapped to {' and '.join(keys)}")
    return problems


# Header words per field, tried in this order (the first field whose words a header holds
# wins): exposure before text, since "How do you know this stereotype?" names a stereotype.
GUESS_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("exposure", ("how do you know", "cómo lo conoces", "cómo conoces", "exposure", "कैसे जानते")),
    ("experience", ("experience", "experiencia", "describe", "describa", "अनुभव")),
    ("heard", ("heard", "oído", "escuchado", "सुना")),
    ("witnessed", ("witnessed", "presenciado", "seen it", "visto", "देखा")),
    ("affected", ("affected", "afectad", "प्रभावित")),
    ("category", ("category", "categoría", "categoria", "श्रेणी")),
    ("group_text", ("group", "grupo", "colectivo", "समूह")),
    ("attribute", ("attribute", "atributo", "what is said", "qué se dice", "गुण")),
    ("language", ("language", "idioma", "lengua", "भाषा")),
    ("text", ("stereotype", "estereotipo", "रूढ़ि", "रूढि", "धारणा")),
)
# The survey's own question texts, matched whole: a form built from them maps exactly.
STRING_FIELDS = {
    "stereotype_label": "text",
    "group_label": "group_text",
    "group_other_label": "group_text",
    "attribute_label": "attribute",
    "category_label": "category",
    "exposure_label": "exposure",
    "heard": "heard",
    "witnessed": "witnessed",
    "affected": "affected",
    "experience_label": "experience",
}
LANGUAGE_HEADERS = ("lang", "language", "idioma", "भाषा")


def mapping_guess(table: ExportTable, *, format: SurveyFormat, content: dict) -> Mapping:
    """A mapping from the headers where it is obvious: the format's own columns, the survey's
    own question texts and demographic labels, then words per field. The n-th column guessed
    for an answer field goes to section n (a repeated section repeats its titles)."""
    mapping = Mapping()
    taken: set[int] = set()
    for role in ("submitted_at", "respondent"):
        found = format.columns_of(table, role)
        if found:
            mapping.row[role] = found[0].index
            taken.add(found[0].index)
    taken |= format.known_indexes(table)
    exact: dict[str, str] = {}
    for texts in (content.get("strings") or {}).values():
        for key, name in STRING_FIELDS.items():
            if texts.get(key):
                exact.setdefault(_fold(texts[key]), name)
    demographic: dict[str, str] = {}
    for question in content.get("demographics") or []:
        demographic.setdefault(_fold(question["key"].replace("_", " ")), question["key"])
        for label in (question.get("labels") or {}).values():
            if label:
                demographic.setdefault(_fold(label), question["key"])
    per_field: dict[str, list[int]] = {}
    for column in table.columns:
        if column.index in taken or not column.header:
            continue
        header = _fold(column.header)
        if header in demographic:
            mapping.demographics.setdefault(demographic[header], column.index)
            continue
        if header in LANGUAGE_HEADERS and "language" not in mapping.row:
            mapping.row["language"] = column.index
            continue
        name = exact.get(header) or next(
            (name for name, words in GUESS_WORDS if any(_fold(w) in header for w in words)),
            "",
        )
        if name == "language":
            mapping.row.setdefault("language", column.index)
        elif name:
            per_field.setdefault(name, []).append(column.index)
    sections = max((len(v) for v in per_field.values()), default=1)
    mapping.slots = [{} for _ in range(max(sections, 1))]
    for name, indexes in per_field.items():
        for n, index in enumerate(indexes):
            mapping.slots[n][name] = index
    while len(mapping.slots) > 1 and not mapping.slots[-1]:
        mapping.slots.pop()
    return mapping


# --------------------------------------------------------------------------- cell values


def yes(cell: str) -> bool:
    return bool(cell) and _fold(cell) not in NO_WORDS


def exposure_words(mapping: Mapping, content: dict) -> dict[str, list[str]]:
    """Per kind (heard/witnessed/affected): the words looked for in the exposure column; the
    mapping's `<kind>_words` ("|"-separated) replace the defaults (the survey's own option
    labels in every language, and EXPOSURE_WORDS)."""
    words: dict[str, list[str]] = {}
    for kind in EXPOSURE_KINDS:
        given = mapping.options.get(f"{kind}_words", "")
        if given:
            words[kind] = [_fold(w) for w in given.split("|") if w.strip()]
            continue
        labels = [t.get(kind, "") for t in (content.get("strings") or {}).values()]
        words[kind] = [_fold(w) for w in [*labels, *EXPOSURE_WORDS[kind]] if w]
    return words


def exposure_read(cell: str, words: dict[str, list[str]]) -> dict[str, bool]:
    folded = _fold(cell)
    return {kind: any(w in folded for w in words[kind]) for kind in EXPOSURE_KINDS}


def split_choices(cell: str) -> list[str]:
    """A Google Forms checkbox answer: the choices joined with ", "."""
    return [part.strip() for part in cell.split(", ") if part.strip()]


def label_index(items: Iterable[dict]) -> dict[str, str]:
    """folded key or label (any language) -> key, for categories, groups, options."""
    index: dict[str, str] = {}
    for item in items:
        index.setdefault(_fold(item["key"]), item["key"])
        for label in (item.get("labels") or {}).values():
            if label:
                index.setdefault(_fold(label), item["key"])
    return index


def fold(text: str) -> str:
    return _fold(text)
