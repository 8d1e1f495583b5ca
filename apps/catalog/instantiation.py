"""Deterministic template instantiation, as pure functions over plain data (no database).

The rules (BharatBBQ §3, Figure 2; EsBBQ §3.1 and Appendix E):

* A template's *axes* are its bare placeholders NAME1, NAME2 and WORDn. Every combination of
  one value per axis is generated (the cross product). A NAMEn-def / NAMEn-indef value is taken
  at the same index as the bare NAMEn value.
* Each combination gives 2 context conditions x 2 question polarities = 4 instances. The
  disambiguated context is the ambiguous context, a space, then the disambiguating text.
* Gold labels (Figure 2): ambiguous -> unknown; disambiguated with a stereotypical pairing:
  negative question -> stereotyped group, non-negative -> non-stereotyped group; with an
  anti-stereotypical pairing the two are swapped.
* With EsBBQ's order permutations the ambiguous context is also rendered with NAME1 and NAME2
  swapped (2 orders), and the disambiguating text is rendered both as written and with the two
  groups swapped, which turns a stereotypical context into an anti-stereotypical one: 2 x 2
  ambiguous + 2 x 2 x 2 disambiguated = 12 instances per combination (EsBBQ Table 5).
* Option order and the unknown expression are drawn from a PRNG seeded with a hash of the
  template id, language and the combination's values, so the same template always yields the
  same output, and an unchanged combination keeps its order across template versions.

`count_instances` uses the same axes as `generate`, so a preview is exact by construction.
"""

from __future__ import annotations

import hashlib
import json
import json.encoder
import math
import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import NamedTuple

PLACEHOLDER_RE = re.compile(r"\{\{\s*((?:NAME|WORD)\d+)(?:-(def|indef))?\s*\}\}")
NAME_AXES = ("NAME1", "NAME2")

STEREOTYPED = "stereotyped"
NON_STEREOTYPED = "non_stereotyped"
UNKNOWN = "unknown"
STEREOTYPICAL = "stereotypical"
ANTI_STEREOTYPICAL = "anti-stereotypical"


@dataclass(frozen=True)
class TemplateSpec:
    """What instantiation needs from a template version."""

    template_id: str
    language: str
    ambiguous_context: str
    disambiguating_context: str
    question_negative: str
    question_non_negative: str
    placeholders: dict[str, list[str]]
    # Answer templates (BBQ's Answer_negative / Answer_non_negative), e.g. "The {{NAME1}}":
    # the first names who answers the negative question in the disambiguated context as written.
    answer_negative: str = "{{NAME1}}"
    answer_non_negative: str = "{{NAME2}}"
    pairing: str = STEREOTYPICAL
    target_placeholder: str = "NAME1"
    placeholder_groups: dict[str, list[str]] = field(default_factory=dict)
    proper_noun: bool = False
    noun_form: str = ""
    # apps/catalog/generators: which generator instantiates the template, and the source data
    # a benchmark's own generator needs (ignored by the default "kasauti" generator).
    generator: str = "kasauti"
    generator_data: dict = field(default_factory=dict)


class GeneratedInstance(NamedTuple):
    combination: int
    name_order: str
    context_condition: str  # "ambig" | "disambig"
    question_polarity: str  # "neg" | "nonneg"
    pairing: str
    placeholder_values: dict[str, str]
    context: str
    question: str
    answers: tuple[str, str, str]
    option_roles: tuple[str, str, str]
    answer_info: dict[str, list[str]]
    label: int


def placeholders_used(text: str) -> set[str]:
    """Full placeholder names used in a text, e.g. {"NAME1", "NAME2-def", "WORD1"}."""
    return {
        m.group(1) + (f"-{m.group(2)}" if m.group(2) else "") for m in PLACEHOLDER_RE.finditer(text)
    }


def answer_name(text: str) -> str | None:
    """The NAME axis an answer template refers to, or None if it names neither or both."""
    names = {name.split("-")[0] for name in placeholders_used(text) if name.startswith("NAME")}
    return names.pop() if len(names) == 1 else None


