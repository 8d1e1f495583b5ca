"""Published instance files: what every layout shares (records, row checks, the file reader).

A format of kind "instances" (importers/formats.py) has an InstanceFileReader naming one layout
per file extension. A layout (importers/layout_jsonl.JsonlFormat, importers/layout_csv.CsvFormat,
subclassed by each benchmark in apps/catalog/benchmarks/<name>/instances.py) is both:

A Reader, which turns one file into InstanceRecords: the fields Kasauti has columns for (context,
question, options, gold label, ids, condition, polarity...) plus everything else the row carries,
kept as it is in `additional_metadata["extra"]`. It also records what is needed to write the file
back exactly: the key order of JSON rows, the CSV header, the byte-order mark, the JSON escaping.

A Writer, which renders rows back into the source's own layout from exactly what the database
holds. The Reader checks every row against its Writer while reading: a row the Writer cannot
reproduce byte for byte (a layout quirk no field captures, text that is not NFC) keeps its
original text in `additional_metadata["verbatim"]`, and the import report counts such rows. So
an export of an imported file equals the file, and the count says how much of it Kasauti really
understood.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from apps.catalog.models import ContextCondition, OptionRole, Pairing, QuestionPolarity
from apps.core.errors import ImportProblem
from apps.core.text import nfc

from .formats import format_get
from .records import FindingRecord
from .tables import ImportFile

Values = dict[str, Any]  # one instance as the database holds it (Instance field names)


@dataclass
class InstanceRecord:
    """One published instance, parsed and checked, not yet written."""

    file: str
    line: int
    category: str
    language: str
    values: Values  # Instance fields: example_id, source_id, context, ..., additional_metadata


@dataclass
class InstanceParse:
    records: list[InstanceRecord] = field(default_factory=list)
    problems: list[ImportProblem] = field(default_factory=list)
    findings: list[FindingRecord] = field(default_factory=list)
    verbatim: int = 0  # rows whose text the Writer could not reproduce from their fields

    def problem(self, file: str, line: int | None, field_name: str, message: str) -> None:
        self.problems.append(ImportProblem(file, line, field_name, message))


class RowError(ValueError):
    """A cell the original tooling could not have produced; rejects the import."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field_name = field_name


# --- shared helpers --------------------------------------------------------------------------


def row_int(value: Any, field_name: str) -> int:
    if isinstance(value, bool):
        raise RowError(field_name, f"expected a whole number, got {value!r}")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise RowError(field_name, f"expected a whole number, got {value!r}") from None
    if number < 0:
        raise RowError(field_name, f"expected a number >= 0, got {number}")
    return number


def row_choice(value: Any, mapping: dict[str, str], field_name: str) -> str:
    if value not in mapping:
        raise RowError(
            field_name, f"expected one of {', '.join(map(repr, mapping))}, got {value!r}"
        )
    return mapping[value]


def row_text(value: Any, field_name: str) -> str:
    if not isinstance(value, str):
        raise RowError(field_name, f"expected text, got {value!r}")
    return nfc(value)


def _norm_group(value: str) -> str:
    # BBQ's results script compares group labels without spaces or case ("low SES" = lowSES).
    return value.replace(" ", "").replace("-", "").casefold()


# The finding (kind, message) of a row whose answer_info does not say which option is which.
ROLES_UNCLEAR = (
    "option-roles-unclear",
    "cannot tell which option is the stereotyped group from answer_info and "
    "stereotyped_groups; roles are a best guess",
)


def roles_from_answer_info(
    answer_info: dict[str, Any], stereotyped: list[str], *, group_after_comma: bool = False
) -> tuple[list[str], bool]:
    """Option roles from BBQ-style answer_info ({"ans0": [text, group]}): the group "unknown"
    is the unknown option; a group or text among the stereotyped groups is the stereotyped one.
    With `group_after_comma` (EsBBQ), a group cell naming a gender and a group ("F, árabe")
    stands for the group after its last comma, as EsBBQ's bias_score.py reads it.
    Returns (roles, clear) where clear says exactly one stereotyped option was found."""
    targets = {_norm_group(str(group)) for group in stereotyped}
    roles = []
    for key in ("ans0", "ans1", "ans2"):
        text, group = (list(answer_info.get(key) or []) + ["", ""])[:2]
        if group_after_comma:
            group = str(group).split(",")[-1].strip()
        if str(group).casefold() == "unknown":
            roles.append(OptionRole.UNKNOWN.value)
        elif _norm_group(str(group)) in targets or _norm_group(str(text)) in targets:
            roles.append(OptionRole.STEREOTYPED.value)
        else:
            roles.append(OptionRole.NON_STEREOTYPED.value)
    clear = roles.count(OptionRole.STEREOTYPED) == 1 and roles.count(OptionRole.UNKNOWN) == 1
    return roles, clear


