"""IndiBias (sahoonihar/IndiBias): the Indian CrowS-Pairs release CSV and the tuple CSV.

Release CSV (`IndiBias_v1_sample.csv`), header
    `,index,modified_eng_sent_more,modified_eng_sent_less,sent_more_hindi,sent_less_hindi,
    bias_type,stereo_antistereo`
(the unnamed first column is the pandas index and is ignored). Each row becomes an "en"
SentencePair and, when the Hindi columns are filled, an "hi" SentencePair linked to it through
`parallel`. external_id = `index`; category = `bias_type` as written; direction =
`stereo_antistereo` (stereo | antistereo). sent_more/sent_less are kept as in the file
(CrowS-Pairs convention: for antistereo rows sent_more is the anti-stereotypical sentence).

Tuple CSV (IndiBias §4.1; no published schema, so this one is ours), detected by its
`identity_term` column:
    `identity_term,attribute,category,polarity,votes`
with `votes` a list of 0/1 annotator votes ("[1, 1, 0]" or "1,1,0"), or instead of `votes`
one column per annotator (`annotator_1,annotator_2,annotator_3` or `vote_1,...`).
`polarity` is positive | negative | neutral; an optional `language` column defaults to "en".
"""

from __future__ import annotations

import re

from apps.catalog.importers.base import Reader
from apps.catalog.importers.records import PairRecord, ParseResult, TupleRecord
from apps.catalog.importers.tables import Row, Table, apply_aliases, missing_columns
from apps.catalog.importers.values import parse_group_list, parse_int
from apps.catalog.models import SentencePair, StereotypeConcept
from apps.core.errors import ImportProblem

PAIR_ALIASES = {
    "id": "index",
    "sent_more": "modified_eng_sent_more",
    "sent_less": "modified_eng_sent_less",
    "eng_sent_more": "modified_eng_sent_more",
    "eng_sent_less": "modified_eng_sent_less",
    "direction": "stereo_antistereo",
}
PAIR_REQUIRED = (
    "index",
    "modified_eng_sent_more",
    "modified_eng_sent_less",
    "bias_type",
    "stereo_antistereo",
)
HINDI = ("sent_more_hindi", "sent_less_hindi")
TUPLE_ALIASES = {
    "identity": "identity_term",
    "bias_type": "category",
    "demographic": "category",
    "type": "polarity",
}
TUPLE_REQUIRED = ("identity_term", "attribute", "category", "polarity")
_VOTE_COLUMN_RE = re.compile(r"^(?:annotator|vote)_?\d+")
_DIRECTIONS = {
    "stereo": SentencePair.Direction.STEREO.value,
    "antistereo": SentencePair.Direction.ANTISTEREO.value,
    "anti_stereo": SentencePair.Direction.ANTISTEREO.value,
}
_POLARITIES = {choice.value for choice in StereotypeConcept.Polarity}


