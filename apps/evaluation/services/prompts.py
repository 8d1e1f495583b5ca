"""BBQ-style prompts from templates (data, apps.evaluation.models.PromptTemplate).

A template's `text` has the named fields {ctx}, {qn}, {a}, {b}, {c} and, for two-shot
templates, {examples}; `example_text` is one solved example with the same fields plus {answer}.
The option being scored is the continuation of the rendered prompt, after one space."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from apps.core.errors import KasautiError

from ..models import InstructionLanguage, PromptTemplate
from ..prompt_rules import ITEM_FIELDS, template_fields


def prompt_template_check(*, template: PromptTemplate) -> None:
    """Refuse a template that does not have exactly the fields its shots need."""
    fields = template_fields(template.text)
    allowed = ITEM_FIELDS | ({"examples"} if template.shots else set())
    missing = sorted(ITEM_FIELDS - fields)
    unknown = sorted(fields - allowed)
    if missing or unknown:
        raise KasautiError(
            f"prompt template {template.name!r}: "
            + "; ".join(
                part
                for part in (
                    f"missing field(s) {', '.join('{' + f + '}' for f in missing)}"
                    if missing
                    else "",
                    f"unknown field(s) {', '.join('{' + f + '}' for f in unknown)}"
                    if unknown
                    else "",
                )
                if part
            )
            + f" (allowed: {', '.join(sorted('{' + f + '}' for f in allowed))})"
        )
    if template.shots:
        if "examples" not in fields:
            raise KasautiError(
                f"prompt template {template.name!r} is two-shot but has no {{examples}} field"
            )
        example_fields = template_fields(template.example_text)
        if not ITEM_FIELDS | {"answer"} >= example_fields or "answer" not in example_fields:
            raise KasautiError(
                f"prompt template {template.name!r}: example_text must use {{ctx}}, {{qn}}, "
                "{a}, {b}, {c} and {answer} only"
            )


def prompt_render(
    *, template: PromptTemplate, context: str, question: str, answers: Sequence[str], shots=()
) -> str:
    examples = "".join(
        template.example_text.format(
            ctx=shot.context,
            qn=shot.question,
            a=shot.answers[0],
            b=shot.answers[1],
            c=shot.answers[2],
            answer=shot.answers[shot.label],
        )
        for shot in shots
    )
    values = {"ctx": context, "qn": question, "a": answers[0], "b": answers[1], "c": answers[2]}
    if template.shots:
        values["examples"] = examples
    return template.text.format(**values)


def templates_for(
    *, languages: Iterable[str], shots: int, instruction_language: str
) -> dict[str, PromptTemplate]:
    """The template used for each item language: the English one for English instructions,
    else the one written in the item's language. A language without one is a clear error."""
    languages = sorted(set(languages))
    chosen: dict[str, PromptTemplate] = {}
    missing = []
    for language in languages:
        want = "en" if instruction_language == InstructionLanguage.ENGLISH else language
        template = (
            PromptTemplate.objects.filter(instruction_language=want, shots=shots)
            .order_by("name")
            .first()
        )
        if template is None:
            missing.append(language)
        else:
            chosen[language] = template
    if missing:
        raise KasautiError(
            f"no {shots}-shot prompt template with the instruction in "
            f"{', '.join(missing)}: add one in the admin (Evaluation > Prompt templates) or use "
            "the English instruction"
        )
    for template in chosen.values():
        prompt_template_check(template=template)
    return chosen
