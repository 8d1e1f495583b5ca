"""The columns of each kind of release file: one pyarrow schema per kind, the single
description of its columns. Parquet uses them directly, CSV to know which columns are nested
(JSON-encoded) or integers, JSONL for its key order.

PROVENANCE_KEYS is the one list of the instances' `provenance` members, in file order: the
row-dict paths (selectors, published) and the SQL that serialises lines (instance_lines)
build the column from it."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from apps.catalog.instance_hash import instance_text_hash

Row = dict[str, Any]

# Rows per batch (and per Parquet row group) when release files are written.
BATCH_SIZE = 5000

_STR = pa.string()
_STR_LIST = pa.list_(pa.string())

SCHEMAS: dict[str, pa.Schema] = {
    # BBQ's JSONL layout (key order matters for BBQ tooling), plus `language`.
    "instances": pa.schema(
        [
            ("example_id", pa.int64()),
            ("question_index", _STR),
            ("question_polarity", _STR),
            ("context_condition", _STR),
            ("category", _STR),
            (
                "answer_info",
                pa.struct([("ans0", _STR_LIST), ("ans1", _STR_LIST), ("ans2", _STR_LIST)]),
            ),
            (
                "additional_metadata",
                pa.struct(
                    [
                        ("subcategory", _STR),
                        ("stereotyped_groups", _STR_LIST),
                        ("version", _STR),
                        ("source", _STR),
                        ("template_id", _STR),
                        ("review_status", _STR),
                        ("pairing", _STR),
                        ("proper_noun", pa.bool_()),
                        (
                            "translation_review",
                            pa.struct(
                                [
                                    ("status", _STR),
                                    ("revision", pa.int64()),
                                    ("threshold", pa.float64()),
                                    ("similarity", pa.float64()),
                                    ("embedder_version", _STR),
                                    ("forward_model_version", _STR),
                                    ("backward_model_version", _STR),
                                ]
                            ),
                        ),
                    ]
                ),
            ),
            ("context", _STR),
            ("question", _STR),
            ("ans0", _STR),
            ("ans1", _STR),
            ("ans2", _STR),
            ("label", pa.int64()),
            ("language", _STR),
            # Where the row came from (issue 22), as ids and a hash, not copies of texts: the
            # instance, its template version (null for a published row without one), the
            # instance it was translated from (null for an original) and the hash of its
            # texts and label (apps.catalog.instance_hash). Last, so BBQ's columns keep their
            # places; GET /api/instances/<instance_id>/provenance/ tells the whole chain.
            (
                "provenance",
                pa.struct(
                    [
                        ("instance_id", pa.int64()),
                        ("template_version_id", pa.int64()),
                        ("source_instance_id", pa.int64()),
                        ("text_sha256", _STR),
                    ]
                ),
            ),
        ]
    ),
    "sentence_pairs": pa.schema(
        [
            ("external_id", _STR),
            ("category", _STR),
            ("language", _STR),
            ("sent_more", _STR),
            ("sent_less", _STR),
            ("direction", _STR),
            ("target_group", _STR),
        ]
    ),
    "tuples": pa.schema(
        [
            ("id", pa.int64()),
            ("category", _STR),
            ("language", _STR),
            ("identity_term", _STR),
            ("attribute", _STR),
            ("polarity", _STR),
            ("votes", pa.list_(pa.int64())),
        ]
    ),
    "context_sets": pa.schema(
        [
            ("external_id", _STR),
            ("category", _STR),
            ("language", _STR),
            ("context", _STR),
            ("target_group", _STR),
            ("stereotypes", _STR_LIST),
            ("anti_stereotypes", _STR_LIST),
        ]
    ),
}


PROVENANCE_KEYS: tuple[str, ...] = tuple(
    field.name for field in SCHEMAS["instances"].field("provenance").type
)


def instance_provenance(
    *,
    instance_id: int,
    template_version_id: int | None,
    source_instance_id: int | None,
    context: str,
    question: str,
    ans0: str,
    ans1: str,
    ans2: str,
    label: int,
) -> Row:
    """An instance row's `provenance` value (the row-dict paths; PostgreSQL builds the same
    JSON text in apps.releases.instance_lines)."""
    return {
        "instance_id": instance_id,
        "template_version_id": template_version_id,
        "source_instance_id": source_instance_id,
        "text_sha256": instance_text_hash(
            context=context, question=question, ans0=ans0, ans1=ans1, ans2=ans2, label=label
        ),
    }


def is_nested(field: pa.Field) -> bool:
    """Whether a column holds structs or lists (JSON text in CSV)."""
    return pa.types.is_struct(field.type) or pa.types.is_list(field.type)