class IndiBiasReader(Reader):
    format = "indibias"

    def read_table(self, table: Table, result: ParseResult) -> None:
        if "identity_term" in table.headers or "identity" in table.headers:
            self._read_tuples(table, result)
        else:
            self._read_pairs(table, result)

    # --- sentence pairs ------------------------------------------------------------------

    def _read_pairs(self, table: Table, result: ParseResult) -> None:
        apply_aliases(table, PAIR_ALIASES)
        problems = list(missing_columns(table, PAIR_REQUIRED))
        hindi = [key for key in HINDI if key in table.headers]
        if len(hindi) == 1:
            missing = next(key for key in HINDI if key not in hindi)
            problems.append(
                result_problem(table, 1, missing, f"{hindi[0]!r} is given without {missing!r}")
            )
        if problems:
            result.problems.extend(problems)
            return
        for row in table.rows:
            self._read_pair(table, row, result, with_hindi=bool(hindi))

    def _read_pair(self, table: Table, row: Row, result: ParseResult, *, with_hindi: bool) -> None:
        before = len(result.problems)
        for key in PAIR_REQUIRED:
            if not row.get(key):
                result.problem(table.file, row.line, table.label(key), "is empty")
        direction = _DIRECTIONS.get(re.sub(r"[\s\-]", "_", row.get("stereo_antistereo").lower()))
        if row.get("stereo_antistereo") and direction is None:
            result.problem(
                table.file,
                row.line,
                table.label("stereo_antistereo"),
                f"expected stereo or antistereo, got {row.get('stereo_antistereo')!r}",
            )
        sentences = {"en": (row.get("modified_eng_sent_more"), row.get("modified_eng_sent_less"))}
        if with_hindi:
            more, less = row.get(HINDI[0]), row.get(HINDI[1])
            if more and less:
                sentences["hi"] = (more, less)
            elif more or less:
                empty = HINDI[0] if not more else HINDI[1]
                result.problem(table.file, row.line, table.label(empty), "is empty")
        if len(row.get("index")) > 100:
            result.problem(table.file, row.line, table.label("index"), "is too long")
        if len(result.problems) > before or direction is None:
            return
        result.pairs.append(
            PairRecord(
                file=table.file,
                line=row.line,
                external_id=row.get("index"),
                category=row.get("bias_type"),
                direction=direction,
                sentences=sentences,
                id_field=table.label("index"),
            )
        )

    # --- tuples ----------------------------------------------------------------------------

    def _read_tuples(self, table: Table, result: ParseResult) -> None:
        apply_aliases(table, TUPLE_ALIASES)
        vote_columns = [key for key in table.headers if _VOTE_COLUMN_RE.match(key)]
        problems = list(missing_columns(table, TUPLE_REQUIRED))
        if "votes" not in table.headers and not vote_columns:
            problems.append(
                result_problem(
                    table, 1, "votes", "required column 'votes' (or annotator_1, ...) is missing"
                )
            )
        if problems:
            result.problems.extend(problems)
            return
        for row in table.rows:
            self._read_tuple(table, row, result, vote_columns)

    def _read_tuple(
        self, table: Table, row: Row, result: ParseResult, vote_columns: list[str]
    ) -> None:
        before = len(result.problems)
        for key in TUPLE_REQUIRED:
            if not row.get(key):
                result.problem(table.file, row.line, table.label(key), "is empty")
        for key in ("identity_term", "attribute"):
            if len(row.get(key)) > 200:
                result.problem(table.file, row.line, table.label(key), "is over 200 characters")
        polarity = row.get("polarity").lower()
        if polarity and polarity not in _POLARITIES:
            result.problem(
                table.file,
                row.line,
                table.label("polarity"),
                f"expected positive, negative or neutral, got {row.get('polarity')!r}",
            )
        votes = self._votes(table, row, result, vote_columns)
        if len(result.problems) > before:
            return
        result.tuples.append(
            TupleRecord(
                file=table.file,
                line=row.line,
                category=row.get("category"),
                language=row.get("language") or "en",
                identity_term=row.get("identity_term"),
                attribute=row.get("attribute"),
                polarity=polarity,
                votes=votes,
            )
        )

    @staticmethod
    def _votes(table: Table, row: Row, result: ParseResult, vote_columns: list[str]) -> list[int]:
        if "votes" in table.headers:
            cells = [("votes", value) for value in parse_group_list(row.get("votes"))]
        else:
            cells = [(key, row.get(key)) for key in vote_columns if row.get(key)]
        if not cells:
            key = "votes" if "votes" in table.headers else vote_columns[0]
            result.problem(table.file, row.line, table.label(key), "no votes are given")
            return []
        votes = []
        for key, value in cells:
            try:
                votes.append(parse_int(value, low=0, high=1))
            except ValueError as error:
                result.problem(
                    table.file, row.line, table.label(key), f"vote out of range: {error}"
                )
        return votes


def result_problem(table: Table, line: int, key: str, message: str) -> ImportProblem:
    return ImportProblem(table.file, line, table.label(key), message)
