"""BBQ-style prompts from templates (data, apps.evaluation.models.PromptTemplate).

A template's `text` has the named fields {ctx}, {qn}, {a}, {b}, {c} and, for two-shot
templates, {examples}; `example_text` is one solved example with the same fields plus {answer}.
The option being scored is the continuation of the rendered prompt, after one space."""

from __future__ import annotations

import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from apps.catalog.models import ContextCondition, Instance
from apps.core.errors import KasautiError

from ..models import InstructionLanguage, PromptTemplate

ITEM_FIELDS = {"ctx", "qn", "a", "b", "c"}


@dataclass(frozen=True)
class Shot:
    context: str
    question: str
    answers: tuple[str, str, str]
    label: int


def template_fields(text: str) -> set[str]:
    """The named fields a template text uses; a malformed one is a clear error."""
    try:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError as exc:
        raise KasautiError(f"prompt template text is malformed: {exc}") from exc


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


def option_continuations(answers: Sequence[str]) -> list[str]:
    """What is scored after the prompt: each option, after one space."""
    return [" " + answer.strip() for answer in answers]


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


def shot_pool(instances: Iterable[Instance]) -> dict[str, list[Instance]]:
    """Candidate solved examples per language: disambiguated and ambiguous items alternate,
    so two shots show one of each (the model sees both 'unknown' and a named answer)."""
    by_language: dict[str, dict[str, list[Instance]]] = {}
    for instance in instances:
        lists = by_language.setdefault(instance.language, {"disambig": [], "ambig": []})
        if len(lists[instance.context_condition]) < 4:
            lists[instance.context_condition].append(instance)
    pool: dict[str, list[Instance]] = {}
    for language, lists in by_language.items():
        mixed = []
        for dis, amb in zip(lists[ContextCondition.DISAMBIGUATED], lists["ambig"], strict=False):
            mixed += [dis, amb]
        pool[language] = mixed or lists["disambig"] + lists["ambig"]
    return pool


def shots_for(instance: Instance, pool: dict[str, list[Instance]], count: int) -> list[Shot]:
    """`count` solved examples in the item's language, never from the item's own template
    (the answer would be given away)."""
    if not count:
        return []
    chosen = [
        candidate
        for candidate in pool.get(instance.language, [])
        if candidate.pk != instance.pk
        and (candidate.question_index != instance.question_index or not instance.question_index)
    ][:count]
    if len(chosen) < count:
        chosen = [c for c in pool.get(instance.language, []) if c.pk != instance.pk][:count]
    if len(chosen) < count:
        raise KasautiError(
            f"two-shot prompts need {count} other items in {instance.language!r} to use as "
            f"examples; the release has {len(chosen)}"
        )
    return [Shot(c.context, c.question, (c.ans0, c.ans1, c.ans2), c.label) for c in chosen]
