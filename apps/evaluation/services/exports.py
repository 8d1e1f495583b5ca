"""What leaves Kasauti for other tools: a release as an lm-evaluation-harness task."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from apps.releases.models import Release

from ..formats.lm_eval import ExportError
from ..models import PromptTemplate
from .metrics import ROLE

# Kasauti template fields -> the harness's Jinja fields of formats/lm_eval.py's docs.
_JINJA = {"ctx": "context", "qn": "question", "a": "ans0", "b": "ans1", "c": "ans2"}


def lm_eval_template(*, template: PromptTemplate) -> str:
    """The template's text in the harness's Jinja syntax ({ctx} -> {{context}}, ...)."""
    if template.shots:
        raise ExportError(
            f"prompt template {template.name!r} is {template.shots}-shot; the harness task "
            "takes a zero-shot template (use --num_fewshot there for shots)"
        )
    text = template.text
    for field, name in _JINJA.items():
        text = text.replace("{" + field + "}", "{{" + name + "}}")
    return text


def lm_eval_instances(*, release: Release) -> Iterator[dict[str, Any]]:
    """The release's instances as formats/lm_eval.py takes them, in id order."""
    rows = (
        release.dataset.instances.filter(memberships__release=release)
        .order_by("id")
        .values(
            "source_id",
            "example_id",
            "context",
            "question",
            "ans0",
            "ans1",
            "ans2",
            "label",
            "category__name",
            "language",
            "context_condition",
            "question_polarity",
            "option_roles",
        )
    )
    for row in rows.iterator(chunk_size=2000):
        roles = [ROLE.get(role, role) for role in row["option_roles"] or []]
        yield {
            "id": row["source_id"] or str(row["example_id"]),
            "context": row["context"],
            "question": row["question"],
            "ans0": row["ans0"],
            "ans1": row["ans1"],
            "ans2": row["ans2"],
            "label": row["label"],
            "category": row["category__name"],
            "language": row["language"],
            "context_condition": row["context_condition"],
            "question_polarity": row["question_polarity"],
            "roles": roles if sorted(roles) == ["non_target", "target", "unknown"] else None,
        }
