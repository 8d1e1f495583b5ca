"""IndiCASA (cerai-iitm/IndiCASA) per-category CSV, `IndiCASA_dataset - <category>.csv`:
    `context_id,sentence,type,Annotator 1 (1 to 5),Annotator 2 (1 to 5)`
Rows sharing a context_id form one ContextSet (external_id `<category>-<context_id>`), each row
one ContextSentence (type stereotype | anti_stereotype), in file order. The category comes from
the file name, else from --category. Annotator scores (whole numbers 1..5) are stored per
sentence.

Published defects are findings, and the row is kept as published:
- `duplicate-sentence`: the same sentence twice in one context (same label);
- `conflicting-label`: the same sentence labelled stereotype and anti_stereotype in one context;
- `score-out-of-range` (0, 9, 44, ...), `score-not-a-number`, `score-missing`: the score is
  stored as missing (None) and the cell as published is kept in the finding.
"""

from __future__ import annotations

import re

from apps.catalog.importers.base import Reader
from apps.catalog.importers.records import ContextSetRecord, FindingRecord, ParseResult
from apps.catalog.importers.tables import Row, Table, missing_columns
from apps.catalog.importers.values import parse_int
from apps.catalog.models import ContextSentence

REQUIRED = ("context_id", "sentence", "type")
_FILE_NAME_RE = re.compile(r"IndiCASA_dataset\s*-\s*(.+?)\.(?:csv|xlsx)$", re.IGNORECASE)
_SCORE_COLUMN_RE = re.compile(r"^annotator_?\d+")
_KINDS = {
    "stereotype": ContextSentence.Kind.STEREOTYPE.value,
    "anti_stereotype": ContextSentence.Kind.ANTI_STEREOTYPE.value,
    "antistereotype": ContextSentence.Kind.ANTI_STEREOTYPE.value,
}


def category_from_file_name(name: str) -> str:
    match = _FILE_NAME_RE.search(name.replace("\\", "/").rsplit("/", 1)[-1])
    return match.group(1).strip() if match else ""


class IndiCasaReader(Reader):
    format = "indicasa"

    def read(self, tables: list[Table], result: ParseResult) -> None:
        self.sets: dict[str, ContextSetRecord] = {}
        super().read(tables, result)

    def read_table(self, table: Table, result: ParseResult) -> None:
        category = category_from_file_name(table.file) or self.category.strip()
        problems = list(missing_columns(table, REQUIRED))
        if not category:
            result.problem(
                table.file,
                None,
                "category",
                "cannot tell the category: name the file 'IndiCASA_dataset - <category>.csv' "
                "or pass --category",
            )
        if problems or not category:
            result.problems.extend(problems)
            return
        score_columns = [key for key in table.headers if _SCORE_COLUMN_RE.match(key)]
        for row in table.rows:
            self._read_row(table, row, result, category, score_columns)

    def _read_row(
        self,
        table: Table,
        row: Row,
        result: ParseResult,
        category: str,
        score_columns: list[str],
    ) -> None:
        before = len(result.problems)
        for key in REQUIRED:
            if not row.get(key):
                result.problem(table.file, row.line, table.label(key), "is empty")
        kind = _KINDS.get(re.sub(r"[\s\-]", "_", row.get("type").lower()))
        if row.get("type") and kind is None:
            result.problem(
                table.file,
                row.line,
                table.label("type"),
                f"expected stereotype or anti_stereotype, got {row.get('type')!r}",
            )
        scores: list[int | None] = []
        findings: list[FindingRecord] = []
        for key in score_columns:
            score, finding = _score(table, row, key)
            scores.append(score)
            if finding is not None:
                findings.append(finding)
        external_id = f"{category}-{row.get('context_id')}"
        if len(external_id) > 100:
            result.problem(table.file, row.line, table.label("context_id"), "is too long")
        if len(result.problems) > before or kind is None:
            return
        record = self.sets.get(external_id)
        if record is None:
            record = ContextSetRecord(
                file=table.file,
                line=row.line,
                external_id=external_id,
                category=category,
                language="en",
            )
            self.sets[external_id] = record
            result.context_sets.append(record)
        elif record.file != table.file:
            result.problem(
                table.file,
                row.line,
                table.label("context_id"),
                f"duplicate id: context {external_id!r} is also given in {record.file}",
            )
            return
        text = row.get("sentence")
        earlier = [
            (index, other_kind)
            for index, (other_kind, other) in enumerate(record.sentences)
            if other == text
        ]
        if earlier:
            index, other_kind = earlier[0]
            context = row.get("context_id")
            if other_kind != kind:
                findings.append(
                    FindingRecord(
                        table.file,
                        row.line,
                        table.label("type"),
                        "conflicting-label",
                        f"the sentence is labelled {row.get('type')} here and {other_kind} as "
                        f"sentence {index + 1} of context {context}; both are kept",
                        original=text,
                    )
                )
            else:
                findings.append(
                    FindingRecord(
                        table.file,
                        row.line,
                        table.label("sentence"),
                        "duplicate-sentence",
                        f"the sentence is also sentence {index + 1} of context {context}; "
                        "both are kept",
                        original=text,
                    )
                )
        position = len(record.sentences)
        record.sentences.append((kind, text))
        record.scores.append(scores)
        record.findings.extend((position, finding) for finding in findings)


def _score(table: Table, row: Row, key: str) -> tuple[int | None, FindingRecord | None]:
    """An annotator score, or None with a finding that keeps the cell as published."""
    raw = row.get(key)
    if not raw:
        return None, FindingRecord(
            table.file, row.line, table.label(key), "score-missing", "no annotator score"
        )
    try:
        return parse_int(raw, low=1, high=5), None
    except ValueError:
        pass
    try:
        float(raw)
    except ValueError:
        kind, message = "score-not-a-number", f"annotator score {raw!r} is not a number"
    else:
        kind, message = "score-out-of-range", f"annotator score {raw} is outside 1..5"
    return None, FindingRecord(
        table.file, row.line, table.label(key), kind, f"{message}; stored as missing", raw
    )
