"""The reader interface: one small class per format turns parsed tables into records."""

from __future__ import annotations

from typing import ClassVar

from .records import ParseResult
from .tables import Table


class Reader:
    """Reads every table of one import. Problems go to the result; nothing touches the DB."""

    format: ClassVar[str]
    # Template formats take --language; the others know their languages from their columns.
    template_format: ClassVar[bool] = False

    def __init__(self, *, language: str = "en", category: str = "", seed: int = 0) -> None:
        self.language = language
        self.category = category
        # Formats whose generator samples (BBQ) record this seed with every template.
        self.seed = seed

    def read(self, tables: list[Table], result: ParseResult) -> None:
        for table in tables:
            self.read_table(table, result)

    def read_table(self, table: Table, result: ParseResult) -> None:
        raise NotImplementedError
