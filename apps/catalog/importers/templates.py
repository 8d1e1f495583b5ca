"""Shared steps of the BBQ-family readers: texts, placeholder lists, target and validation.

Each reader maps its own columns onto a TemplateDraft; `finish_template` normalises it,
validates it with the same rules the catalog enforces (instantiation.validate_template) and
either records a TemplateRecord or reports every problem with its file, line and column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from apps.catalog import generators, instantiation
from apps.catalog.models import ReviewStatus, TemplateVersion, TransformationType

from .records import ParseResult, TemplateRecord
from .tables import Row, Table
from .values import normalise_text_placeholders, parse_placeholder_lists, unknown_placeholders

NAME_AXES = instantiation.NAME_AXES
STEREOTYPICAL = instantiation.STEREOTYPICAL
ANTI_STEREOTYPICAL = instantiation.ANTI_STEREOTYPICAL

# Limits of the Template / TemplateVersion columns, checked up front so that a long cell is a
# reported problem and not a database error halfway through the write.
_LENGTH_LIMITS = {"external_id": 100, "question_index": 50, "variant": 20}
_CONTENT_LENGTH_LIMITS = {"subcategory": 100, "original_bbq_id": 50}

_TRANSFORMATIONS = {
    **{choice.value.lower(): choice.value for choice in TransformationType},
    **{choice.label.lower(): choice.value for choice in TransformationType},
    "target group modified": TransformationType.TARGET_MODIFIED.value,
}


@dataclass
class TemplateDraft:
    table: Table
    row: Row
    # content field (or "names" / "lexical") -> canonical column key, for problem reports
    columns: dict[str, str]
    external_id: str
    category: str
    question_index: str
    variant: str
    language: str
    texts: dict[str, str]
    placeholders: dict[str, list[str]]
    placeholder_groups: dict[str, list[str]] = field(default_factory=dict)
    target_placeholder: str = "NAME1"
    pairing: str = STEREOTYPICAL
    extra: dict[str, Any] = field(default_factory=dict)  # the remaining content fields
    id_column: str = "q_id"

    def label(self, content_field: str) -> str:
        """The column (as written in the file) that a content field comes from."""
        if content_field.startswith("NAME"):
            content_field = "names"
        elif content_field.startswith("WORD"):
            content_field = "lexical"
        key = self.columns.get(content_field, content_field)
        return self.table.label(key)


def read_texts(row: Row, columns: dict[str, str]) -> dict[str, str]:
    """The six template texts with placeholders normalised; empty answers get defaults."""
    texts = {
        name: normalise_text_placeholders(row.get(columns[name]))
        for name in TemplateVersion.TEXT_FIELDS
    }
    default_answers(texts)
    return texts


def default_answers(texts: dict[str, str]) -> None:
    # An empty answer cell means "the bare NAME": Answer_negative names one NAME, so the other
    # answer is the other NAME; with both empty, BBQ's own convention NAME1 / NAME2 applies.
    negative = instantiation.answer_name(texts["answer_negative"])
    non_negative = instantiation.answer_name(texts["answer_non_negative"])
    if not texts["answer_negative"].strip():
        other = _other(non_negative) if non_negative else "NAME1"
        texts["answer_negative"] = "{{" + other + "}}"
    if not texts["answer_non_negative"].strip():
        other = _other(negative) if negative else "NAME2"
        texts["answer_non_negative"] = "{{" + other + "}}"


def _other(axis: str) -> str:
    return "NAME2" if axis == "NAME1" else "NAME1"


def read_lists(
    table: Table, row: Row, keys: tuple[str, ...], result: ParseResult
) -> dict[str, list[str]] | None:
    """Merge the mini-language lists of several columns; None (and problems) if unreadable."""
    merged: dict[str, list[str]] = {}
    ok = True
    for key in keys:
        text = row.get(key)
        if not text:
            continue
        try:
            lists = parse_placeholder_lists(text)
        except ValueError as error:
            result.problem(
                table.file, row.line, table.label(key), f"unparseable value list: {error}"
            )
            ok = False
            continue
        for name, values in lists.items():
            if name in merged:
                result.problem(
                    table.file, row.line, table.label(key), f"{name} is defined in two columns"
                )
                ok = False
            merged[name] = values
    return merged if ok else None


def derive_bare_lists(placeholders: dict[str, list[str]]) -> None:
    """EsBBQ: a key given only as -def/-indef gets its bare list by dropping the article."""
    for name in list(placeholders):
        if "-" not in name:
            continue
        bare = name.split("-")[0]
        if bare in placeholders:
            continue
        source = placeholders.get(f"{bare}-def") or placeholders[name]
        placeholders[bare] = [value.split(" ", 1)[-1] for value in source]


def casefolded(values: list[str]) -> set[str]:
    return {value.strip().casefold() for value in values if value.strip()}


def target_from_groups(
    placeholders: dict[str, list[str]], infos: dict[str, list[str]], known: list[str]
) -> str | None:
    """The NAME axis whose values or *_info codes are among the stereotyped groups, if exactly
    one of NAME1/NAME2 matches."""
    wanted = casefolded(known)
    matching = [
        axis
        for axis in NAME_AXES
        if (casefolded(placeholders.get(axis, [])) | casefolded(infos.get(axis, []))) & wanted
    ]
    return matching[0] if len(matching) == 1 else None


def pairing_for(texts: dict[str, str], target: str) -> str:
    """Stereotypical iff the negative question's disambiguated answer is the target."""
    negative = instantiation.answer_name(texts["answer_negative"])
    return STEREOTYPICAL if negative == target else ANTI_STEREOTYPICAL


