"""BharatBBQ's own generator (`create_examples.ipynb` in sahoonihar/BharatBBQ), reproduced.

What it does differently from Kasauti's default cross product, and this generator with it:
* The unknown option is drawn per combination *and question polarity* from BharatBBQ's six
  phrases (`UNKNOWN_ANSWERS` below, kept in the version's `generator_data` so that a researcher
  can edit them), and the three options are shuffled per polarity; the ambiguous and the
  disambiguated instance of one polarity share their options. The notebook draws without a
  seed; here the draws come from a PRNG seeded with the template id, language and values, so
  a run is reproducible.
* A placeholder a text uses but no list defines (BharatBBQ's 88 `{{WORD1}}` instances) stays
  in the text as written, and malformed braces (`{NAME1}}`, `{[NAME1}}`) are not placeholders
  at all: both are generated as published (the importer records a finding for each).
* A disambiguating context that names neither group is generated as written.
* Every defined list is an axis of the cross product, used in a text or not, so the counts are
  the published ones; a list may repeat a value or hold an empty one, as published.
There are no name-order permutations in BharatBBQ: each combination gives 4 instances.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from itertools import product

from apps.catalog import instantiation
from apps.catalog.instantiation import (
    ANTI_STEREOTYPICAL,
    NON_STEREOTYPED,
    PLACEHOLDER_RE,
    STEREOTYPED,
    STEREOTYPICAL,
    UNKNOWN,
    Combination,
    Problem,
    TemplateSpec,
    answer_name,
    gold_role,
    template_axes,
)

# The notebook's UNKNOWN_ANSWERS, in its order.
UNKNOWN_ANSWERS = (
    "can't answer",
    "unknown",
    "not enough info",
    "not enough information",
    "cannot answer",
    "can't be determined",
)

# Kasauti's template rules that BharatBBQ's generator does not have (see the docstring):
# these problems are findings of the import instead.
_TOLERATED = (
    "is used but not defined",
    "is defined but never used",
    "lists the same value twice",
    "has an empty value",
    "never mentions NAME1 or NAME2",
)


class _Text:
    """A text split into literal parts and placeholders; an undefined placeholder renders as
    it was written (the notebook's re.sub leaves it alone)."""

    __slots__ = ("parts",)

    def __init__(self, text: str) -> None:
        self.parts: list[tuple[str | None, str]] = []  # (placeholder name or None, raw text)
        position = 0
        for match in PLACEHOLDER_RE.finditer(text):
            self.parts.append((None, text[position : match.start()]))
            name = match.group(1) + (f"-{match.group(2)}" if match.group(2) else "")
            self.parts.append((name, match.group(0)))
            position = match.end()
        self.parts.append((None, text[position:]))

    def render(self, values: dict[str, str]) -> str:
        # A list, not a generator: join builds one anyway, and this runs several times a row.
        return "".join([raw if name is None else values.get(name, raw) for name, raw in self.parts])


class BharatBbqGenerator:
    def validate(self, spec: TemplateSpec) -> list[Problem]:
        return [
            problem
            for problem in instantiation.validate_template(spec)
            if not any(text in problem.message for text in _TOLERATED)
        ]

    def count(self, spec: TemplateSpec, *, permutations: bool) -> int:
        axes = template_axes(spec.placeholders)
        return math.prod(len(spec.placeholders.get(axis, [])) for axis in axes) * 4

    def combinations(
        self, spec: TemplateSpec, unknown_expressions: Sequence[str], *, permutations: bool
    ) -> Iterator[Combination]:
        """Two Combinations per combination of values, one per question polarity (each with
        its own options), each holding the ambiguous and the disambiguated instance."""
        unknowns = list(spec.generator_data.get("unknown_expressions") or unknown_expressions)
        if not unknowns:
            raise ValueError(f"no unknown expressions are defined for language {spec.language!r}")
        axes = template_axes(spec.placeholders)
        ambiguous = _Text(spec.ambiguous_context)
        disambiguating = _Text(spec.disambiguating_context)
        questions = (
            ("neg", _Text(spec.question_negative)),
            ("nonneg", _Text(spec.question_non_negative)),
        )
        target = spec.target_placeholder
        other = "NAME2" if target == "NAME1" else "NAME1"
        answers = {
            answer_name(spec.answer_negative): _Text(spec.answer_negative),
            answer_name(spec.answer_non_negative): _Text(spec.answer_non_negative),
        }
        pairing = spec.pairing if spec.pairing == STEREOTYPICAL else ANTI_STEREOTYPICAL
        # Per template, not per combination: the value and group lists of each axis, the gold
        # label's role per (condition, polarity), and the two answers' templates.
        value_lists = [spec.placeholders[axis] for axis in axes]
        group_lists = [
            spec.placeholder_groups.get(axis) or spec.placeholders[axis] for axis in axes
        ]
        gold = {
            (condition, polarity): gold_role(condition, polarity, pairing)
            for condition in ("ambig", "disambig")
            for polarity, _ in questions
        }
        target_answer, other_answer = answers[target], answers[other]
        ranges = [range(len(values)) for values in value_lists]
        for index, indexes in enumerate(product(*ranges)):
            values = {
                axis: values[i] for axis, values, i in zip(axes, value_lists, indexes, strict=True)
            }
            groups = {
                axis: groups[i] for axis, groups, i in zip(axes, group_lists, indexes, strict=True)
            }
            rng = random.Random(
                instantiation._seed(spec.template_id, spec.language, list(values.values()))
            )
            context = ambiguous.render(values)
            disambiguated = context + " " + disambiguating.render(values)
            stereotyped = (STEREOTYPED, target_answer.render(values), values.get(target, ""),
                           groups.get(target, ""))  # fmt: skip
            non_stereotyped = (NON_STEREOTYPED, other_answer.render(values),
                               values.get(other, ""), groups.get(other, ""))  # fmt: skip
            for polarity, question in questions:
                unknown = unknowns[rng.randrange(len(unknowns))]
                options = [stereotyped, non_stereotyped, (UNKNOWN, unknown, unknown, "unknown")]
                rng.shuffle(options)
                roles = (options[0][0], options[1][0], options[2][0])
                text = question.render(values)
                rows = [
                    ("12", "ambig", polarity, pairing, context, text,
                     roles.index(gold["ambig", polarity])),
                    ("12", "disambig", polarity, pairing, disambiguated, text,
                     roles.index(gold["disambig", polarity])),
                ]  # fmt: skip
                yield Combination(
                    index,
                    values,
                    (options[0][1], options[1][1], options[2][1]),
                    roles,
                    {
                        "ans0": [options[0][2], options[0][3]],
                        "ans1": [options[1][2], options[1][3]],
                        "ans2": [options[2][2], options[2][3]],
                    },
                    rows,
                )
