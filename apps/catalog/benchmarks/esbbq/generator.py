"""EsBBQ / CaBBQ's generator behind Kasauti's generator interface (apps/catalog/generators.py):
script.py reproduces the published script exactly; this maps its instances onto Kasauti's
combinations, with a reviewer's edited texts put back into the row first."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from apps.catalog.instantiation import (
    ANTI_STEREOTYPICAL,
    NON_STEREOTYPED,
    STEREOTYPED,
    STEREOTYPICAL,
    UNKNOWN,
    Combination,
    Problem,
    TemplateSpec,
)

from .filling import EsbbqInstance
from .script import TEXT_COLUMNS, generate
from .text import GenerationError

# Kasauti's name_order is the order of the groups in the ambiguous context.
_NAME_ORDER = {"original": "12", "ambig": "21", "disambig": "12", "all": "21"}
_ROLES = (STEREOTYPED, NON_STEREOTYPED, UNKNOWN)


def _pairing(instance: EsbbqInstance) -> str:
    """Kasauti's pairing: a disambiguated instance's question type; an ambiguous instance gets
    the pairing of the texts as written."""
    if instance.question_type == "n/a":
        stereotypical = instance.negative_is_stereotyped
    else:
        stereotypical = instance.question_type == "pro-stereo"
    return STEREOTYPICAL if stereotypical else ANTI_STEREOTYPICAL


def edited_data(spec: TemplateSpec) -> dict[str, Any]:
    """The generator data with the version's texts where a reviewer edited them: the importer
    records the texts as imported (`texts`), so an unchanged text keeps the published cell
    byte for byte and an edited one is what gets generated."""
    data = spec.generator_data
    imported = data.get("texts") or {}
    row = dict(data.get("row") or {})
    changed = False
    for name, column in TEXT_COLUMNS.items():
        text = getattr(spec, name)
        if name in imported and text != imported[name]:
            row[column] = text
            changed = True
    return {**data, "row": row} if changed else data


class EsBbqGenerator:
    """The registry entry (apps/catalog/generators): EsBBQ's own script, exactly."""

    def validate(self, spec: TemplateSpec) -> list[Problem]:
        try:
            instances = generate(edited_data(spec), spec.language)
        except GenerationError as error:
            return [Problem("generator_data", str(error))]
        if not instances:
            return [Problem("generator_data", "the template generates no instance")]
        return []

    def count(self, spec: TemplateSpec, *, permutations: bool) -> int:
        # The four flips are part of EsBBQ's own generator: permutations change nothing.
        return len(generate(edited_data(spec), spec.language))

    def combinations(
        self, spec: TemplateSpec, unknown_expressions: Sequence[str], *, permutations: bool
    ) -> Iterator[Combination]:
        # EsBBQ writes the literal "unknown" as the third option (resolved at evaluation time),
        # so the language's unknown expressions are not drawn here.
        groups: dict[int, list[EsbbqInstance]] = {}
        for instance in generate(edited_data(spec), spec.language):
            groups.setdefault(instance.combination, []).append(instance)
        for index, group in groups.items():
            first = group[0]
            yield Combination(
                index,
                dict(first.values),
                (first.ans0, first.ans1, first.ans2),
                _ROLES,
                first.answer_info,
                [
                    (
                        _NAME_ORDER[i.flipped],
                        i.context_condition,
                        i.question_polarity,
                        _pairing(i),
                        i.context,
                        i.question,
                        i.label,
                    )
                    for i in group
                ],
                {"flipped": first.flipped},
            )
