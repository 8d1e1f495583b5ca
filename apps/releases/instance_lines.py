"""A release's instances serialised by PostgreSQL: one COPY streams their JSONL lines, in
release order, while the same statement freezes them as the release's membership.

The row-dict path (apps.releases.selectors.release_instance_rows, used on SQLite and for
published datasets) and this one write byte-identical files (tests/releases/test_fast_path.py).
"""

from __future__ import annotations

import contextlib
import queue
import struct
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
from django.db import connection, models
from django.db.models import QuerySet

from apps.catalog.instance_hash import instance_text_hash_sql
from apps.catalog.models import Instance

from . import line_batches
from .line_batches import LineBatch
from .models import FileKind, Release, ReleaseInstance
from .schemas import PROVENANCE_KEYS, SCHEMAS
from .selectors import ANSWER_KEYS, TRANSLATION_REVIEW_KEYS

# Release creation spends its time turning rows into text. On PostgreSQL the database does it:
# one COPY streams the instances' JSONL lines, byte for byte what JsonlWriter makes of
# release_instance_rows (tests/releases/test_fast_path.py compares them on hostile text). The
# text is built with to_json (the same escapes as Python's json with ensure_ascii=False) and
# string concatenation. CSV and Parquet are then derived from those lines by Arrow
# (apps.releases.line_batches.LineBatch).
#
# The shape of the query is what makes it fast whatever the planner knows (a release is made
# right after a bulk instantiation, when the statistics are stale, and its membership rows
# are always new):
# * only narrow rows (sort key and id) are sorted; each line is built after the sort, so the
#   database never sorts (or spills to disk) the 800-byte lines, and the first lines leave
#   while it is still building the rest: Python writes them meanwhile;
# * the sorted ids are cut into groups of GROUP_LINES, and each group travels as one COPY
#   row (its lines joined) instead of one message per line: a client pays some
#   microseconds per message;
# * the per-template-version part of additional_metadata and the category names are read
#   once (two small jsonb objects, InitPlans), not joined per row;
# * each group also carries the byte lengths of its lines and of their nested values
#   (answer_info, additional_metadata, provenance), which CSV needs as JSON text: Python
#   slices them out instead of searching for them;
# * provenance's text hash (sha256 over the texts, apps.catalog.instance_hash) is computed
#   once per row, in the same pass that builds the line from the row it has already read.

# Lines per COPY row (group); release_instance_line_batches takes whole groups.
GROUP_LINES = 500
# PostgreSQL keeps up to 8 kB of a COPY's output in its send buffer and flushes the rest when
# the statement ends, which is after the membership insert (see release_instance_lines_query):
# a last row of padding (NULL lengths) pushes the last lines out first, so that Python writes
# them while the database inserts.
_PADDING_BYTES = 16384


def _sql_json(expression: str) -> str:
    return f"COALESCE(to_json({expression})::text, 'null')"


def _sql_members(pairs: list[tuple[str, str]]) -> str:
    """'"key": value, ...' as json.dumps separates them; each value already is JSON text."""
    return " || ', ' || ".join(f"'\"{key}\": ' || {value}" for key, value in pairs)


_METADATA_PREFIX_SQL = "'{' || " + _sql_members(
    [
        # A missing subcategory is empty (BBQ's own files write the string "None"; a string
        # "None" would read as a subcategory called None). BBQ's "None" version is kept.
        ("subcategory", _sql_json("v.subcategory")),
        ("stereotyped_groups", "COALESCE(v.stereotyped_groups::text, 'null')"),
        ("version", _sql_json("COALESCE(NULLIF(t.variant, ''), 'None')")),
        ("source", _sql_json("v.source")),
        ("template_id", _sql_json("t.external_id")),
        ("review_status", _sql_json("v.status")),
    ]
)
# InitPlans (evaluated once per query): the JSON text of the template part of
# additional_metadata per template version of the release's dataset (the query's last
# parameter), and of each category name.
_VERSION_PREFIXES_SQL = f"""(
    SELECT jsonb_object_agg(v.id, {_METADATA_PREFIX_SQL})
    FROM catalog_templateversion v JOIN catalog_template t ON t.id = v.template_id
    WHERE t.dataset_id = %s
)"""  # noqa: S608 (fixed expressions)
_CATEGORY_NAMES_SQL = (
    "(SELECT jsonb_object_agg(c.id, to_json(c.name)::text) FROM catalog_category c)"
)

