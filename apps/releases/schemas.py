"""The columns of each kind of release file: one pyarrow schema per kind, the single
description of its columns. Parquet uses them directly, CSV to know which columns are nested
(JSON-encoded) or integers, JSONL for its key order."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

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


def is_nested(field: pa.Field) -> bool:
    """Whether a column holds structs or lists (JSON text in CSV)."""
    return pa.types.is_struct(field.type) or pa.types.is_list(field.type)
