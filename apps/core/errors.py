"""Domain errors. Services raise these; the API and the commands turn them into clear messages."""

from __future__ import annotations

from dataclasses import dataclass


class KasautiError(Exception):
    """A request that cannot be carried out; the message says why, in the user's terms."""

    status_code = 400


class NotReleasedError(KasautiError):
    status_code = 409


class ConflictError(KasautiError):
    status_code = 409


class BrokerUnavailable(KasautiError):
    """The task broker could not be reached: the job was failed with this reason, nothing is
    queued (and nothing left behind); the request can be made again once the broker is up."""

    status_code = 503

    def __init__(self, message: str, *, job_id: int | None = None) -> None:
        self.job_id = job_id
        super().__init__(message)


@dataclass(frozen=True)
class ImportProblem:
    file: str
    line: int | None
    field: str
    message: str
    # Set when a finding was turned into a rejection by a strict import (the finding's kind).
    kind: str = ""

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        kind = f" [{self.kind}]" if self.kind else ""
        return f"{where}: {self.field}:{kind} {self.message}"

    def as_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "field": self.field,
            "message": self.message,
            "kind": self.kind,
        }


class ImportRejected(KasautiError):
    """The whole import was refused; `problems` lists every problem found, nothing was written."""

    def __init__(self, problems: list[ImportProblem]) -> None:
        self.problems = problems
        super().__init__(
            f"import rejected, nothing was written: {len(problems)} problem(s)\n"
            + "\n".join(f"  {p}" for p in problems)
        )
