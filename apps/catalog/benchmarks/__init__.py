"""One package per benchmark: what Kasauti knows about it, in one place.

A package holds the benchmark's template-file reader (templates.py or reader.py), its generator
if its published generator has rules of its own (generator.py), the layouts of its published
instance files (instances.py), and in its __init__.py a `register()` that registers its formats
(apps.catalog.importers.formats) and its generator (apps.catalog.generators).

Adding a benchmark = one new package here + one line in BENCHMARKS below. CatalogConfig.ready()
calls benchmarks_register().
"""

from __future__ import annotations

from importlib import import_module

# The benchmark packages, in the order their formats are listed (command choices, API enum).
BENCHMARKS = ("bbq", "bharatbbq", "esbbq", "indibias", "indicasa")


def benchmarks_register() -> None:
    for name in BENCHMARKS:
        import_module(f"{__name__}.{name}").register()
