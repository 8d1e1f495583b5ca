"""The JSON Lines layout of published instance files (BBQ's data/*.jsonl, EsBBQ's .full.jsonl):
one JSON object per line; each benchmark subclass names its keys."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from apps.catalog.models import ContextCondition, QuestionPolarity
from apps.core.text import nfc_deep

from .layouts import (
    ROLES_UNCLEAR,
    InstanceParse,
    InstanceRecord,
    RowError,
    Values,
    file_decode,
    line_terminator,
    pairing_from_roles,
    roles_from_answer_info,
    row_choice,
    row_int,
    row_text,
    text_lines,
)
from .records import FindingRecord
from .tables import ImportFile


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
        decoded = file_decode(upload, parse)
        if decoded is None:
            return
        text, bom = decoded
        file_info: dict[str, Any] = {"bom": bom, "final_newline": text.endswith(("\n", "\r"))}
        row = 0
        for number, raw in text_lines(text):
            line, newline = line_terminator(raw)
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
                    *ROLES_UNCLEAR,
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
        example_id = row_int(data[self.id_key], self.id_key)
        label = row_int(data["label"], "label")
        if label > 2:
            raise RowError("label", f"expected 0, 1 or 2, got {label}")
        answer_info = data["answer_info"]
        if not isinstance(answer_info, dict) or set(answer_info) != {"ans0", "ans1", "ans2"}:
            raise RowError("answer_info", "expected an object with ans0, ans1 and ans2")
        condition = row_choice(
            data["context_condition"], {c: c for c in ContextCondition.values}, "context_condition"
        )
        polarity = row_choice(
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
        texts = {key: row_text(data[key], key) for key in self.text_keys}
        category = row_text(data["category"], "category")
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

    def file_head(self, file_info: dict[str, Any]) -> str:
        return ""  # JSON Lines: no header, every line is a row

    def render(self, values: Values, file_info: dict[str, Any]) -> str:
        meta = values["additional_metadata"]
        if "verbatim" in meta:
            return meta["verbatim"]
        order = meta.get("keys") or file_info.get("keys") or []
        return json.dumps(
            ordered(self.row_object(values), order), ensure_ascii=file_info.get("ascii", True)
        )
