"""An instance as the API's JSON, rendered by PostgreSQL (P9).

The instance API's hot path (bench/p9_instances.py: 1,000,000 rows, 8 clients) spent most of
its time turning rows into Python objects and those into JSON. Here the page query renders
each row as JSON text itself, and the API passes the text through. The text is exactly what
InstanceOutput renders (same keys in the same order, same values; the tests compare the two
on every kind of value), only the whitespace inside nested JSON columns may differ.

The object is assembled by concatenation, each value turned into JSON by its type
(to_json() for text, so escaping is PostgreSQL's): a third cheaper for PostgreSQL than
json_build_object over the same values, which looks up each argument's type on every row.
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


def _object(pairs: list[tuple[str, str]]) -> str:
    """SQL concatenating `(key, JSON text SQL)` pairs into one JSON object."""
    parts = [f"'{'{' if i == 0 else ','}\"{key}\":' || {sql}" for i, (key, sql) in enumerate(pairs)]
    return "(" + " || ".join(parts) + " || '}')"


def _columns(model, alias: str, names, *, null: bool = False) -> list[tuple[str, str]]:
    """(name, JSON SQL) of columns of `model` under `alias`; `null` for an outer-joined one."""
    fields = [model._meta.get_field(name) for name in names]
    return [(f.name, _json(f, f'{alias}."{f.column}"', null=null)) for f in fields]


def instance_json_sql() -> str:
    """SQL rendering the current row of the instance table (named by its table, as Django's
    outer query names it) as the API's JSON object, as text."""
    instance, version = Instance._meta, TemplateVersion._meta
    table = instance.db_table
    names = [name for name in INSTANCE_JSON_FIELDS if name not in ("category", "provenance")]
    pairs = dict(_columns(Instance, f'"{table}"', names + ["combination", "name_order"]))
    category_id = f'"{table}"."{instance.get_field("category").column}"'
    pairs["category"] = (
        f'(SELECT to_json(c."name")::text FROM "{Category._meta.db_table}" c '
        f'WHERE c."id" = {category_id})'
    )
    tail = [("combination", pairs["combination"]), ("name_order", pairs["name_order"])]
    found = [
        *_columns(TemplateVersion, "v", ["template"]),
        *_columns(Template, "t", ["external_id"]),
        *_columns(TemplateVersion, "v", ["id", "number", "concept"]),
        *_columns(StereotypeConcept, "k", ["statement"], null=True),  # LEFT JOIN
    ]
    keys = ["template_id", "template_external_id", "template_version_id", "template_version"]
    keys += ["concept_id", "concept"]
    found = [(key, sql) for key, (_, sql) in zip(keys, found, strict=True)]
    version_id = f'"{table}"."{instance.get_field("template_version").column}"'
    # An instance imported from a published file has no template version: nulls.
    pairs["provenance"] = (
        f'COALESCE((SELECT {_object(found + tail)} FROM "{version.db_table}" v '
        f'JOIN "{Template._meta.db_table}" t '
        f'ON t."id" = v."{version.get_field("template").column}" '
        f'LEFT JOIN "{StereotypeConcept._meta.db_table}" k '
        f'ON k."id" = v."{version.get_field("concept").column}" WHERE v."id" = {version_id}), '
        f"{_object([(key, NULL) for key in keys] + tail)})"
    )
    return _object([(name, pairs[name]) for name in INSTANCE_JSON_FIELDS])
