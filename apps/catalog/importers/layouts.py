"""Published instance files: one Reader and one Writer per format.

Formats (the names `import_benchmark --format` takes):
    bbq-instances        nyu-mll/BBQ `data/<Category>.jsonl`
    bharatbbq-instances  BharatBBQ `Examples/<Category>_examples.csv`
    esbbq-instances      EsBBQ `data_es/<Category>.full.csv` or `.full.jsonl`
    cabbq-instances      CaBBQ `data_ca/<Category>.full.csv` or `.full.jsonl`

A Reader turns one file into InstanceRecords: the fields Kasauti has columns for (context,
question, options, gold label, ids, condition, polarity...) plus everything else the row carries,
kept as it is in `additional_metadata["extra"]`. It also records what is needed to write the file
back exactly: the key order of JSON rows, the CSV header, the byte-order mark, the JSON escaping.

A Writer renders rows back into the source's own layout from exactly what the database holds.
The Reader checks every row against its Writer while reading: a row the Writer cannot reproduce
byte for byte (a layout quirk no field captures, text that is not NFC) keeps its original text in
`additional_metadata["verbatim"]`, and the import report counts such rows. So an export of an
imported file equals the file, and the count says how much of it Kasauti really understood.
"""

from __future__ import annotations

import ast
import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from apps.catalog.models import ContextCondition, NounForm, OptionRole, Pairing, QuestionPolarity
from apps.core.errors import ImportProblem
from apps.core.text import nfc, nfc_deep

from .records import FindingRecord
from .tables import ImportFile

# BharatBBQ's generator draws the unknown option from these six phrases (create_examples.ipynb).
BHARATBBQ_UNKNOWN = (
    "can't answer",
    "can't be determined",
    "cannot answer",
    "not enough info",
    "not enough information",
    "unknown",
)

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


def _int(value: Any, field_name: str) -> int:
    if isinstance(value, bool):
        raise RowError(field_name, f"expected a whole number, got {value!r}")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise RowError(field_name, f"expected a whole number, got {value!r}") from None
    if number < 0:
        raise RowError(field_name, f"expected a number >= 0, got {number}")
    return number


def _choice(value: Any, mapping: dict[str, str], field_name: str) -> str:
    if value not in mapping:
        raise RowError(
            field_name, f"expected one of {', '.join(map(repr, mapping))}, got {value!r}"
        )
    return mapping[value]


def _text(value: Any, field_name: str) -> str:
    if not isinstance(value, str):
        raise RowError(field_name, f"expected text, got {value!r}")
    return nfc(value)


def _norm_group(value: str) -> str:
    # BBQ's results script compares group labels without spaces or case ("low SES" = lowSES).
    return value.replace(" ", "").replace("-", "").casefold()


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


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line with its terminator) for each physical line (\n, \r\n or \r)."""
    yield from enumerate(io.StringIO(text, newline=""), start=1)


def _decode(upload: ImportFile, parse: InstanceParse) -> tuple[str, bool] | None:
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


def _terminator(line: str) -> tuple[str, str]:
    if line.endswith("\r\n"):
        return line[:-2], "\r\n"
    if line.endswith(("\n", "\r")):
        return line[:-1], line[-1]
    return line, ""


# --- JSON Lines ------------------------------------------------------------------------------


def key_order(value: Any) -> list[Any]:
    """The key order of a JSON object, nested objects included: ["a", ["b", [...]], ...].
    PostgreSQL's jsonb does not keep key order, so the order is recorded apart."""
    order: list[Any] = []
    for key, item in value.items():
        order.append([key, key_order(item)] if isinstance(item, dict) else key)
    return order


def ordered(value: dict[str, Any], order: list[Any]) -> dict[str, Any]:
    """Rebuild `value` with the keys in `order` (keys not named keep their place at the end)."""
    out: dict[str, Any] = {}
    for entry in order:
        key, sub = (entry[0], entry[1]) if isinstance(entry, list) else (entry, None)
        if key in value:
            item = value[key]
            out[key] = ordered(item, sub) if sub is not None and isinstance(item, dict) else item
    for key, item in value.items():
        out.setdefault(key, item)
    return out


