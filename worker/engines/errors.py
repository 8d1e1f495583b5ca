"""Errors raised by the model engines.

A configuration problem (weights missing, a directory laid out wrongly, an unknown language
tag) will fail the same way on every retry, so it gets its own exception type: callers such as
the Celery tasks can mark the job failed at once instead of retrying it.
"""

from __future__ import annotations

from pathlib import Path

README_ANCHOR = "README.md#getting-the-model-weights"


class ModelConfigurationError(Exception):
    """The engine cannot run because of how it is configured; retrying will not help."""

    def __init__(self, message: str, *, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        where = f" (path: {self.path})" if self.path is not None else ""
        super().__init__(f"{message}{where}; see {README_ANCHOR}")
