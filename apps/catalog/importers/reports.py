"""What an import reports, by kind of format: ImportReport for template-kind formats (counts of
templates, pairs, tuples and context sets, and every finding), InstanceImportReport for
published instance files (instances created or unchanged, rows kept verbatim, findings by kind).
The command prints `summary()`; the API and the job return `as_dict()`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Counts:
    created: int = 0
    updated: int = 0  # templates: new versions
    unchanged: int = 0


@dataclass
class ImportReport:
    dataset: str
    format: str
    files: list[str]
    dataset_created: bool = False
    templates: Counts = field(default_factory=Counts)
    pairs: Counts = field(default_factory=Counts)
    tuples: Counts = field(default_factory=Counts)
    context_sets: Counts = field(default_factory=Counts)
    sentences: int = 0  # context sentences written
    by_category: dict[str, int] = field(default_factory=dict)  # rows read per category
    skipped: list[str] = field(default_factory=list)
    strict: bool = False
    seed: int = 0  # the seed of BBQ's name and word draws (bbq only; recorded with each template)
    # Every finding of this import (file, line, field, kind, message, original, concerns),
    # in file order, and how many of each kind; `findings_new` were not recorded before.
    findings: list[dict[str, Any]] = field(default_factory=list)
    findings_by_kind: dict[str, int] = field(default_factory=dict)
    findings_new: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def findings_grouped(self) -> dict[str, list[dict[str, Any]]]:
        """The findings by kind (most frequent kind first), each list in file order."""
        groups: dict[str, list[dict[str, Any]]] = {kind: [] for kind in self.findings_by_kind}
        for finding in self.findings:
            groups[finding["kind"]].append(finding)
        return groups

    def summary(self) -> list[str]:
        """The counts, then the findings by kind with file:line (the command's output)."""
        return self.counts_summary() + self.findings_summary()

    def counts_summary(self) -> list[str]:
        lines = [
            f"dataset {self.dataset!r}{' (created)' if self.dataset_created else ''}, "
            f"format {self.format}, {len(self.files)} file(s)"
        ]
        if self.format == "bbq":
            lines.append(f"seed of the name and word draws: {self.seed}")
        kinds = (
            ("templates", self.templates, "new versions"),
            ("sentence pairs", self.pairs, "updated"),
            ("tuples", self.tuples, "updated"),
            ("context sets", self.context_sets, "updated"),
        )
        for label, counts, updated in kinds:
            if counts.created or counts.updated or counts.unchanged:
                lines.append(
                    f"{label}: {counts.created} created, {counts.updated} {updated}, "
                    f"{counts.unchanged} unchanged"
                )
        if self.sentences:
            lines.append(f"context sentences written: {self.sentences}")
        for name, count in self.by_category.items():
            lines.append(f"  {name}: {count}")
        lines.extend(f"skipped {reason}" for reason in self.skipped)
        return lines

    def findings_summary(self) -> list[str]:
        lines = []
        if self.findings:
            lines.append(f"findings: {len(self.findings)} ({self.findings_new} new), by kind:")
            for kind, items in self.findings_grouped().items():
                lines.append(f"  {kind}: {len(items)}")
                for item in items:
                    where = (
                        item["file"] if item["line"] is None else f"{item['file']}:{item['line']}"
                    )
                    lines.append(f"    {where} {item['field']}: {item['message']}")
        else:
            lines.append("findings: none")
        return lines


@dataclass
class InstanceImportReport:
    dataset: str
    format: str
    files: list[str]
    dataset_created: bool = False
    created: int = 0
    unchanged: int = 0
    by_category: dict[str, int] = field(default_factory=dict)  # rows read per category
    # Rows whose text Kasauti's fields could not reproduce; kept verbatim for the export.
    verbatim: int = 0
    findings: dict[str, int] = field(default_factory=dict)  # new findings by kind

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> list[str]:
        lines = [
            f"dataset {self.dataset!r}{' (created)' if self.dataset_created else ''}, "
            f"format {self.format}, {len(self.files)} file(s)",
            f"instances: {self.created} created, {self.unchanged} unchanged",
        ]
        lines.extend(f"  {name}: {count}" for name, count in self.by_category.items())
        lines.append(f"rows kept verbatim (layout not reproduced from fields): {self.verbatim}")
        lines.extend(f"finding {kind}: {count}" for kind, count in self.findings.items())
        return lines