class JsonlFormat:
    """A JSON Lines layout: which keys are Kasauti columns, and how each is typed.

    `columns` maps a JSON key to (Instance field, type); every other key is kept in
    additional_metadata["extra"]. `ids` names the key that holds the instance id."""

    format: ClassVar[str]
    language: ClassVar[str]
    id_key: ClassVar[str]
    index_key: ClassVar[str]  # the template id (BBQ question_index, EsBBQ template_id)
    stereotyped_key: ClassVar[tuple[str, ...]]  # path to stereotyped_groups
    group_after_comma: ClassVar[bool] = False  # see roles_from_answer_info
    text_keys: ClassVar[tuple[str, ...]] = ("context", "question", "ans0", "ans1", "ans2")

    # --- Reader ---
    def read(self, upload: ImportFile, parse: InstanceParse) -> None:
        decoded = _decode(upload, parse)
        if decoded is None:
            return
        text, bom = decoded
        file_info: dict[str, Any] = {"bom": bom, "final_newline": text.endswith(("\n", "\r"))}
        row = 0
        for number, raw in _lines(text):
            line, newline = _terminator(raw)
            if not line.strip():
                parse.problem(upload.name, number, "line", "blank line inside a JSON Lines file")
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as error:
                parse.problem(upload.name, number, "json", f"not a JSON object: {error.msg}")
                continue
            if not isinstance(data, dict):
                parse.problem(upload.name, number, "json", "each line must be a JSON object")
                continue
            try:
                values = self.values(data)
            except RowError as error:
                parse.problem(upload.name, number, error.field_name, str(error))
                continue
            meta = values["additional_metadata"]
            meta.update(file=upload.name, row=row, line=number)
            order = key_order(data)
            if row == 0:
                file_info["newline"] = newline or "\n"
                file_info["keys"] = order
                file_info["ascii"] = self._ascii_for(line, data)
                meta["file_info"] = file_info
            elif order != file_info["keys"]:
                meta["keys"] = order
            if newline and newline != file_info["newline"]:
                meta["newline"] = newline
            if self.render(values, file_info) != line:
                meta["verbatim"] = line
                parse.verbatim += 1
            self._check_roles(upload.name, number, values, parse)
            for finding in values.pop("_findings", []):
                parse.findings.append(FindingRecord(upload.name, number, *finding))
            parse.records.append(
                InstanceRecord(upload.name, number, values["category"], self.language, values)
            )
            row += 1

    def _ascii_for(self, line: str, data: dict[str, Any]) -> bool:
        # json.dumps' default escapes every non-ASCII character; pandas and most tools do not.
        return json.dumps(data, ensure_ascii=True) == line

    def _check_roles(self, file: str, line: int, values: Values, parse: InstanceParse) -> None:
        if not values.pop("_roles_clear", True):
            parse.findings.append(
                FindingRecord(
                    file,
                    line,
                    "answer_info",
                    "option-roles-unclear",
                    "cannot tell which option is the stereotyped group from answer_info and "
                    "stereotyped_groups; roles are a best guess",
                    json.dumps(values["answer_info"], ensure_ascii=False),
                )
            )

    def values(self, data: dict[str, Any]) -> Values:
        missing = [
            key
            for key in (self.id_key, self.index_key, "question_polarity", "context_condition")
            + ("category", "answer_info", "label", *self.text_keys)
            if key not in data
        ]
        if missing:
            raise RowError(missing[0], f"required key(s) missing: {', '.join(missing)}")
        example_id = _int(data[self.id_key], self.id_key)
        label = _int(data["label"], "label")
        if label > 2:
            raise RowError("label", f"expected 0, 1 or 2, got {label}")
        answer_info = data["answer_info"]
        if not isinstance(answer_info, dict) or set(answer_info) != {"ans0", "ans1", "ans2"}:
            raise RowError("answer_info", "expected an object with ans0, ans1 and ans2")
        condition = _choice(
            data["context_condition"], {c: c for c in ContextCondition.values}, "context_condition"
        )
        polarity = _choice(
            data["question_polarity"], {p: p for p in QuestionPolarity.values}, "question_polarity"
        )
        stereotyped: Any = data
        for key in self.stereotyped_key:
            stereotyped = stereotyped.get(key, {}) if isinstance(stereotyped, dict) else {}
        stereotyped = stereotyped if isinstance(stereotyped, list) else []
        roles, clear = roles_from_answer_info(
            answer_info, stereotyped, group_after_comma=self.group_after_comma
        )
        index = data[self.index_key]
        if isinstance(index, bool) or not isinstance(index, int | str):
            raise RowError(self.index_key, f"expected an id, got {index!r}")
        if len(str(index)) > 100:
            raise RowError(self.index_key, "is longer than 100 characters")
        texts = {key: _text(data[key], key) for key in self.text_keys}
        category = _text(data["category"], "category")
        if not category.strip() or len(category) > 100:
            raise RowError("category", f"invalid category {category!r}")
        mapped = {
            self.id_key,
            self.index_key,
            "question_polarity",
            "context_condition",
            "category",
            "answer_info",
            "label",
            *self.text_keys,
        }
        extra = {key: nfc_deep(value) for key, value in data.items() if key not in mapped}
        pairing = self.pairing(data, condition, polarity, roles, label)
        return {
            "example_id": example_id,
            "source_id": str(data[self.id_key]),
            "question_index": str(index),
            "category": category,
            "context_condition": condition,
            "question_polarity": polarity,
            "pairing": pairing,
            "noun_form": "",
            "proper_noun": False,
            **texts,
            "label": label,
            "answer_info": nfc_deep(answer_info),
            "option_roles": roles,
            "_roles_clear": clear,
            "_findings": self.findings(data, condition, polarity, roles, label, pairing, clear),
            "additional_metadata": {
                "format": self.format,
                "extra": extra,
                # int or str: EsBBQ writes template ids as numbers, BBQ as strings.
                "index_type": "int" if isinstance(index, int) else "str",
            },
        }

    def pairing(
        self, data: dict[str, Any], condition: str, polarity: str, roles: list[str], label: int
    ) -> str:
        return pairing_from_roles(condition, polarity, roles, label)

    def findings(
        self,
        data: dict[str, Any],
        condition: str,
        polarity: str,
        roles: list[str],
        label: int,
        pairing: str,
        clear: bool,
    ) -> list[tuple[str, str, str, str]]:
        return []  # the pairing is derived from the roles: nothing to disagree with

    # --- Writer ---
    def row_object(self, values: Values) -> dict[str, Any]:
        meta = values["additional_metadata"]
        index: Any = values["question_index"]
        if meta.get("index_type") == "int":
            index = int(index)
        example_id: Any = values["example_id"]
        row = {
            **meta.get("extra", {}),
            self.id_key: example_id,
            self.index_key: index,
            "question_polarity": values["question_polarity"],
            "context_condition": values["context_condition"],
            "category": values["category"],
            "answer_info": values["answer_info"],
            "label": values["label"],
        }
        row.update({key: values[key] for key in self.text_keys})
        return row

    def render(self, values: Values, file_info: dict[str, Any]) -> str:
        meta = values["additional_metadata"]
        if "verbatim" in meta:
            return meta["verbatim"]
        order = meta.get("keys") or file_info.get("keys") or []
        return json.dumps(
            ordered(self.row_object(values), order), ensure_ascii=file_info.get("ascii", True)
        )


