"""A template's version history with what changed from one version to the next: a readable
word-level diff (difflib) of each text field, shown on the template page and the adjudication
page (issue 18, 2.7)."""

from __future__ import annotations

import difflib
import re
from typing import Any

from .models import Template, TemplateVersion

# Text fields compared between versions, with the labels the pages use.
DIFF_FIELDS = {
    "ambiguous_context": "Ambiguous context",
    "disambiguating_context": "Disambiguating context",
    "question_negative": "Negative question",
    "question_non_negative": "Non-negative question",
    "answer_negative": "Negative answer",
    "answer_non_negative": "Non-negative answer",
    "placeholders": "Placeholders",
    "notes": "Notes",
}

_TOKENS = re.compile(r"\S+\s*|\s+")


def words_diff(before: str, after: str) -> list[tuple[str, str]]:
    """(op, text) runs with op "same", "del" or "ins"; each word keeps the space after it, so
    joining the "same" and "del" runs gives `before` back, "same" and "ins" gives `after`."""
    a, b = _TOKENS.findall(before), _TOKENS.findall(after)
    parts: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            parts.append(("same", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            parts.append(("del", "".join(a[i1:i2])))
        if j2 > j1:
            parts.append(("ins", "".join(b[j1:j2])))
    return parts


def _text(version: TemplateVersion, name: str) -> str:
    value = getattr(version, name)
    if name == "placeholders":
        return "; ".join(f"{key} = {', '.join(values)}" for key, values in sorted(value.items()))
    return str(value or "")


def version_changes(
    version: TemplateVersion, previous: TemplateVersion | None
) -> list[dict[str, Any]]:
    """The fields that differ from the previous version, each with its word-level diff."""
    if previous is None:
        return []
    changes = []
    for name, label in DIFF_FIELDS.items():
        before, after = _text(previous, name), _text(version, name)
        if before != after:
            changes.append({"field": label, "parts": words_diff(before, after)})
    return changes


def template_version_history(*, template: Template) -> list[dict[str, Any]]:
    """Every version, newest first, with its changes from the one before it."""
    versions = list(template.versions.select_related("created_by").order_by("number"))
    rows = [
        {"version": version, "changes": version_changes(version, previous)}
        for previous, version in zip([None, *versions[:-1]], versions, strict=True)
    ]
    return rows[::-1]