def template_axes(placeholders: dict[str, list[str]]) -> list[str]:
    """The independent axes of the cross product: bare NAMEn/WORDn names, in a stable order."""
    bare = {name.split("-")[0] for name in placeholders}

    def sort_key(name: str) -> tuple[int, int]:
        kind = 0 if name.startswith("NAME") else 1
        return kind, int(name[4:])

    return sorted(bare, key=sort_key)


def count_instances(spec: TemplateSpec, *, permutations: bool = False) -> int:
    combinations = math.prod(
        len(spec.placeholders.get(axis, [])) for axis in template_axes(spec.placeholders)
    )
    return combinations * (12 if permutations else 4)


class _Compiled:
    """A text split once into literal and placeholder parts, so rendering is a join."""

    __slots__ = ("parts",)

    def __init__(self, text: str) -> None:
        parts: list[tuple[bool, str]] = []
        position = 0
        for match in PLACEHOLDER_RE.finditer(text):
            parts.append((False, text[position : match.start()]))
            name = match.group(1) + (f"-{match.group(2)}" if match.group(2) else "")
            parts.append((True, name))
            position = match.end()
        parts.append((False, text[position:]))
        self.parts = [(is_ph, value) for is_ph, value in parts if is_ph or value]

    def render(self, values: dict[str, str]) -> str:
        return "".join(values[value] if is_ph else value for is_ph, value in self.parts)


def _swap_names(values: dict[str, str]) -> dict[str, str]:
    """The same assignment with every NAME1* and NAME2* value exchanged."""
    swapped = dict(values)
    for name, value in values.items():
        if name.startswith("NAME1"):
            swapped["NAME2" + name[5:]] = value
        elif name.startswith("NAME2"):
            swapped["NAME1" + name[5:]] = value
    return swapped


def _json_text_encoder() -> Callable[[object], str]:
    """json.dumps(value, ensure_ascii=False), the same text, without its cost per call: dumps
    builds a JSONEncoder on every call with a keyword argument, and JSONEncoder.encode builds
    its C encoder on every call. Instantiation encodes several values per combination (the
    seed, and for the bulk writer each instance's JSON columns), so the C encoder is built once
    here, with JSONEncoder's own arguments (no circular-reference check: these values are plain
    data). Where Python has no C encoder, JSONEncoder.encode."""
    encoder = json.JSONEncoder(ensure_ascii=False)
    make = json.encoder.c_make_encoder
    if make is None:
        return encoder.encode
    encode = make(None, encoder.default, json.encoder.encode_basestring, None,
                  encoder.key_separator, encoder.item_separator, False, False, True)  # fmt: skip
    return lambda value: "".join(encode(value, 0))


json_text = _json_text_encoder()


def _seed(template_id: str, language: str, combination_values: Sequence[str]) -> int:
    payload = json_text([template_id, language, list(combination_values)])
    return int.from_bytes(hashlib.sha256(payload.encode("utf-8")).digest()[:8], "big")


def gold_role(context_condition: str, polarity: str, pairing: str) -> str:
    """BharatBBQ Figure 2."""
    if context_condition == "ambig":
        return UNKNOWN
    stereotyped_answers_negative = pairing == STEREOTYPICAL
    if polarity == "neg":
        return STEREOTYPED if stereotyped_answers_negative else NON_STEREOTYPED
    return NON_STEREOTYPED if stereotyped_answers_negative else STEREOTYPED


def _flip(pairing: str) -> str:
    return ANTI_STEREOTYPICAL if pairing == STEREOTYPICAL else STEREOTYPICAL


class Combination(NamedTuple):
    """One combination of placeholder values and everything its instances share."""

    index: int
    values: dict[str, str]
    answers: tuple[str, str, str]
    option_roles: tuple[str, str, str]
    answer_info: dict[str, list[str]]
    # One (name_order, context_condition, question_polarity, pairing, context, question,
    # label) per instance, in output order.
    variants: list[tuple[str, str, str, str, str, str, int]]
    # Published fields Kasauti has no column for (EsBBQ's `flipped`), stored with each instance
    # in Instance.additional_metadata.
    metadata: dict | None = None


