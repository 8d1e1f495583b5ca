"""Instantiation generators, by the name a template version records in `generator`.

"kasauti" is Kasauti's own deterministic cross product (apps/catalog/instantiation.py), defined
here. A benchmark whose published generator has rules of its own (BBQ's sampled names and
pairing rules, BharatBBQ's notebook, EsBBQ's vocabulary-driven pairing, agreement and
contractions) reproduces it in apps/catalog/benchmarks/<name>/generator.py, from the source data
the importer keeps in `generator_data`, and its package registers it with `generator_register`.
Every generator is pure (no database) and yields `instantiation.Combination`s, so the bulk writer
and the plan count treat all alike. An unknown name is an error.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from apps.catalog import instantiation
from apps.catalog.instantiation import Combination, Problem, TemplateSpec


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


_GENERATORS: dict[str, Generator] = {"kasauti": KasautiGenerator()}


def generator_register(*, name: str, generator: Generator) -> Generator:
    existing = _GENERATORS.get(name)
    if existing is not None and existing is not generator:
        raise ValueError(f"generator {name!r} is already registered")
    _GENERATORS[name] = generator
    return generator


def generator_get(*, name: str) -> Generator:
    try:
        return _GENERATORS[name]
    except KeyError:
        raise ValueError(
            f"unknown generator {name!r}; known: {', '.join(sorted(_GENERATORS))}"
        ) from None


def validate(spec: TemplateSpec) -> list[Problem]:
    if spec.generator not in _GENERATORS:
        return [Problem("generator", f"unknown generator {spec.generator!r}")]
    return generator_get(name=spec.generator).validate(spec)


def count(spec: TemplateSpec, *, permutations: bool) -> int:
    return generator_get(name=spec.generator).count(spec, permutations=permutations)


def combinations(
    spec: TemplateSpec, unknown_expressions: Sequence[str], *, permutations: bool
) -> Iterator[Combination]:
    return generator_get(name=spec.generator).combinations(
        spec, unknown_expressions, permutations=permutations
    )