# A line is head || answer_info || ', "additional_metadata": ' || metadata || tail
# || ', "provenance": ' || provenance || '}\n', keys in SCHEMAS["instances"] order. The pieces
# are kept apart so that their lengths can be sent. The keys before "category" and between
# "additional_metadata" and "provenance" are instance columns as they are.
_KEYS = SCHEMAS["instances"].names
_HEAD_COLUMNS = _KEYS[: _KEYS.index("category")]
_TAIL_COLUMNS = _KEYS[_KEYS.index("additional_metadata") + 1 : _KEYS.index("provenance")]
if _KEYS[-1] != "provenance":
    raise ValueError("instance lines end with the provenance column")


def _sql_column(name: str) -> str:
    """The JSON text of the instance column `name`: an integer's digits, else to_json."""
    field = Instance._meta.get_field(name)
    if isinstance(field, models.IntegerField):
        return f"i.{field.column}::text"
    return _sql_json(f"i.{field.column}")


_HEAD_SQL = (
    "'{' || "
    + _sql_members(
        [
            *[(column, _sql_column(column)) for column in _HEAD_COLUMNS],
            ("category", f"({_CATEGORY_NAMES_SQL} ->> i.category_id::text)"),
        ]
    )
    + " || ', \"answer_info\": '"
)
# BBQ's answer_info, rebuilt in option order.
_ANSWER_INFO_SQL = (
    "'{' || "
    + _sql_members(
        [(key, f"COALESCE((i.answer_info -> '{key}')::text, 'null')") for key in ANSWER_KEYS]
    )
    + " || '}'"
)
METADATA_KEY = ', "additional_metadata": '
_METADATA_SQL = (
    f"({_VERSION_PREFIXES_SQL} ->> i.template_version_id::text) || ', ' || "
    + _sql_members(
        [
            ("pairing", _sql_json("i.pairing")),
            ("proper_noun", "CASE WHEN i.proper_noun THEN 'true' ELSE 'false' END"),
            (
                "translation_review",
                "CASE WHEN i.source_instance_id IS NULL THEN 'null' ELSE jsonb_build_object("
                + ", ".join(f"'{key}', i.review -> '{key}'" for key in TRANSLATION_REVIEW_KEYS)
                + ")::text END",
            ),
        ]
    )
    + " || '}'"
)
_TAIL_SQL = "', ' || " + _sql_members([(column, _sql_column(column)) for column in _TAIL_COLUMNS])
PROVENANCE_KEY = ', "provenance": '
_LINE_END = b"}\n"  # after the provenance value, in the SQL below
# The ids as digits (or null) and the hash as a JSON string (16 hex digits: nothing to escape);
# the schema's member order.
_PROVENANCE_MEMBERS = {
    "instance_id": "i.id::text",
    "template_version_id": "COALESCE(i.template_version_id::text, 'null')",
    "source_instance_id": "COALESCE(i.source_instance_id::text, 'null')",
    "text_sha256": "'\"' || " + instance_text_hash_sql("i") + " || '\"'",
}
if tuple(_PROVENANCE_MEMBERS) != PROVENANCE_KEYS:
    raise ValueError(f"provenance members {list(_PROVENANCE_MEMBERS)} != {PROVENANCE_KEYS}")
_PROVENANCE_SQL = "'{' || " + _sql_members(list(_PROVENANCE_MEMBERS.items())) + " || '}'"