class BbqJsonlFormat(JsonlFormat):
    format = "bbq-instances"
    language = "en"
    id_key = "example_id"
    index_key = "question_index"
    stereotyped_key = ("additional_metadata", "stereotyped_groups")


class EsBbqJsonlFormat(JsonlFormat):
    format = "esbbq-instances"
    language = "es"
    id_key = "instance_id"
    index_key = "template_id"
    stereotyped_key = ("stereotyped_groups",)
    group_after_comma = True

    def findings(
        self,
        data: dict[str, Any],
        condition: str,
        polarity: str,
        roles: list[str],
        label: int,
        pairing: str,
        clear: bool,
    ) -> list[tuple[str, str, str, str]]:
        kind = data.get("question_type")
        if kind not in ("pro-stereo", "anti-stereo"):
            return []
        finding = mislabel_finding(
            condition=condition,
            polarity=polarity,
            roles=roles,
            label=label,
            pairing=pairing,
            clear=clear,
            field_name="question_type",
            stated=kind,
        )
        return [finding] if finding else []

    def pairing(
        self, data: dict[str, Any], condition: str, polarity: str, roles: list[str], label: int
    ) -> str:
        # EsBBQ states it: question_type is pro-stereo / anti-stereo (n/a when ambiguous).
        kind = data.get("question_type")
        if kind == "anti-stereo":
            return Pairing.ANTI_STEREOTYPICAL
        if kind == "pro-stereo":
            return Pairing.STEREOTYPICAL
        return pairing_from_roles(condition, polarity, roles, label)