def transformation(text: str) -> str | None:
    """SR/TM/CT/ST/NC from a code or label; "" when empty; None when unrecognised."""
    if not text.strip():
        return ""
    return _TRANSFORMATIONS.get(" ".join(re.sub(r"[_\-]", " ", text.lower()).split()))


def notes_text(parts: dict[str, str]) -> str:
    """Columns with no field of their own, kept as `Label: value` lines for the reviewer."""
    return "\n".join(f"{label}: {value}" for label, value in parts.items() if value)


def finish_template(draft: TemplateDraft, result: ParseResult) -> TemplateRecord | None:
    """Validate a draft (with the rules of the generator it names in `extra`, default
    "kasauti") and record it, or report each of its problems and return None."""
    file, line = draft.table.file, draft.row.line
    before = len(result.problems)
    spec = instantiation.TemplateSpec(
        template_id=draft.external_id,
        language=draft.language,
        placeholders=draft.placeholders,
        placeholder_groups=draft.placeholder_groups,
        pairing=draft.pairing,
        target_placeholder=draft.target_placeholder,
        generator=draft.extra.get("generator", "kasauti"),
        generator_data=draft.extra.get("generator_data", {}),
        **draft.texts,
    )
    for problem in generators.validate(spec):
        message = problem.message
        # The column label already says which text; a placeholder problem must say which list.
        if problem.field.startswith(("NAME", "WORD")) and problem.field not in message:
            message = f"{problem.field}: {message}"
        result.problem(file, line, draft.label(problem.field), message)
    for name, text in draft.texts.items():
        for token in unknown_placeholders(text):
            result.problem(
                file, line, draft.label(name), f"unknown placeholder {token}: use NAMEn or WORDn"
            )
    for name, limit in _LENGTH_LIMITS.items():
        value = getattr(draft, name)
        if len(value) > limit:
            result.problem(file, line, name, f"{value[:40]!r}… is longer than {limit} characters")
    for name, limit in _CONTENT_LENGTH_LIMITS.items():
        if len(draft.extra.get(name, "")) > limit:
            result.problem(file, line, draft.label(name), f"longer than {limit} characters")
    if len(result.problems) > before:
        return None
    content = {
        **draft.texts,
        "language": draft.language,
        "placeholders": draft.placeholders,
        "placeholder_groups": draft.placeholder_groups,
        "target_placeholder": draft.target_placeholder,
        "pairing": draft.pairing,
        "status": ReviewStatus.DRAFT.value,
        "origin": f"{file}:{line}"[-300:],
        **draft.extra,
    }
    record = TemplateRecord(
        file=file,
        line=line,
        external_id=draft.external_id,
        category=draft.category,
        question_index=draft.question_index,
        variant=draft.variant,
        content=content,
        id_field=draft.table.label(draft.id_column),
    )
    result.templates.append(record)
    return record
