"""Fast insertion of Instance rows.

Instances are the only table that grows to hundreds of thousands of rows per dataset
(BharatBBQ: 49k per language, 392k in eight). On PostgreSQL they are written with COPY through
psycopg 3, several times faster than INSERTs; other databases (the embedded SQLite default)
use bulk_create.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection

from . import instantiation
from .models import Instance

# The one definition of an Instance row's columns: every column of the model but its id, in
# model order (JSON columns are passed already encoded, as str). The other column lists derive
# from it, or are subsets / reorderings checked by instances_insert: the generator's
# (apps.catalog.services.ORIGINAL_INSTANCE_COLUMNS, ordered for speed), translation's
# (INSTANCE_TEXT_COLUMNS, the texts a translated copy replaces).
INSTANCE_ALL_COLUMNS: tuple[str, ...] = tuple(
    field.column for field in Instance._meta.concrete_fields if not field.primary_key
)
# Only an instance imported from a published file sets these (the rest take the defaults).
PUBLISHED_ONLY_COLUMNS = ("noun_form", "source_id", "additional_metadata")
# Only a translation sets its review facts (written by the translation app); original rows
# leave the column to its database default ({}).
TRANSLATION_ONLY_COLUMNS = ("review",)
# The default row layout (positional tuples): all but the published- and translation-only.
INSTANCE_COLUMNS = tuple(
    c
    for c in INSTANCE_ALL_COLUMNS
    if c not in PUBLISHED_ONLY_COLUMNS and c not in TRANSLATION_ONLY_COLUMNS
)
# A translated copy's rows: the default layout plus its review facts.
TRANSLATED_INSTANCE_COLUMNS: tuple[str, ...] = (*INSTANCE_COLUMNS, *TRANSLATION_ONLY_COLUMNS)
# The texts of an instance that are translated (and compared on re-import).
INSTANCE_TEXT_COLUMNS = ("context", "question", "ans0", "ans1", "ans2")
# JSON columns are written as text, exactly as json.dumps(value, ensure_ascii=False) writes
# them, by an encoder built once (the instantiation loop encodes about two values per row).
json_text = instantiation.json_text
_JSON_COLUMNS = {
    "placeholder_values",
    "option_roles",
    "answer_info",
    "additional_metadata",
    "review",
}


def instance_row(values: dict[str, Any], *, columns: Sequence[str] = INSTANCE_COLUMNS) -> tuple:
    """A row tuple for instances_insert from field values (e.g. an Instance `.values()` row
    with some fields replaced); JSON columns are encoded here."""
    return tuple(
        json_text(values[column])
        if column in _JSON_COLUMNS and values[column] is not None
        else values[column]
        for column in columns
    )


def instances_insert(
    rows: Iterable[tuple], *, columns: Sequence[str] = INSTANCE_COLUMNS, batch_size: int = 5000
) -> int:
    """Insert rows (tuples in `columns` order; columns left out get NULL). Must run inside a
    transaction if the caller wants all-or-nothing. Returns the number of rows written."""
    unknown = [column for column in columns if column not in INSTANCE_ALL_COLUMNS]
    if unknown:
        raise ValueError(f"not Instance columns: {', '.join(unknown)}")
    if connection.vendor == "postgresql":
        return _copy_rows(rows, columns)
    return _bulk_create_rows(rows, columns, batch_size=batch_size)


def _copy_rows(rows: Iterable[tuple], columns: Sequence[str]) -> int:
    table = Instance._meta.db_table
    statement = f"COPY {table} ({', '.join(columns)}) FROM STDIN"
    written = 0
    with connection.cursor() as cursor:
        # Django's foreign keys are DEFERRABLE INITIALLY DEFERRED: left alone, PostgreSQL checks
        # every row's template_version at COMMIT, after the stream, on one core. Checked
        # immediately, the checks run while Python is still generating the next rows.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        raw = cursor.cursor  # the psycopg 3 cursor under Django's wrapper
        # A writer thread sends the data (waiting on the socket without the GIL) while this
        # one builds the next rows; psycopg is imported here, as only PostgreSQL comes here.
        from psycopg.copy import QueuedLibpqWriter

        with raw.copy(statement, writer=QueuedLibpqWriter(raw)) as copy:
            for row in rows:
                copy.write_row(row)
                written += 1
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
    return written


def _bulk_create_rows(rows: Iterable[tuple], columns: Sequence[str], *, batch_size: int) -> int:
    json_positions = [i for i, name in enumerate(columns) if name in _JSON_COLUMNS]
    batch: list[Instance] = []
    written = 0
    for row in rows:
        values = list(row)
        for i in json_positions:
            values[i] = json.loads(values[i])
        batch.append(Instance(**dict(zip(columns, values, strict=True))))
        if len(batch) >= batch_size:
            Instance.objects.bulk_create(batch)
            written += len(batch)
            batch = []
    if batch:
        Instance.objects.bulk_create(batch)
        written += len(batch)
    return written