class CaBbqJsonlFormat(EsBbqJsonlFormat):
    format = "cabbq-instances"
    language = "ca"


# --- CSV -------------------------------------------------------------------------------------


class CsvFormat:
    """A CSV layout written by pandas (`to_csv(index=False)`: minimal quoting, "\\n" rows).

    Subclasses say which columns are Kasauti fields (`parse_row`) and how to write them back
    (`row_cells`); every other column is kept as its original cell text in "extra"."""

    format: ClassVar[str]
    language: ClassVar[str]
    required: ClassVar[tuple[str, ...]]
    mapped: ClassVar[frozenset[str]]

    def read(self, upload: ImportFile, parse: InstanceParse) -> None:
        decoded = _decode(upload, parse)
        if decoded is None:
            return
        text, bom = decoded
        raw_lines: list[str] = []
        numbers: list[int] = []

        def feed() -> Iterator[str]:
            for number, line in _lines(text):
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
        header_text, newline = _terminator("".join(raw_lines))
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
            raw, row_newline = _terminator("".join(raw_lines))
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


class BharatBbqCsvFormat(CsvFormat):
    """Qid,Context_type,Context,Question,Question_polarity,Option1,Option2,Option3,Options,
    Label,Target,Pairing,Proper_Noun,Category,id (Label and Target count options from 1)."""

    format = "bharatbbq-instances"
    language = "en"
    required = (
        "Qid",
        "Context_type",
        "Context",
        "Question",
        "Question_polarity",
        "Option1",
        "Option2",
        "Option3",
        "Label",
        "Target",
        "Pairing",
        "Proper_Noun",
        "Category",
        "id",
    )
    # Options is the repr of the three options, so it is written from them, not stored.
    mapped = frozenset(required) - {"Target"} | {"Options"}
    CONDITIONS = {"amb": ContextCondition.AMBIGUOUS.value, "disamb": "disambig"}
    POLARITIES = {"neg": QuestionPolarity.NEGATIVE.value, "non-neg": "nonneg"}
    PAIRINGS = {"biased": Pairing.STEREOTYPICAL.value, "anti": Pairing.ANTI_STEREOTYPICAL.value}
    NOUN_FORMS = {
        "0": NounForm.COMMON_NOUN.value,
        "1": NounForm.PROPER_NAME.value,
        "2": NounForm.GROUP_LABEL.value,
    }

    def parse_row(self, cells: dict[str, str]) -> Values:
        label = _int(cells["Label"], "Label")
        target = _int(cells["Target"], "Target")
        if not 1 <= label <= 3:
            raise RowError("Label", f"expected 1, 2 or 3, got {label}")
        if not 1 <= target <= 3:
            raise RowError("Target", f"expected 1, 2 or 3, got {target}")
        options = [nfc(cells[f"Option{i}"]) for i in (1, 2, 3)]
        condition = _choice(cells["Context_type"], self.CONDITIONS, "Context_type")
        roles, finding = self._roles(options, target - 1, condition, label - 1)
        for name in ("Qid", "Category"):
            if not cells[name].strip() or len(cells[name]) > 100:
                raise RowError(name, f"invalid value {cells[name]!r}")
        noun_form = _choice(cells["Proper_Noun"], self.NOUN_FORMS, "Proper_Noun")
        polarity = _choice(cells["Question_polarity"], self.POLARITIES, "Question_polarity")
        pairing = _choice(cells["Pairing"], self.PAIRINGS, "Pairing")
        mislabel = mislabel_finding(
            condition=condition,
            polarity=polarity,
            roles=roles,
            label=label - 1,
            pairing=pairing,
            clear=finding is None,
            field_name="Pairing",
            stated=cells["Pairing"],
        )
        return {
            "example_id": _int(cells["id"], "id"),
            "source_id": cells["id"],
            "question_index": nfc(cells["Qid"]),
            "category": nfc(cells["Category"]),
            "context_condition": condition,
            "question_polarity": polarity,
            "pairing": pairing,
            "noun_form": noun_form,
            "proper_noun": noun_form == NounForm.PROPER_NAME,
            "context": nfc(cells["Context"]),
            "question": nfc(cells["Question"]),
            "ans0": options[0],
            "ans1": options[1],
            "ans2": options[2],
            "label": label - 1,
            "option_roles": roles,
            "answer_info": {
                f"ans{i}": [options[i], roles[i]] for i in range(3)
            },  # BharatBBQ gives no group labels: the role stands in for one
            "additional_metadata": {},
            "_findings": [f for f in (finding, mislabel) if f],
        }

    def _roles(
        self, options: list[str], target: int, condition: str, label: int
    ) -> tuple[list[str], tuple[str, str, str, str] | None]:
        unknown = [
            i for i in range(3) if i != target and options[i].casefold() in BHARATBBQ_UNKNOWN
        ]
        finding = None
        if len(unknown) != 1:
            # An ambiguous context's gold answer is always the unknown option.
            guess = label if condition == ContextCondition.AMBIGUOUS and label != target else None
            if guess is None:
                guess = next(i for i in range(3) if i != target)
            finding = (
                "Option1",
                "option-roles-unclear",
                "none or several of the non-target options is one of BharatBBQ's unknown "
                f"phrases; option {guess + 1} is taken as the unknown one",
                " | ".join(options),
            )
            unknown = [guess]
        roles = [OptionRole.NON_STEREOTYPED.value] * 3
        roles[target] = OptionRole.STEREOTYPED.value
        roles[unknown[0]] = OptionRole.UNKNOWN.value
        return roles, finding

    def row_cells(self, values: Values) -> dict[str, str]:
        options = [values["ans0"], values["ans1"], values["ans2"]]
        reverse = _REVERSE_BHARAT
        return {
            "Qid": values["question_index"],
            "Context_type": reverse["condition"][values["context_condition"]],
            "Context": values["context"],
            "Question": values["question"],
            "Question_polarity": reverse["polarity"][values["question_polarity"]],
            "Option1": options[0],
            "Option2": options[1],
            "Option3": options[2],
            "Options": repr({f"Option{i + 1}": options[i] for i in range(3)}),
            "Label": str(values["label"] + 1),
            "Pairing": reverse["pairing"][values["pairing"]],
            "Proper_Noun": reverse["noun"].get(values["noun_form"], "0"),
            "Category": values["category"],
            "id": values["source_id"],
        }