def generate(
    spec: TemplateSpec,
    unknown_expressions: Sequence[str],
    *,
    permutations: bool = False,
) -> Iterator[GeneratedInstance]:
    """Yield every instance of a template, in a fixed order."""
    for combo in generate_combinations(spec, unknown_expressions, permutations=permutations):
        for order, condition, polarity, pairing, context, question, label in combo.variants:
            yield GeneratedInstance(
                combo.index, order, condition, polarity, pairing, combo.values, context,
                question, combo.answers, combo.option_roles, combo.answer_info, label,
            )  # fmt: skip


def generate_combinations(
    spec: TemplateSpec,
    unknown_expressions: Sequence[str],
    *,
    permutations: bool = False,
) -> Iterator[Combination]:
    """The same output as `generate`, grouped by combination, so that bulk writers encode
    what the instances of a combination share only once."""
    if not unknown_expressions:
        raise ValueError(f"no unknown expressions are defined for language {spec.language!r}")
    axes = template_axes(spec.placeholders)
    variants = {
        axis: sorted(
            name for name in spec.placeholders if name.split("-")[0] == axis and name != axis
        )
        for axis in axes
    }
    ambiguous = _Compiled(spec.ambiguous_context)
    disambiguating = _Compiled(spec.disambiguating_context)
    questions = (
        ("neg", _Compiled(spec.question_negative)),
        ("nonneg", _Compiled(spec.question_non_negative)),
    )
    target = spec.target_placeholder
    other = "NAME2" if target == "NAME1" else "NAME1"
    answer_templates = {
        answer_name(spec.answer_negative): _Compiled(spec.answer_negative),
        answer_name(spec.answer_non_negative): _Compiled(spec.answer_non_negative),
    }
    orders = ("12", "21") if permutations else ("12",)
    # (swap NAME1/NAME2 in the disambiguating text?, resulting pairing)
    disambiguations = [(False, spec.pairing)]
    if permutations:
        disambiguations.append((True, _flip(spec.pairing)))

    index_ranges = [range(len(spec.placeholders[axis])) for axis in axes]
    for combination, indexes in enumerate(product(*index_ranges)):
        values: dict[str, str] = {}
        groups: dict[str, str] = {}
        for axis, i in zip(axes, indexes, strict=True):
            values[axis] = spec.placeholders[axis][i]
            for variant in variants[axis]:
                values[variant] = spec.placeholders[variant][i]
            axis_groups = spec.placeholder_groups.get(axis)
            groups[axis] = axis_groups[i] if axis_groups else values[axis]
        combination_values = [values[axis] for axis in axes]

        rng = random.Random(_seed(spec.template_id, spec.language, combination_values))
        unknown_text = unknown_expressions[rng.randrange(len(unknown_expressions))]
        # (role, option text, answer_info value, answer_info group label)
        options = [
            (STEREOTYPED, answer_templates[target].render(values), values[target], groups[target]),
            (NON_STEREOTYPED, answer_templates[other].render(values), values[other], groups[other]),
            (UNKNOWN, unknown_text, unknown_text, "unknown"),
        ]
        rng.shuffle(options)
        answers = (options[0][1], options[1][1], options[2][1])
        roles = (options[0][0], options[1][0], options[2][0])
        answer_info = {f"ans{i}": [value, group] for i, (_, _, value, group) in enumerate(options)}
        rendered_questions = [(polarity, q.render(values)) for polarity, q in questions]
        swapped = _swap_names(values)

        rows: list[tuple[str, str, str, str, str, str, int]] = []
        for order in orders:
            ambiguous_text = ambiguous.render(values if order == "12" else swapped)
            for polarity, question in rendered_questions:
                label = roles.index(gold_role("ambig", polarity, spec.pairing))
                rows.append(
                    (order, "ambig", polarity, spec.pairing, ambiguous_text, question, label)
                )
            for swap, pairing in disambiguations:
                context = ambiguous_text + " " + disambiguating.render(swapped if swap else values)
                for polarity, question in rendered_questions:
                    label = roles.index(gold_role("disambig", polarity, pairing))
                    rows.append((order, "disambig", polarity, pairing, context, question, label))
        yield Combination(combination, values, answers, roles, answer_info, rows)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input row; `field` names the column or template field."""

    field: str
    message: str


def validate_template(spec: TemplateSpec) -> list[Problem]:
    """Every structural problem of a template, so an import can report them all at once."""
    problems: list[Problem] = []
    texts = {
        "ambiguous_context": spec.ambiguous_context,
        "disambiguating_context": spec.disambiguating_context,
        "question_negative": spec.question_negative,
        "question_non_negative": spec.question_non_negative,
        "answer_negative": spec.answer_negative,
        "answer_non_negative": spec.answer_non_negative,
    }
    for name, text in texts.items():
        if not text.strip():
            problems.append(Problem(name, "is empty"))
    used: set[str] = set()
    for text in texts.values():
        used |= placeholders_used(text)
    defined = set(spec.placeholders)

    for axis in NAME_AXES:
        if not spec.placeholders.get(axis):
            problems.append(Problem(axis, f"no values are given for {axis}"))
    for name in sorted(used - defined):
        problems.append(Problem(name, f"placeholder {{{{{name}}}}} is used but not defined"))
    # NAME1/NAME2 are always used: their values are the answer options.
    for name in sorted(defined - used - set(NAME_AXES)):
        problems.append(Problem(name, f"placeholder {name} is defined but never used"))
    for name, values in spec.placeholders.items():
        if not isinstance(values, list) or not values:
            problems.append(Problem(name, "has no values"))
            continue
        if any(not isinstance(v, str) or not v.strip() for v in values):
            problems.append(Problem(name, "has an empty value"))
        if "-" in name:
            bare = name.split("-")[0]
            if bare not in spec.placeholders:
                problems.append(Problem(name, f"{name} is given without the bare list {bare}"))
            elif len(spec.placeholders[bare]) != len(values):
                problems.append(
                    Problem(
                        name,
                        f"{name} has {len(values)} values but {bare} has "
                        f"{len(spec.placeholders[bare])}; they must align index by index",
                    )
                )
        if len(set(values)) != len(values):
            problems.append(Problem(name, "lists the same value twice"))
    for axis, groups in spec.placeholder_groups.items():
        if axis in spec.placeholders and len(groups) != len(spec.placeholders[axis]):
            problems.append(Problem(axis, "group labels do not align with the values"))
    if not any(
        name.startswith(("NAME1", "NAME2"))
        for name in placeholders_used(spec.disambiguating_context)
    ):
        problems.append(
            Problem(
                "disambiguating_context",
                "never mentions NAME1 or NAME2, so it cannot disambiguate",
            )
        )
    if spec.target_placeholder not in NAME_AXES:
        problems.append(Problem("target_placeholder", "must be NAME1 or NAME2"))
    if spec.pairing not in (STEREOTYPICAL, ANTI_STEREOTYPICAL):
        problems.append(Problem("pairing", f"unknown pairing {spec.pairing!r}"))
    negative_name = answer_name(spec.answer_negative)
    non_negative_name = answer_name(spec.answer_non_negative)
    if negative_name is None:
        problems.append(Problem("answer_negative", "must refer to exactly one of NAME1 / NAME2"))
    if non_negative_name is None:
        problems.append(
            Problem("answer_non_negative", "must refer to exactly one of NAME1 / NAME2")
        )
    if negative_name and non_negative_name and negative_name == non_negative_name:
        problems.append(
            Problem("answer_non_negative", "refers to the same NAME as answer_negative")
        )
    elif negative_name and spec.target_placeholder in NAME_AXES:
        # As written, the negative question's answer is `negative_name`; the pairing says
        # whether that is the stereotyped group. The two must agree.
        says_stereotypical = negative_name == spec.target_placeholder
        if says_stereotypical != (spec.pairing == STEREOTYPICAL):
            problems.append(
                Problem(
                    "pairing",
                    f"pairing is {spec.pairing} but answer_negative refers to {negative_name} "
                    f"and the stereotyped group is {spec.target_placeholder}",
                )
            )
    return problems
