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

from .models import Instance

# Column order of a row tuple; JSON columns are passed already encoded (str).
INSTANCE_COLUMNS = (
    "dataset_id",
    "template_version_id",
    "category_id",
    "language",
    "example_id",
    "question_index",
    "combination",
    "name_order",
    "context_condition",
    "question_polarity",
    "pairing",
    "proper_noun",
    "placeholder_values",
    "context",
    "question",
    "ans0",
    "ans1",
    "ans2",
    "option_roles",
    "answer_info",
    "label",
    "source_instance_id",
    "retired_at",
    "created_at",
)
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
        json.dumps(values[column], ensure_ascii=False)
        if column in _JSON_COLUMNS and values[column] is not None
        else values[column]
        for column in columns
    )


def instances_insert(
    rows: Iterable[tuple], *, columns: Sequence[str] = INSTANCE_COLUMNS, batch_size: int = 5000
) -> int:
    """Insert rows (tuples in `columns` order; columns left out get NULL). Must run inside a
    transaction if the caller wants all-or-nothing. Returns the number of rows written."""
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
        with raw.copy(statement) as copy:
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
