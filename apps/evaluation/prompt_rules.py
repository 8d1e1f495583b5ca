"""The rules of BBQ-style prompts that need no database: which fields a template text uses,
what is scored after the prompt, and which solved examples a two-shot prompt shows. Plain
functions over instance-like objects (services/prompts.py renders and checks templates)."""

from __future__ import annotations

import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from apps.core.errors import KasautiError

# The fields of one item in a template text (context, question, the three options).
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


def option_continuations(answers: Sequence[str]) -> list[str]:
    """What is scored after the prompt: each option, after one space."""
    return [" " + answer.strip() for answer in answers]


def shot_pool(instances: Iterable[Any]) -> dict[str, list[Any]]:
    """Candidate solved examples per language: disambiguated and ambiguous items alternate,
    so two shots show one of each (the model sees both 'unknown' and a named answer)."""
    by_language: dict[str, dict[str, list[Any]]] = {}
    for instance in instances:
        lists = by_language.setdefault(instance.language, {"disambig": [], "ambig": []})
        if len(lists[instance.context_condition]) < 4:
            lists[instance.context_condition].append(instance)
    pool: dict[str, list[Any]] = {}
    for language, lists in by_language.items():
        mixed = []
        for dis, amb in zip(lists["disambig"], lists["ambig"], strict=False):
            mixed += [dis, amb]
        pool[language] = mixed or lists["disambig"] + lists["ambig"]
    return pool


def shots_for(instance: Any, pool: dict[str, list[Any]], count: int) -> list[Shot]:
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
