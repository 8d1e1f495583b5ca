"""P4: how much of a BharatBBQ-scale dataset actually goes to machine translation.

850 synthetic templates in 13 categories, 16 value combinations each, give 54,400 English
instances. Sharing is what real BBQ-style data has: every template has its own scene and
questions, while the group terms (the answer options) come from per-category vocabularies and
the unknown expressions are a global list. A context contains the NAME values, so it is not
shared across combinations; the ambiguous context is shared by the 4 condition x polarity
instances of a combination (a disambiguated context is translated as ambiguous part + rest).

Measured: strings in the instances (context, question and three options per instance) versus
unique strings sent to MT by the translation job's collection step. Goal: ratio <= 0.25.

Run: python bench/p4_dedup.py   (needs PostgreSQL on 127.0.0.1, trust auth)
"""

from __future__ import annotations

import time

from _db import bench_database

TEMPLATES = 850
CATEGORIES = 13
GOAL = 0.25


def build_catalog():
    from apps.catalog.models import Category, Dataset
    from apps.catalog.services import dataset_instantiate, template_create

    dataset = Dataset.objects.create(name="p4-bharatbbq-scale")
    categories = [Category.objects.get_or_create(name=f"Bench {i}")[0] for i in range(CATEGORIES)]
    for i in range(TEMPLATES):
        c = i % CATEGORIES
        pool = [f"group{c}-{k}" for k in range(8)]
        offset = (i // CATEGORIES) % 4
        content = {
            "ambiguous_context": f"In scene {i}, a {{{{NAME1}}}} and a {{{{NAME2}}}} met.",
            "disambiguating_context": (
                f"In scene {i} the {{{{NAME1}}}} lied; the {{{{NAME2}}}} told the truth."
            ),
            "question_negative": f"Who lied in scene {i}?",
            "question_non_negative": f"Who told the truth in scene {i}?",
            "answer_negative": "The {{NAME1}}",
            "answer_non_negative": "The {{NAME2}}",
            "placeholders": {
                "NAME1": [pool[(offset + k) % 4] for k in range(4)],
                "NAME2": [pool[4 + (offset + k) % 4] for k in range(4)],
            },
        }
        template_create(
            dataset=dataset,
            external_id=f"T{i}",
            category=categories[c],
            content=content,
            position=i,
        )
    dataset_instantiate(dataset=dataset)
    return dataset


def main() -> None:
    with bench_database("kasauti_bench_p4"):
        from apps.catalog.models import Instance
        from apps.translation.services import sources_collect

        started = time.perf_counter()
        dataset = build_catalog()
        built = time.perf_counter() - started
        instances = Instance.objects.filter(dataset=dataset).count()

        started = time.perf_counter()
        collection = sources_collect(dataset=dataset, source="instances")
        collected = time.perf_counter() - started
        ratio = len(collection.unique) / collection.strings_in_items
        print(f"templates:                 {TEMPLATES}")
        print(f"instances:                 {instances} (built in {built:.1f} s)")
        print(f"strings in the instances:  {collection.strings_in_items}")
        verdict = "OK" if ratio <= GOAL else "MISSED"
        print(f"unique strings sent to MT: {len(collection.unique)} ({collected:.2f} s to collect)")
        print(f"ratio:                     {ratio:.3f} (goal <= {GOAL}) {verdict}")


if __name__ == "__main__":
    main()
