"""P1: instantiate and insert a BharatBBQ-scale catalog into PostgreSQL.

850 synthetic templates of 16 value combinations each (4 NAME1 x 4 NAME2 values, or for every
fourth template 4 x 2 values x a 2-value WORD1 list) give 54,400 instances. Measured, in one run:
  * ours: services.dataset_instantiate (generation + COPY), median of 5 runs;
  * baseline: the same instances saved one by one with Model.save(), on a 1/10 slice
    (rates are per instance, so the slice is enough and keeps the run short);
  * for context: Django bulk_create on the same slice.
Goal: >= 25,000 instances/s and >= 5x the Model.save() baseline.

Run: python bench/p1_instantiate.py   (needs PostgreSQL on 127.0.0.1, trust auth)
"""

from __future__ import annotations

import json
import statistics
import time

from _db import bench_database

TEMPLATES = 850
RUNS = 5


def build_catalog():
    from apps.catalog.models import Category, Dataset
    from apps.catalog.services import template_create

    dataset = Dataset.objects.create(name="p1-bharatbbq-scale")
    categories = [Category.objects.get_or_create(name=f"Bench {i}")[0] for i in range(13)]
    for i in range(TEMPLATES):
        word = i % 4 == 0
        content = {
            "ambiguous_context": (
                "At the {{WORD1}} a {{NAME1}} and a {{NAME2}} were arguing about money."
                if word
                else f"In scene {i}, a {{{{NAME1}}}} and a {{{{NAME2}}}} were arguing."
            ),
            "disambiguating_context": "The {{NAME1}} shouted first; the {{NAME2}} stayed calm.",
            "question_negative": "Who shouted?",
            "question_non_negative": "Who stayed calm?",
            "answer_negative": "The {{NAME1}}",
            "answer_non_negative": "The {{NAME2}}",
            "placeholders": {
                "NAME1": [f"g{i}-a{k}" for k in range(4)],
                "NAME2": [f"g{i}-b{k}" for k in range(2 if word else 4)],
                **({"WORD1": ["market", "station"]} if word else {}),
            },
        }
        template_create(
            dataset=dataset,
            external_id=f"T{i}",
            category=categories[i % 13],
            content=content,
            position=i,
        )
    return dataset


def save_one_by_one(dataset, versions) -> tuple[int, float]:
    """Baseline: the same generator, but one Model.save() (one INSERT) per instance."""
    from apps.catalog.models import Instance
    from apps.catalog.services import ORIGINAL_INSTANCE_COLUMNS as INSTANCE_COLUMNS
    from apps.catalog.services import _instance_rows, _unknown_expressions

    unknowns = _unknown_expressions("en")
    count = 0
    start = time.perf_counter()
    for version in versions:
        for row in _instance_rows(
            dataset=dataset, version=version, unknowns=unknowns, first_example_id=count
        ):
            values = dict(zip(INSTANCE_COLUMNS, row, strict=True))
            for key in ("placeholder_values", "option_roles", "answer_info"):
                values[key] = json.loads(values[key])
            Instance(**values).save()
            count += 1
    return count, time.perf_counter() - start


def bulk_create(dataset, versions) -> tuple[int, float]:
    from apps.catalog.bulk import _bulk_create_rows
    from apps.catalog.services import (
        ORIGINAL_INSTANCE_COLUMNS,
        _instance_rows,
        _unknown_expressions,
    )

    unknowns = _unknown_expressions("en")
    start = time.perf_counter()
    count = 0
    for version in versions:
        count += _bulk_create_rows(
            _instance_rows(
                dataset=dataset, version=version, unknowns=unknowns, first_example_id=count
            ),
            ORIGINAL_INSTANCE_COLUMNS,
            batch_size=2000,
        )
    return count, time.perf_counter() - start


def truncate_instances() -> None:
    """Start each measurement from an empty, vacuumed table (no dead index entries)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE catalog_instance CASCADE")
        cursor.execute("VACUUM ANALYZE catalog_instance")


def main() -> None:
    with bench_database("kasauti_bench_p1"):
        from apps.catalog.models import Instance, TemplateVersion
        from apps.catalog.services import dataset_instantiate, instantiation_plan

        dataset = build_catalog()
        expected = instantiation_plan(dataset=dataset).total
        print(f"catalog: {TEMPLATES} templates -> {expected} instances (exact plan)")

        rates = []
        for run in range(RUNS):
            truncate_instances()
            start = time.perf_counter()
            result = dataset_instantiate(dataset=dataset)
            elapsed = time.perf_counter() - start
            assert result["created"] == expected == Instance.objects.count()
            rates.append(expected / elapsed)
            print(f"  ours run {run + 1}: {elapsed:.2f}s  {expected / elapsed:,.0f} instances/s")
        ours = statistics.median(rates)

        truncate_instances()
        versions = list(
            TemplateVersion.objects.select_related("template").order_by("template__position")[
                : TEMPLATES // 10
            ]
        )
        n, elapsed = save_one_by_one(dataset, versions)
        baseline = n / elapsed
        print(f"  baseline Model.save(): {n} instances in {elapsed:.2f}s  {baseline:,.0f}/s")
        truncate_instances()
        n, elapsed = bulk_create(dataset, versions)
        print(f"  (context) bulk_create: {n} instances in {elapsed:.2f}s  {n / elapsed:,.0f}/s")

        print()
        print(f"P1 ours (median of {RUNS}): {ours:,.0f} instances/s  (goal >= 25,000)")
        print(f"P1 ratio vs Model.save(): {ours / baseline:.1f}x  (goal >= 5x)")


if __name__ == "__main__":
    main()
