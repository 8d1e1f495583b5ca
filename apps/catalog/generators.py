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
from typing import TYPE_CHECKING, Protocol

from django.utils.module_loading import import_string

if TYPE_CHECKING:
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
        from apps.catalog import instantiation

        return instantiation.validate_template(spec)

    def count(self, spec: TemplateSpec, *, permutations: bool) -> int:
        from apps.catalog import instantiation

        return instantiation.count_instances(spec, permutations=permutations)

    def combinations(
        self, spec: TemplateSpec, unknown_expressions: Sequence[str], *, permutations: bool
    ) -> Iterator[Combination]:
        from apps.catalog import instantiation

        return instantiation.generate_combinations(
            spec, unknown_expressions, permutations=permutations
        )


# name -> "module.Class" of the generator, imported (and made once) when first used, so that
# registering every benchmark's generator at start-up costs nothing.
_PATHS: dict[str, str] = {"kasauti": f"{__name__}.KasautiGenerator"}
_GENERATORS: dict[str, Generator] = {}


def generator_register(*, name: str, generator_path: str) -> None:
    existing = _PATHS.get(name)
    if existing is not None and existing != generator_path:
        raise ValueError(f"generator {name!r} is already registered ({existing})")
    _PATHS[name] = generator_path


def generator_get(*, name: str) -> Generator:
    generator = _GENERATORS.get(name)
    if generator is None:
        if name not in _PATHS:
            raise ValueError(f"unknown generator {name!r}; known: {', '.join(sorted(_PATHS))}")
        generator = _GENERATORS[name] = import_string(_PATHS[name])()
    return generator


def validate(spec: TemplateSpec) -> list[Problem]:
    if spec.generator not in _PATHS:
        from apps.catalog.instantiation import Problem

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