def release_instance_lines_query(
    *, release: Release, members: QuerySet[Instance] | None = None
) -> tuple[str, list[Any]]:
    """(SQL, params): the release's instances as JSONL, one row per group of GROUP_LINES
    lines in release order, (the lines, newline-terminated, as one text; an int[] of
    [position in the group, line, head, answer_info, additional_metadata, provenance] byte
    lengths per line). An instance without a template version (imported published files,
    which take the published path) comes out as an empty line.

    The instances are the release's membership, or `members` (the live instances the release
    freezes), which the same statement then inserts as its membership: one snapshot for both,
    one read of the live rows, and the insert runs at the end of the statement, while the
    last lines are still being written."""
    if members is None:
        ordered = f"""
            SELECT array_agg(i.id ORDER BY c.name, i.language, i.example_id, i.id) AS ids
            FROM {ReleaseInstance._meta.db_table} m
            JOIN catalog_instance i ON i.id = m.instance_id
            JOIN catalog_category c ON c.id = i.category_id
            WHERE m.release_id = %s"""  # noqa: S608 (fixed SQL)
        params: list[Any] = [release.pk]
        insert = ""
    else:
        live, params = (
            members.values_list("id", "category__name", "language", "example_id")
            .order_by()
            .query.sql_with_params()
        )
        ordered = f"""
            SELECT array_agg(s.id ORDER BY s.name, s.language, s.example_id, s.id) AS ids
            FROM ({live}) s (id, name, language, example_id)"""  # noqa: S608 (Django's SQL)
        # In instance id order: the membership's indexes take it sequentially.
        insert = f""",
        frozen AS (
            INSERT INTO {ReleaseInstance._meta.db_table} (release_id, instance_id)
            SELECT %s, id FROM unnest((SELECT ids FROM ordered)) id ORDER BY id
        )"""  # noqa: S608 (fixed SQL)
        params = [*params, release.pk]
    statement = f"""
        WITH ordered AS MATERIALIZED ({ordered}
        ){insert}
        SELECT chunk.lines, chunk.lengths
        FROM (
            -- One group more than there are: it sends the padding row (_PADDING_BYTES).
            SELECT g FROM generate_series(
                0, (cardinality((SELECT ids FROM ordered)) - 1) / {GROUP_LINES} + 1
            ) g
            ORDER BY g  -- sorted here, so that ORDER BY below sorts nothing
        ) grp
        CROSS JOIN LATERAL (
            -- In the order of the group's ids (positions sent along: the reader checks).
            SELECT COALESCE(
                       string_agg(COALESCE(p.line, E'\\n'), '' ORDER BY u.position),
                       repeat(' ', {_PADDING_BYTES})
                   ) AS lines,
                   array_agg(ARRAY[
                       u.position::int, COALESCE(octet_length(p.line), 1),
                       octet_length(p.head), COALESCE(octet_length(p.answer_info), 0),
                       COALESCE(octet_length(p.metadata), 0),
                       COALESCE(octet_length(p.provenance), 0)
                   ] ORDER BY u.position) AS lengths
            FROM unnest(
                (SELECT ids FROM ordered)[grp.g * {GROUP_LINES} + 1 : (grp.g + 1) * {GROUP_LINES}]
            ) WITH ORDINALITY u(id, position)
            JOIN catalog_instance i ON i.id = u.id
            CROSS JOIN LATERAL (
                SELECT pieces.*,
                       pieces.head || pieces.answer_info || '{METADATA_KEY}'
                       || pieces.metadata || pieces.tail || '{PROVENANCE_KEY}'
                       || pieces.provenance || E'}}\\n' AS line
                FROM (
                    SELECT {_HEAD_SQL} AS head, {_ANSWER_INFO_SQL} AS answer_info,
                           {_METADATA_SQL} AS metadata, {_TAIL_SQL} AS tail,
                           {_PROVENANCE_SQL} AS provenance
                    OFFSET 0  -- each piece computed once, not once per use
                ) pieces
            ) p
        ) chunk
        ORDER BY grp.g
    """  # noqa: S608 (fixed column expressions, no user input)
    return statement, [*params, release.dataset_id]


def release_instance_line_batches(
    *,
    release: Release,
    members: QuerySet[Instance] | None = None,
    lines_per_batch: int | None = None,
) -> Iterator[LineBatch]:
    """The release's instances serialised by PostgreSQL (one COPY, streamed), in LineBatches
    of lines_per_batch lines (the last one shorter); with `members`, the same statement
    inserts them as the release's membership (release_instance_lines_query). Must run inside
    a transaction (release_create's). A thread reads the stream, so that the database keeps
    sending while the caller writes the previous batch."""
    lines_per_batch = lines_per_batch or line_batches.LINES_PER_BATCH
    if lines_per_batch % GROUP_LINES:
        raise ValueError(f"lines_per_batch must be a multiple of {GROUP_LINES}")
    query, params = release_instance_lines_query(release=release, members=members)
    with connection.cursor() as cursor:
        encoding = cursor.connection.info.parameter_status("server_encoding")
        if encoding != "UTF8":  # binary COPY hands over the server's bytes as they are
            raise ValueError(f"the database encoding is {encoding}, releases need UTF8")
        # JIT compiling this many expressions costs seconds and wins nothing back; the one
        # sort (of ids) fits in memory.
        cursor.execute("SET LOCAL jit = off")
        cursor.execute("SET LOCAL work_mem = '64MB'")
        statement = f"COPY ({query}) TO STDOUT (FORMAT binary)"
        yield from _threaded(_line_batches(cursor.cursor, statement, params, lines_per_batch))