_REVERSE_BHARAT = {
    name: {v: k for k, v in mapping.items()}
    for name, mapping in (
        ("condition", BharatBbqCsvFormat.CONDITIONS),
        ("polarity", BharatBbqCsvFormat.POLARITIES),
        ("pairing", BharatBbqCsvFormat.PAIRINGS),
        ("noun", BharatBbqCsvFormat.NOUN_FORMS),
    )
}


class EsBbqCsvFormat(CsvFormat):
    """EsBBQ's `.full.csv`: the JSONL keys as columns, answer_info flattened to
    answer_info.ans0..2, lists written as Python reprs (pandas)."""

    format = "esbbq-instances"
    language = "es"
    required = (
        "instance_id",
        "template_id",
        "question_polarity",
        "context_condition",
        "category",
        "stereotyped_groups",
        "answer_info.ans0",
        "answer_info.ans1",
        "answer_info.ans2",
        "context",
        "question",
        "ans0",
        "ans1",
        "ans2",
        "label",
    )
    # stereotyped_groups stays an extra cell (as published); it is read for the roles only.
    mapped = frozenset(required) - {"stereotyped_groups"}

    def parse_row(self, cells: dict[str, str]) -> Values:
        label = _int(cells["label"], "label")
        if label > 2:
            raise RowError("label", f"expected 0, 1 or 2, got {label}")
        info = {
            f"ans{i}": self._list(cells[f"answer_info.ans{i}"], f"answer_info.ans{i}")
            for i in range(3)
        }
        stereotyped = self._list(cells["stereotyped_groups"], "stereotyped_groups")
        roles, clear = roles_from_answer_info(info, stereotyped, group_after_comma=True)
        condition = _choice(
            cells["context_condition"],
            {c: c for c in ContextCondition.values},
            "context_condition",
        )
        polarity = _choice(
            cells["question_polarity"],
            {p: p for p in QuestionPolarity.values},
            "question_polarity",
        )
        kind = cells.get("question_type", "")
        pairing = (
            Pairing.ANTI_STEREOTYPICAL.value
            if kind == "anti-stereo"
            else Pairing.STEREOTYPICAL.value
            if kind == "pro-stereo"
            else pairing_from_roles(condition, polarity, roles, label)
        )
        for name in ("template_id", "category"):
            if not cells[name].strip() or len(cells[name]) > 100:
                raise RowError(name, f"invalid value {cells[name]!r}")
        findings = []
        if not clear:
            findings.append(
                (
                    "answer_info.ans0",
                    "option-roles-unclear",
                    "cannot tell which option is the stereotyped group from answer_info and "
                    "stereotyped_groups; roles are a best guess",
                    " | ".join(cells[f"answer_info.ans{i}"] for i in range(3)),
                )
            )
        elif kind in ("pro-stereo", "anti-stereo"):
            mislabel = mislabel_finding(
                condition=condition,
                polarity=polarity,
                roles=roles,
                label=label,
                pairing=pairing,
                clear=clear,
                field_name="question_type",
                stated=kind,
            )
            findings += [mislabel] if mislabel else []
        return {
            "example_id": _int(cells["instance_id"], "instance_id"),
            "source_id": cells["instance_id"],
            "question_index": nfc(cells["template_id"]),
            "category": nfc(cells["category"]),
            "context_condition": condition,
            "question_polarity": polarity,
            "pairing": pairing,
            "noun_form": "",
            "proper_noun": False,
            "context": nfc(cells["context"]),
            "question": nfc(cells["question"]),
            "ans0": nfc(cells["ans0"]),
            "ans1": nfc(cells["ans1"]),
            "ans2": nfc(cells["ans2"]),
            "label": label,
            "option_roles": roles,
            "answer_info": nfc_deep(info),
            "additional_metadata": {},
            "_findings": findings,
        }

    @staticmethod
    def _list(cell: str, name: str) -> list[str]:
        try:
            value = ast.literal_eval(cell)
        except (ValueError, SyntaxError):
            raise RowError(name, f"expected a list such as ['a', 'b'], got {cell!r}") from None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise RowError(name, f"expected a list of texts, got {cell!r}")
        return value

    def row_cells(self, values: Values) -> dict[str, str]:
        info = values["answer_info"]
        return {
            "instance_id": values["source_id"],
            "template_id": values["question_index"],
            "question_polarity": values["question_polarity"],
            "context_condition": values["context_condition"],
            "category": values["category"],
            "answer_info.ans0": repr(list(info["ans0"])),
            "answer_info.ans1": repr(list(info["ans1"])),
            "answer_info.ans2": repr(list(info["ans2"])),
            "context": values["context"],
            "question": values["question"],
            "ans0": values["ans0"],
            "ans1": values["ans1"],
            "ans2": values["ans2"],
            "label": str(values["label"]),
        }