def pairing_from_roles(condition: str, polarity: str, roles: list[str], label: int) -> str:
    """BBQ files carry no pairing: a disambiguated instance whose gold answer is the
    stereotyped group for the negative question (or the other group for the non-negative one)
    confirms the stereotype."""
    if condition != ContextCondition.DISAMBIGUATED or not 0 <= label < len(roles):
        return Pairing.STEREOTYPICAL
    gold = roles[label]
    confirms = (polarity == QuestionPolarity.NEGATIVE and gold == OptionRole.STEREOTYPED) or (
        polarity == QuestionPolarity.NON_NEGATIVE and gold == OptionRole.NON_STEREOTYPED
    )
    return Pairing.STEREOTYPICAL if confirms else Pairing.ANTI_STEREOTYPICAL


def mislabel_finding(
    *,
    condition: str,
    polarity: str,
    roles: list[str],
    label: int,
    pairing: str,
    clear: bool,
    field_name: str,
    stated: str,
) -> tuple[str, str, str, str] | None:
    """(field, kind, message, original) when a disambiguated row's stated pairing disagrees
    with the one its gold answer and roles give: the benchmark's code scores by the stated
    field, so Kasauti does too, and says so."""
    if condition != ContextCondition.DISAMBIGUATED or not clear:
        return None
    derived = pairing_from_roles(condition, polarity, roles, label)
    if derived == pairing:
        return None
    return (
        field_name,
        "likely-mislabel",
        f"{field_name} says {stated!r} but the gold answer is the "
        f"{roles[label].replace('_', '-')} option of a "
        f"{'negative' if polarity == QuestionPolarity.NEGATIVE else 'non-negative'} question "
        f"({derived}); scored as {field_name} says, as the benchmark's own code does",
        stated,
    )


def text_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line with its terminator) for each physical line (\n, \r\n or \r)."""
    yield from enumerate(io.StringIO(text, newline=""), start=1)


def file_decode(upload: ImportFile, parse: InstanceParse) -> tuple[str, bool] | None:
    try:
        text = upload.data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = upload.data[: error.start].count(b"\n") + 1
        parse.problem(
            upload.name,
            line,
            "encoding",
            f"the file is not valid UTF-8 (byte 0x{upload.data[error.start]:02x} at offset "
            f"{error.start}); nothing was imported",
        )
        return None
    bom = text.startswith("\ufeff")
    return (text[1:] if bom else text), bom


def line_terminator(line: str) -> tuple[str, str]:
    if line.endswith("\r\n"):
        return line[:-2], "\r\n"
    if line.endswith(("\n", "\r")):
        return line[:-1], line[-1]
    return line, ""


class Layout(Protocol):
    """One file layout of an instance format: reads a file, writes its rows back."""

    def read(self, upload: ImportFile, parse: InstanceParse) -> None: ...

    def file_head(self, file_info: dict[str, Any]) -> str: ...

    def render(self, values: Values, file_info: dict[str, Any]) -> str: ...


class InstanceFileReader:
    """Reads the instance files of one format (a format may accept CSV and JSONL)."""

    format: ClassVar[str]
    language: ClassVar[str]
    layouts: ClassVar[dict[str, type[Layout]]]  # by file extension

    def layout_for(self, name: str) -> Layout | None:
        extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
        layout = self.layouts.get(extension)
        return layout() if layout else None

    def read(self, upload: ImportFile, parse: InstanceParse) -> None:
        layout = self.layout_for(upload.name)
        if layout is None:
            parse.problem(
                upload.name,
                None,
                "file",
                f"{self.format} reads {' or '.join('.' + e for e in self.layouts)} files",
            )
            return
        layout.read(upload, parse)


def layout_for_file(*, fmt: str, file_name: str) -> Layout:
    """The Writer for a stored instance's source file."""
    layout = format_get(name=fmt).reader().layout_for(file_name)
    if layout is None:
        raise ValueError(f"no {fmt} layout for {file_name!r}")
    return layout


def published_file_render(*, fmt: str, file_name: str, rows: Iterator[Values]) -> Iterator[str]:
    """Write a source file back, as text chunks, from its rows in order (the first row carries
    the file's own facts: header, byte-order mark, line ending, final newline)."""
    layout = layout_for_file(fmt=fmt, file_name=file_name)
    file_info: dict[str, Any] | None = None
    pending: str | None = None  # the previous row, written once we know it is not the last
    for values in rows:
        meta = values["additional_metadata"]
        if file_info is None:
            file_info = meta.get("file_info") or {}
            if file_info.get("bom"):
                yield "\ufeff"
            yield layout.file_head(file_info)
        if pending is not None:
            yield pending
        newline = meta.get("newline") or file_info.get("newline", "\n")
        pending = layout.render(values, file_info) + newline
    if pending is not None:
        if not (file_info or {}).get("final_newline", True):
            pending = pending.rstrip("\r\n")
        yield pending
