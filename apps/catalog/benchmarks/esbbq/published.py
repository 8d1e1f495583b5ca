"""EsBBQ's published `<Category>.full.csv` row, cell by cell, as generate_instances.py writes it
(pandas' to_csv): what the reproduction check compares the stored instances with."""

from __future__ import annotations

from typing import Any

from .filling import EsbbqInstance
from .text import is_set, parse_list

# --- the published row -------------------------------------------------------------------------

PUBLISHED_COLUMNS = (
    "instance_id",
    "template_id",
    "version",
    "template_label",
    "flipped",
    "question_polarity",
    "context_condition",
    "category",
    "subcategory",
    "relevant_social_value",
    "stereotyped_groups",
    "answer_info.ans0",
    "answer_info.ans1",
    "answer_info.ans2",
    "stated_gender_info",
    "proper_nouns_only",
    "context",
    "question",
    "ans0",
    "ans1",
    "ans2",
    "question_type",
    "label",
    "source",
)


def template_fields(row: dict[str, str]) -> dict[str, Any]:
    """What every instance of a template row repeats (generate_instances' base dict), with the
    script's defaults for absent columns."""
    return {
        "template_id": row.get("esbbq_template_id"),
        "version": row.get("version", "None"),
        "template_label": row.get("label"),
        "category": row.get("esbbq_category"),
        "subcategory": row.get("subcategory", ""),
        "relevant_social_value": row.get("relevant_social_values"),
        "stereotyped_groups": parse_list(row.get("stereotyped_groups", "")),
        "stated_gender_info": row.get("stated_gender_info", ""),
        "proper_nouns_only": is_set(row.get("proper_nouns_only", "")),
        "source": parse_list(row.get("esbbq_source", "")),
    }


def _csv_cell(value: Any) -> str:
    """pandas.DataFrame.to_csv's rendering of one cell."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple, dict, bool)):
        return repr(value) if not isinstance(value, bool) else str(value)
    return str(value)


def published_row(instance_id: int, template: dict[str, Any], instance: EsbbqInstance) -> list[str]:
    """The instance as one row of the published `<Category>.full.csv`, cell by cell."""
    values: dict[str, Any] = {
        **template,
        "instance_id": instance_id,
        "flipped": instance.flipped,
        "question_polarity": instance.question_polarity,
        "context_condition": instance.context_condition,
        "answer_info.ans0": instance.answer_info["ans0"],
        "answer_info.ans1": instance.answer_info["ans1"],
        "answer_info.ans2": instance.answer_info["ans2"],
        "context": instance.context,
        "question": instance.question,
        "ans0": instance.ans0,
        "ans1": instance.ans1,
        "ans2": instance.ans2,
        "question_type": instance.question_type,
        "label": instance.label,
    }
    return [_csv_cell(values[column]) for column in PUBLISHED_COLUMNS]


# --- the Kasauti generator interface -----------------------------------------------------------
