"""IndiCASA (cerai-iitm/IndiCASA) per-category CSV, `IndiCASA_dataset - <category>.csv`:
    `context_id,sentence,type,Annotator 1 (1 to 5),Annotator 2 (1 to 5)`
Rows sharing a context_id form one ContextSet (external_id `<category>-<context_id>`), each row
one ContextSentence (type stereotype | anti_stereotype), in file order. The category comes from
the file name, else from --category. Annotator scores must be whole numbers 1..5; they are
validated but not stored (ContextSentence has no field for them yet).
"""

from __future__ import annotations

import re

from apps.catalog.models import ContextSentence

from .base import Reader
from .records import ContextSetRecord, ParseResult
from .tables import Row, Table, missing_columns
from .values import parse_int

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
        scores = []
        for key in score_columns:
            try:
                scores.append(parse_int(row.get(key), low=1, high=5))
            except ValueError as error:
                result.problem(
                    table.file, row.line, table.label(key), f"annotator score out of range: {error}"
                )
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
        if any(existing == text for _, existing in record.sentences):
            result.problem(
                table.file,
                row.line,
                table.label("sentence"),
                f"duplicate sentence in context {row.get('context_id')}",
            )
            return
        record.sentences.append((kind, text))
        record.scores.append(scores)