class CaBbqCsvFormat(EsBbqCsvFormat):
    format = "cabbq-instances"
    language = "ca"


# --- the formats by name ---------------------------------------------------------------------


class InstanceFileReader:
    """Reads the instance files of one format (a format may accept CSV and JSONL)."""

    format: ClassVar[str]
    language: ClassVar[str]
    layouts: ClassVar[dict[str, type[JsonlFormat] | type[CsvFormat]]]  # by file extension

    def layout_for(self, name: str) -> JsonlFormat | CsvFormat | None:
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


class BbqInstancesReader(InstanceFileReader):
    format = "bbq-instances"
    language = "en"
    layouts = {"jsonl": BbqJsonlFormat}


class BharatBbqInstancesReader(InstanceFileReader):
    format = "bharatbbq-instances"
    language = "en"
    layouts = {"csv": BharatBbqCsvFormat}


class EsBbqInstancesReader(InstanceFileReader):
    format = "esbbq-instances"
    language = "es"
    layouts = {"csv": EsBbqCsvFormat, "jsonl": EsBbqJsonlFormat}


class CaBbqInstancesReader(InstanceFileReader):
    format = "cabbq-instances"
    language = "ca"
    layouts = {"csv": CaBbqCsvFormat, "jsonl": CaBbqJsonlFormat}