# Binary COPY framing (PostgreSQL docs, "COPY: Binary Format"): a 19-byte header before the
# first row, then per row a field count (int16) and per field a length (int32) and its bytes;
# -1 (int16) ends the data. An int4[] field is an array header (ndim, has-nulls, element type,
# then size and lower bound per dimension) followed by (length, value) per element.
_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00"
_COPY_HEADER_SIZE = 19  # the signature, flags (int32) and header extension length (int32)
_COPY_TRAILER = b"\xff\xff"
_ROW = struct.Struct("!hi")
_INT4 = struct.Struct("!i")
_LENGTHS_HEADER = struct.Struct("!iiiiiii")
# Per line: its position in the group and the byte lengths release_instance_lines_query sends.
_LENGTHS_WIDTH = 6
_INT4_OID = 23


def _line_batches(cursor, statement: str, params: list, lines_per_batch: int):
    """LineBatches of lines_per_batch lines from the grouped COPY (runs in the reader thread)."""
    parts: list[memoryview] = []
    lengths: list[np.ndarray] = []
    pending = 0
    padded = False
    with cursor.copy(statement, params) as copy:
        for number, message in enumerate(copy):
            view = memoryview(message)
            if number == 0:
                if bytes(view[: len(_COPY_HEADER)]) != _COPY_HEADER:
                    raise ValueError("unexpected COPY header")
                view = view[_COPY_HEADER_SIZE:]
            if len(view) == len(_COPY_TRAILER) and bytes(view) == _COPY_TRAILER:
                continue  # the end of the data; the copy itself ends after it
            fields, size = _ROW.unpack_from(view)
            lines = view[_ROW.size : _ROW.size + size]
            (array_size,) = _INT4.unpack_from(view, _ROW.size + size)
            array = view[_ROW.size + size + _INT4.size :]
            if padded or fields != 2 or size < 0:
                raise ValueError("unexpected COPY row")
            if array_size == -1:  # the padding row, last
                padded = True
                continue
            if array_size != len(array):
                raise ValueError("unexpected COPY row")
            ndim, nulls, oid, rows, _, width, _ = _LENGTHS_HEADER.unpack_from(array)
            if (ndim, nulls, oid, width) != (2, 0, _INT4_OID, _LENGTHS_WIDTH):
                raise ValueError("unexpected line lengths in the COPY row")
            # (length, value) pairs, big-endian: keep the values.
            values = np.frombuffer(array, dtype=">i4", offset=_LENGTHS_HEADER.size)[1::2]
            values = values.reshape(rows, _LENGTHS_WIDTH)
            if np.any(values[:, 0] != np.arange(1, rows + 1)):
                raise ValueError("the lines of a COPY row are not in release order")
            parts.append(lines)
            lengths.append(values[:, 1:])
            pending += rows
            if pending >= lines_per_batch:  # groups divide batches: pending == lines_per_batch
                yield _instance_batch(b"".join(parts), np.concatenate(lengths))
                parts, lengths, pending = [], [], 0
    if pending:
        yield _instance_batch(b"".join(parts), np.concatenate(lengths))


def _instance_batch(data: bytes, lengths: np.ndarray) -> LineBatch:
    """A LineBatch of instance lines from their byte lengths: [line, head, answer_info,
    additional_metadata, provenance] per line (see release_instance_lines_query)."""
    line, head, answer_info, metadata, provenance = lengths.astype(np.int64).T
    if np.any(line == 1):
        raise ValueError(
            "an instance of the release has no template version; only instances generated "
            "from templates are released this way"
        )
    starts = np.cumsum(line) - line
    info_start = starts + head
    metadata_start = info_start + answer_info + len(METADATA_KEY.encode())
    # provenance is the last value, right before the line's end.
    provenance_stop = starts + line - len(_LINE_END)
    return LineBatch(
        data,
        kind=FileKind.INSTANCES,
        line_ends=starts + line,
        spans={
            "answer_info": (info_start, info_start + answer_info),
            "additional_metadata": (metadata_start, metadata_start + metadata),
            "provenance": (provenance_stop - provenance, provenance_stop),
        },
    )


def _threaded(items: Iterator[LineBatch], depth: int = 2) -> Iterator[LineBatch]:
    """Run a generator in a thread, `depth` items ahead of the consumer. The generator holds
    the caller's connection: this does not return (even on error) before the thread is done
    with it."""
    handed: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    done = object()

    def run() -> None:
        try:
            for item in items:
                handed.put(item)
                if stop.is_set():
                    return
            handed.put(done)
        except BaseException as error:  # handed to the consumer, raised there
            handed.put(error)

    reader = threading.Thread(target=run, name="release-copy", daemon=True)
    reader.start()
    try:
        while (item := handed.get()) is not done:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        while reader.is_alive():
            with contextlib.suppress(queue.Empty):  # a reader blocked on a full queue finishes
                handed.get(timeout=0.1)
        reader.join()
