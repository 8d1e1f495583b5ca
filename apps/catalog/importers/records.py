"""What readers produce: plain records, validated but not yet written, plus the problems."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from apps.core.errors import ImportProblem


@dataclass
class TemplateRecord:
    file: str
    line: int
    external_id: str
    category: str
    question_index: str
    variant: str
    content: dict[str, Any]  # TemplateVersion content fields (services.TEMPLATE_CONTENT_FIELDS)
    id_field: str = "Q_id"  # the column the id comes from, for duplicate reports


@dataclass
class PairRecord:
    file: str
    line: int
    external_id: str
    category: str
    direction: str  # "stereo" | "antistereo"
    # language -> (sent_more, sent_less); the first language is the pair's source side
    sentences: dict[str, tuple[str, str]]
    id_field: str = "index"


@dataclass
class TupleRecord:
    file: str
    line: int
    category: str
    language: str
    identity_term: str
    attribute: str
    polarity: str
    votes: list[int]


@dataclass
class ContextSetRecord:
    file: str
    line: int  # where the set's first sentence is
    external_id: str
    category: str
    language: str
    sentences: list[tuple[str, str]] = field(default_factory=list)  # (kind, text)
    # Annotator scores per sentence (aligned with `sentences`), validated 1..5.
    scores: list[list[int]] = field(default_factory=list)


@dataclass
class ParseResult:
    templates: list[TemplateRecord] = field(default_factory=list)
    pairs: list[PairRecord] = field(default_factory=list)
    tuples: list[TupleRecord] = field(default_factory=list)
    context_sets: list[ContextSetRecord] = field(default_factory=list)
    problems: list[ImportProblem] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "file:line: why" for rows left out

    def problem(self, file: str, line: int | None, field_name: str, message: str) -> None:
        self.problems.append(ImportProblem(file, line, field_name, message))
