"""What readers produce: plain records, validated but not yet written, plus the problems."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from apps.catalog.models import Dataset, Finding
from apps.core.errors import ImportProblem


@dataclass
class FindingRecord:
    """A defect in published data that the import keeps (see catalog.models.Finding).
    `kind` is a stable slug, e.g. "unfilled-placeholder", "duplicate-id", "parse-repair"."""

    file: str
    line: int | None
    field: str
    kind: str
    message: str
    original: str = ""

    def as_finding(self, *, dataset: Dataset, **target: Any) -> Finding:
        """The catalog Finding of this record (cut to its columns' lengths), attached to what
        `target` names (template_version=, sentence_pair= or context_sentence=; none: the
        dataset alone)."""
        return Finding(
            dataset=dataset,
            file=self.file[-300:],
            line=self.line,
            field=self.field[:100],
            kind=self.kind[:50],
            message=self.message,
            original=self.original,
            **target,
        )


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
    findings: list[FindingRecord] = field(default_factory=list)
    # The source templates this one adapts, as the file names them: (source category,
    # source template id), e.g. EsBBQ's ("GenderIdentity", "26") from bbq_category and
    # bbq_template_id. `import_benchmark --adapted-from` links them to the source dataset's
    # templates; `source_columns` are the columns they come from, for findings.
    sources: list[tuple[str, str]] = field(default_factory=list)
    source_columns: tuple[str, str] = ("", "")


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
    findings: list[FindingRecord] = field(default_factory=list)


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
    # Annotator scores per sentence (aligned with `sentences`): 1..5, None when missing.
    scores: list[list[int | None]] = field(default_factory=list)
    # (sentence position, finding): findings about one sentence of the set.
    findings: list[tuple[int, FindingRecord]] = field(default_factory=list)


@dataclass
class ParseResult:
    templates: list[TemplateRecord] = field(default_factory=list)
    pairs: list[PairRecord] = field(default_factory=list)
    tuples: list[TupleRecord] = field(default_factory=list)
    context_sets: list[ContextSetRecord] = field(default_factory=list)
    problems: list[ImportProblem] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "file:line: why" for rows left out
    # Findings about no single record (e.g. a file that is not a template sheet).
    findings: list[FindingRecord] = field(default_factory=list)

    def problem(self, file: str, line: int | None, field_name: str, message: str) -> None:
        self.problems.append(ImportProblem(file, line, field_name, message))

    def finding(
        self,
        file: str,
        line: int | None,
        field_name: str,
        kind: str,
        message: str,
        original: str = "",
    ) -> FindingRecord:
        """A file-level finding; record-level ones go on the record's own `findings`."""
        record = FindingRecord(file, line, field_name, kind, message, original)
        self.findings.append(record)
        return record
