"""The findings of a BBQ template row: defects of the published row, seen in what BBQ's
generator makes of it (no instances, empty answer_info, placeholders left unfilled, answers that
overlap). The reader (templates.py) records them with the template."""

from __future__ import annotations

import re

from apps.catalog.importers.records import FindingRecord
from apps.catalog.importers.tables import Row, Table

from .draws import return_list_from_string

_PLACEHOLDER = re.compile(r"\{\{[^{}]*\}\}")


def row_findings(
    *, table: Table, row: Row, combinations: list, text_columns: dict[str, str]
) -> list[FindingRecord]:
    """Defects of the published row, seen in what BBQ's generator makes of it (one finding per
    kind and field, with how many instances it touches)."""
    file, line = table.file, row.line
    out: list[FindingRecord] = []
    if not combinations:
        out.append(
            FindingRecord(
                file, line, table.label("names") if table.has("names") else "Names",
                "no-instances",
                "BBQ's generator makes no instance of this row (no second group to pair with)",
                row.get_raw("names"),
            )
        )  # fmt: skip
        return out
    missing = overlap = 0
    unfilled: dict[str, set[str]] = {}
    for combo in combinations:
        named = [
            combo.answer_info[f"ans{i}"]
            for i, role in enumerate(combo.option_roles)
            if role != "unknown"
        ]
        missing += sum(1 for info in named if info == ["", ""])
        if len(named) == 2 and named[0] == named[1] and named[0] != ["", ""]:
            overlap += 1
        texts = [text for variant in combo.variants for text in variant[4:6]]
        for text in texts + list(combo.answers):
            for token in _PLACEHOLDER.findall(text):
                unfilled.setdefault(token, set())
    if missing:
        out.append(
            FindingRecord(
                file, line, table.label("answer_negative"), "answer-info-missing",
                f"in {missing} of {len(combinations)} answer sets an answer names no NAME as "
                "BBQ's generator looks for it, so its answer_info is empty ['', '']",
                row.get_raw("answer_negative"),
            )
        )  # fmt: skip
    for token in sorted(unfilled):
        out.append(
            FindingRecord(
                file, line, table.label("lexical_diversity"), "unfilled-placeholder",
                f"{token} is left in the generated text (nothing fills it, as published)",
                row.get_raw("lexical_diversity"),
            )
        )  # fmt: skip
    lex = row.get_raw("lexical_diversity")
    uses_word2 = any("{{WORD2}}" in row.get_raw(key) for key in text_columns.values())
    if len(lex) > 1 and uses_word2 and len(return_list_from_string(lex)[1]) <= 1:
        out.append(
            FindingRecord(
                file, line, table.label("lexical_diversity"), "unfilled-placeholder",
                "{{WORD2}} is used but Lexical_diversity gives it no list of two or more values "
                "(or not as its last entry): BBQ's generator writes it as an empty string",
                lex,
            )
        )  # fmt: skip
    if overlap:
        out.append(
            FindingRecord(
                file, line, table.label("answer_non_negative"), "answer-info-overlap",
                f"in {overlap} of {len(combinations)} answer sets both answers contain the same "
                "NAME, so BBQ's generator gives them the same answer_info",
                row.get_raw("answer_non_negative"),
            )
        )  # fmt: skip
    return out
