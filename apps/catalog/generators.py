"""Instantiation generators, by the name a template version records in `generator`.

"kasauti" is Kasauti's own deterministic cross product (apps/catalog/instantiation.py);
"bharatbbq" reproduces BharatBBQ's notebook (generators/bharatbbq.py). A benchmark whose
published generator has rules of its own (BBQ's sampled names and pairing rules, EsBBQ's
vocabulary-driven pairing, agreement and contractions) gets a module here that reproduces it
from the source data the importer keeps in `generator_data`. Every generator is pure (no
database) and yields `instantiation.Combination`s, so the bulk writer and the plan count treat
all alike.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from apps.catalog import instantiation
from apps.catalog.instantiation import Combination, Problem, TemplateSpec

from .bbq import BbqGenerator
from .bharatbbq import BharatBbqGenerator
from .esbbq import EsBbqGenerator


class Generator(Protocol):
    def validate(self, spec: TemplateSpec) -> list[Problem]: ...

    def count(self, spec: TemplateSpec, *, permutations: bool) -> int: ...

    def combinations(
        self, spec: TemplateSpec, unknown_expressions: Sequence[str], *, permutations: bool
    ) -> Iterator[Combination]: ...


class KasautiGenerator:
    """The cross product of BharatBBQ Figure 2 / EsBBQ §3 (see instantiation.py)."""

    def validate(self, spec: TemplateSpec) -> list[Problem]:
        return instantiation.validate_template(spec)

    def count(self, spec: TemplateSpec, *, permutations: bool) -> int:
        return instantiation.count_instances(spec, permutations=permutations)

    def combinations(
        self, spec: TemplateSpec, unknown_expressions: Sequence[str], *, permutations: bool
    ) -> Iterator[Combination]:
        return instantiation.generate_combinations(
            spec, unknown_expressions, permutations=permutations
        )


GENERATORS: dict[str, Generator] = {
    "kasauti": KasautiGenerator(),
    "bbq": BbqGenerator(),
    "bharatbbq": BharatBbqGenerator(),
    "esbbq": EsBbqGenerator(),
}


def get(name: str) -> Generator:
    try:
        return GENERATORS[name]
    except KeyError:
        raise ValueError(
            f"unknown generator {name!r}; known: {', '.join(sorted(GENERATORS))}"
        ) from None


def validate(spec: TemplateSpec) -> list[Problem]:
    if spec.generator not in GENERATORS:
        return [Problem("generator", f"unknown generator {spec.generator!r}")]
    return get(spec.generator).validate(spec)


def count(spec: TemplateSpec, *, permutations: bool) -> int:
    return get(spec.generator).count(spec, permutations=permutations)


def combinations(
    spec: TemplateSpec, unknown_expressions: Sequence[str], *, permutations: bool
) -> Iterator[Combination]:
    return get(spec.generator).combinations(spec, unknown_expressions, permutations=permutations)
