"""EsBBQ / CaBBQ sheets other than templates, and the language-suffix rule they all share.

`vocabulary.xlsx`: category, subcategory, name_<l>, f_<l> (feminine form), name_def_ca /
f_def_ca (Catalan forms with their article), information (highSES / lowSES /
not-stereotyped), include_name (FALSE leaves the word out, as generate_instances.py does).
`vocabulary_proper_names.xlsx`: proper_name_<l>, proper_name_def_ca, gender, ethnicity_<l>.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from apps.catalog.importers.records import ParseResult
from apps.catalog.importers.tables import Table

LANGUAGES = ("es", "ca")
VOCABULARY_FIELDS = ("category", "subcategory", "name", "f", "name_def", "f_def", "information")
PROPER_NAME_FIELDS = ("proper_name", "proper_name_def", "gender", "ethnicity")


def classify(table: Table, suffix: str) -> str | None:
    """ "templates", "vocabulary", "proper_names", or None for a sheet of none of these."""
    headers = table.headers
    if ("esbbq_template_id" in headers or "template_id" in headers) and (
        f"ambiguous_context_{suffix}" in headers or "ambiguous_context" in headers
    ):
        return "templates"
    if {"category", f"name_{suffix}", "information"} <= set(headers):
        return "vocabulary"
    if {f"proper_name_{suffix}", "gender", f"ethnicity_{suffix}"} <= set(headers):
        return "proper_names"
    return None


def strip_language(table: Table, suffix: str, aliases: dict[str, str], result: ParseResult) -> None:
    """generate_instances.rename_columns: drop the other language's columns, strip `_<l>`.
    In place; a column given both with and without the suffix is a problem."""
    others = tuple(f"_{language}" for language in LANGUAGES if language != suffix)
    renames: dict[str, str | None] = {}
    for key in list(table.headers):
        if key.endswith(others):
            renames[key] = None
        elif key.endswith(f"_{suffix}"):
            bare = key[: -len(suffix) - 1]
            if bare in table.headers:
                result.problem(
                    table.file,
                    1,
                    table.label(key),
                    f"both {table.label(bare)!r} and {table.label(key)!r} are given",
                )
                renames[key] = None
            else:
                renames[key] = bare
    for key, bare in list(renames.items()):
        if bare is not None and bare in aliases and aliases[bare] not in table.headers:
            renames[key] = aliases[bare]
    for key in table.headers:
        if key not in renames and key in aliases and aliases[key] not in table.headers:
            renames[key] = aliases[key]
    headers = {}
    for key, label in table.headers.items():
        new = renames.get(key, key)
        if new is not None:
            headers[new] = label
    table.headers = headers
    for row in table.rows:
        row.cells = {
            renames.get(key, key): value
            for key, value in row.cells.items()
            if renames.get(key, key) is not None
        }


@dataclass
class VocabularySheets:
    """The vocabulary rows the generator keeps (include_name empty) and the proper names."""

    vocabulary: list[dict[str, str]] = field(default_factory=list)
    proper_names: list[dict[str, str]] = field(default_factory=list)
    given: bool = False

    def read(self, table: Table, kind: str, suffix: str, result: ParseResult) -> None:
        self.given = True
        strip_language(table, suffix, {}, result)
        if kind == "vocabulary":
            for row in table.rows:
                include = row.get("include_name")
                if include:
                    result.skipped.append(
                        f"{table.file}:{row.line}: {row.get('name') or '(no name)'} is left out "
                        f"of the vocabulary (include_name is {include}), as the generator does"
                    )
                    continue
                self.vocabulary.append({name: row.get(name) for name in VOCABULARY_FIELDS})
        else:
            for row in table.rows:
                self.proper_names.append({name: row.get(name) for name in PROPER_NAME_FIELDS})
