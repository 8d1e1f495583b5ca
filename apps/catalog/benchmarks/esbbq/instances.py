"""EsBBQ's and CaBBQ's published instances: `data_es/<Category>.full.csv` or `.full.jsonl`
(format "esbbq-instances"), `data_ca/...` ("cabbq-instances"). The two differ only in language."""

from __future__ import annotations

import ast
from typing import Any

from apps.catalog.importers.layout_csv import CsvFormat
from apps.catalog.importers.layout_jsonl import JsonlFormat
from apps.catalog.importers.layouts import (
    ROLES_UNCLEAR,
    InstanceFileReader,
    RowError,
    Values,
    mislabel_finding,
    pairing_from_roles,
    roles_from_answer_info,
    row_choice,
    row_int,
)
from apps.catalog.models import ContextCondition, Pairing, QuestionPolarity
from apps.core.text import nfc, nfc_deep


def _question_type_findings(
    kind: Any,
    condition: str,
    polarity: str,
    roles: list[str],
    label: int,
    pairing: str,
    clear: bool,
) -> list[tuple[str, str, str, str]]:
    """A row whose stated question_type (pro-/anti-stereo) disagrees with its roles: the one
    check of both layouts (JSON Lines and CSV)."""
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


# --- JSON Lines ------------------------------------------------------------------------------


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
        return _question_type_findings(
            data.get("question_type"), condition, polarity, roles, label, pairing, clear
        )

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
        label = row_int(cells["label"], "label")
        if label > 2:
            raise RowError("label", f"expected 0, 1 or 2, got {label}")
        info = {
            f"ans{i}": self._list(cells[f"answer_info.ans{i}"], f"answer_info.ans{i}")
            for i in range(3)
        }
        stereotyped = self._list(cells["stereotyped_groups"], "stereotyped_groups")
        roles, clear = roles_from_answer_info(info, stereotyped, group_after_comma=True)
        condition = row_choice(
            cells["context_condition"],
            {c: c for c in ContextCondition.values},
            "context_condition",
        )
        polarity = row_choice(
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
                    *ROLES_UNCLEAR,
                    " | ".join(cells[f"answer_info.ans{i}"] for i in range(3)),
                )
            )
        else:
            findings += _question_type_findings(
                kind, condition, polarity, roles, label, pairing, clear
            )
        return {
            "example_id": row_int(cells["instance_id"], "instance_id"),
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


class EsBbqInstancesReader(InstanceFileReader):
    format = "esbbq-instances"
    language = "es"
    layouts = {"csv": EsBbqCsvFormat, "jsonl": EsBbqJsonlFormat}


class CaBbqInstancesReader(InstanceFileReader):
    format = "cabbq-instances"
    language = "ca"
    layouts = {"csv": CaBbqCsvFormat, "jsonl": CaBbqJsonlFormat}


def esbbq_instances_detect(file_name: str, first_line: str) -> bool:
    """EsBBQ and CaBBQ files look alike: esbbq-instances is the guess for both."""
    if file_name.lower().endswith(".jsonl"):
        return '"instance_id"' in first_line
    columns = first_line.strip().split(",")
    return "instance_id" in columns and not ("Qid" in columns and "Option1" in columns)