INSTANCE_READERS: dict[str, type[InstanceFileReader]] = {
    reader.format: reader
    for reader in (
        BbqInstancesReader,
        BharatBbqInstancesReader,
        EsBbqInstancesReader,
        CaBbqInstancesReader,
    )
}
INSTANCE_FORMATS = tuple(INSTANCE_READERS)


def layout_for_row(fmt: str, file_name: str) -> JsonlFormat | CsvFormat:
    """The Writer for a stored instance's source file."""
    layout = INSTANCE_READERS[fmt]().layout_for(file_name)
    if layout is None:
        raise ValueError(f"no {fmt} layout for {file_name!r}")
    return layout


def render_file(fmt: str, file_name: str, rows: Iterator[Values]) -> Iterator[str]:
    """Write a source file back, as text chunks, from its rows in order (the first row carries
    the file's own facts: header, byte-order mark, line ending, final newline)."""
    layout = layout_for_row(fmt, file_name)
    file_info: dict[str, Any] | None = None
    pending: str | None = None  # the previous row, written once we know it is not the last
    for values in rows:
        meta = values["additional_metadata"]
        if file_info is None:
            file_info = meta.get("file_info") or {}
            if file_info.get("bom"):
                yield "\ufeff"
            if isinstance(layout, CsvFormat):
                yield file_info.get("header", "") + file_info.get("newline", "\n")
        if pending is not None:
            yield pending
        newline = meta.get("newline") or file_info.get("newline", "\n")
        pending = layout.render(values, file_info) + newline
    if pending is not None:
        if not (file_info or {}).get("final_newline", True):
            pending = pending.rstrip("\r\n")
        yield pending
