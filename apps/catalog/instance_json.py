"""An instance as the API's JSON, rendered by PostgreSQL (P9).

The instance API's hot path (bench/p9_instances.py: 1,000,000 rows, 8 clients) spent most of
its time turning rows into Python objects and those into JSON. Here the page query renders
each row as JSON text itself, and the API passes the text through. The text is exactly what
InstanceOutput renders (same keys in the same order, same values; the tests compare the two
on every kind of value), only the whitespace inside nested JSON columns may differ.

The object is assembled by concatenation, each value turned into JSON by its type
(to_json() for text, so escaping is PostgreSQL's): a third cheaper for PostgreSQL than
json_build_object over the same values, which looks up each argument's type on every row.

The page's rows (filtered, ordered and cut to a page by Django) are a subquery; the category
and the provenance (template version, template, concept) are joined to it, not looked up by a
correlated sub-plan per row: the rows of a page share a few categories and template versions,
and a Memoize node then looks each up once per page (and builds its provenance JSON once).
"""

from __future__ import annotations

from django.db import models

from .models import Category, Instance, StereotypeConcept, Template, TemplateVersion

# The keys of an instance in the API, in order (InstanceOutput.Meta.fields).
INSTANCE_JSON_FIELDS = (
    "id",
    "example_id",
    "question_index",
    "category",
    "language",
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
    "source_instance",
    "retired_at",
    "provenance",
)


NULL = "'null'"  # SQL for the JSON text null


def _json(field: models.Field, sql: str, *, null: bool = False) -> str:
    """SQL giving the JSON text of a value of `field` held in `sql` ('null' for NULL)."""
    if isinstance(field, models.BooleanField):
        value = f"CASE WHEN {sql} THEN 'true' WHEN NOT {sql} THEN 'false' END"
    elif isinstance(field, models.DateTimeField):
        # DRF's DateTimeField with TIME_ZONE "UTC": isoformat() with "+00:00" written "Z",
        # the fraction only when there are microseconds.
        value = (
            f"'\"' || to_char({sql} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS') || CASE "
            f"WHEN mod(extract(microseconds FROM {sql})::bigint, 1000000) = 0 THEN '' "
            f"ELSE to_char({sql} AT TIME ZONE 'UTC', '.US') END || 'Z\"'"
        )
    elif isinstance(field, models.CharField | models.TextField):
        value = f"to_json({sql})::text"
    elif isinstance(field, models.JSONField | models.IntegerField | models.ForeignKey):
        value = f"{sql}::text"  # jsonb's own text, or digits (ids, counts)
    else:
        raise TypeError(f"no JSON rendering for {field!r}")
    return f"COALESCE({value}, 'null')" if field.null or null else value


def _members(pairs: list[tuple[str, str]], *, first: bool) -> str:
    """SQL concatenating `(key, JSON text SQL)` pairs as members of a JSON object: its start
    `{"a":1,"b":2` when `first`, else `,"a":1,"b":2` (to follow other members)."""
    parts = [
        f"'{'{' if first and i == 0 else ','}\"{key}\":' || {sql}"
        for i, (key, sql) in enumerate(pairs)
    ]
    return " || ".join(parts)


def _object(pairs: list[tuple[str, str]]) -> str:
    """SQL concatenating `(key, JSON text SQL)` pairs into one JSON object."""
    return f"({_members(pairs, first=True)} || '}}')"


def _columns(
    model, alias: str, names, *, null: bool = False, attnames: bool = False
) -> list[tuple[str, str]]:
    """(name, JSON SQL) of columns of `model` under `alias`; `null` for an outer-joined one;
    `attnames` for the page subquery, whose columns values() names by attname."""
    fields = [model._meta.get_field(name) for name in names]
    return [
        (f.name, _json(f, f'{alias}."{f.attname if attnames else f.column}"', null=null))
        for f in fields
    ]


# The instance values a page's JSON is made of: the page subquery selects them (by attname,
# as values() names them: category_id, not category).
PAGE_COLUMNS = tuple(
    Instance._meta.get_field(name).attname
    for name in (
        *(name for name in INSTANCE_JSON_FIELDS if name not in ("category", "provenance")),
        *("combination", "name_order", "category", "template_version"),
    )
)


def _page_sql() -> str:
    """The page query around a page subquery (`{rows}` in the text: the page's instance rows
    with PAGE_COLUMNS), each row as `id, <the API's JSON object as text>`, in `{order}`."""
    instance, version = Instance._meta, TemplateVersion._meta
    names = [name for name in INSTANCE_JSON_FIELDS if name not in ("category", "provenance")]
    pairs = dict(_columns(Instance, "i", [*names, "combination", "name_order"], attnames=True))
    pairs["category"] = _json(Category._meta.get_field("name"), 'c."name"')
    found = [
        *_columns(TemplateVersion, "v", ["template"]),
        *_columns(Template, "t", ["external_id"]),
        *_columns(TemplateVersion, "v", ["id", "number", "concept"]),
        *_columns(StereotypeConcept, "k", ["statement"], null=True),  # LEFT JOIN
    ]
    keys = ["template_id", "template_external_id", "template_version_id", "template_version"]
    keys += ["concept_id", "concept"]
    found = [(key, sql) for key, (_, sql) in zip(keys, found, strict=True)]
    # The provenance: its template version's part is the start of an object, built in the
    # LATERAL subquery below; the instance's combination and name order complete it. An
    # instance imported from a published file has no template version: nulls.
    unknown = _members([(key, NULL) for key in keys], first=True)
    tail = [("combination", pairs["combination"]), ("name_order", pairs["name_order"])]
    pairs["provenance"] = (
        f"(COALESCE(p.provenance, {unknown}) || {_members(tail, first=False)} || '}}')"
    )
    document = _object([(name, pairs[name]) for name in INSTANCE_JSON_FIELDS])
    return (
        f'SELECT i."id", {document} FROM ({{rows}}) i '
        # LEFT JOINs: a row renders as it did with a sub-query per value, whatever it points
        # to (the category has no database constraint).
        f'LEFT JOIN "{Category._meta.db_table}" c '
        f'ON c."id" = i."{instance.get_field("category").attname}" '
        # OFFSET 0 keeps this a subquery (PostgreSQL would flatten it into the join), so that
        # it is memoized whole: one lookup and one JSON text per template version of a page.
        f"LEFT JOIN LATERAL (SELECT ({_members(found, first=True)}) AS provenance "
        f'FROM "{version.db_table}" v JOIN "{Template._meta.db_table}" t '
        f'ON t."id" = v."{version.get_field("template").column}" '
        f'LEFT JOIN "{StereotypeConcept._meta.db_table}" k '
        f'ON k."id" = v."{version.get_field("concept").column}" '
        f'WHERE v."id" = i."{instance.get_field("template_version").attname}" OFFSET 0) p ON true '
        "ORDER BY {order}"
    )


_PAGE_SQL = _page_sql()


def instance_page_sql(rows_sql: str, *, descending: bool = False) -> str:
    """The page query: the instance rows `rows_sql` selects (PAGE_COLUMNS, ordered by id and
    cut to a page, as Django compiles them) as `id, <JSON text>`, in the same order."""
    order = f'i."id" {"DESC" if descending else "ASC"}'
    return _PAGE_SQL.replace("{order}", order, 1).replace("{rows}", rows_sql, 1)
