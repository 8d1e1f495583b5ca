"""EsBBQ / CaBBQ reproduction: import the real template and vocabulary workbooks, instantiate,
and diff every stored instance against the published `data_<l>/<Category>.full.csv`, line by
line, as the CSV row the original script writes (all 24 columns, byte for byte).

Prints, per language and category: published count, Kasauti count, identical rows, and the
first differing row if any; then the import and instantiation times (median of RUNS runs of
each, on a fresh dataset each time).

Run: python bench/esbbq_reproduce.py [REPO]   (REPO: a checkout of langtech-bsc/EsBBQ-CaBBQ,
default /work/ref/EsBBQ-CaBBQ; needs PostgreSQL on 127.0.0.1, trust auth)
"""

from __future__ import annotations

import csv
import io
import statistics
import sys
import time
from pathlib import Path

from _db import bench_database

REPO = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/ref/EsBBQ-CaBBQ")
RUNS = 3
FORMATS = {"es": "esbbq", "ca": "cabbq"}


def import_files():
    from apps.catalog.importers import ImportFile

    return [
        ImportFile(path.name, path.read_bytes())
        for path in sorted((REPO / "templates").glob("*.xlsx"))
    ]


def run_once(language: str, files, name: str) -> tuple[float, float, object]:
    from apps.catalog.benchmarks.esbbq import script
    from apps.catalog.importers import benchmark_import
    from apps.catalog.models import Dataset
    from apps.catalog.services import dataset_instantiate

    # Cold every run: the generator caches a row's instances between validation, planning
    # and instantiation of one import, not across runs.
    script.generate_cache_clear()
    started = time.perf_counter()
    benchmark_import(dataset_name=name, fmt=FORMATS[language], files=files)
    imported = time.perf_counter()
    dataset = Dataset.objects.get(name=name)
    dataset_instantiate(dataset=dataset)
    done = time.perf_counter()
    return imported - started, done - imported, dataset


def rendered_rows(dataset) -> dict[str, list[str]]:
    """Every stored instance as the published CSV line, per category, in example_id order."""
    from apps.catalog.benchmarks.esbbq import published
    from apps.catalog.benchmarks.esbbq.filling import EsbbqInstance
    from apps.catalog.models import Instance

    fields_by_version: dict[int, dict] = {}
    lines: dict[str, list[str]] = {}
    instances = (
        Instance.objects.filter(dataset=dataset, retired_at__isnull=True)
        .select_related("category", "template_version")
        .order_by("category__name", "example_id")
    )
    for stored in instances.iterator(chunk_size=2000):
        version = stored.template_version
        if version.pk not in fields_by_version:
            fields_by_version[version.pk] = published.template_fields(version.generator_data["row"])
        stereotypical = stored.pairing == "stereotypical"
        instance = EsbbqInstance(
            flipped=stored.additional_metadata.get("flipped", ""),
            question_polarity=stored.question_polarity,
            context_condition=stored.context_condition,
            context=stored.context,
            question=stored.question,
            ans0=stored.ans0,
            ans1=stored.ans1,
            ans2=stored.ans2,
            label=stored.label,
            question_type="n/a"
            if stored.context_condition == "ambig"
            else ("pro-stereo" if stereotypical else "anti-stereo"),
            answer_info=stored.answer_info,
            values=stored.placeholder_values,
            negative_is_stereotyped=stereotypical,
            combination=stored.combination,
        )
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerow(
            published.published_row(stored.example_id, fields_by_version[version.pk], instance)
        )
        lines.setdefault(stored.category.name, []).append(out.getvalue().rstrip("\n"))
    return lines


def compare(language: str, dataset) -> tuple[int, int, int]:
    ours = rendered_rows(dataset)
    totals = [0, 0, 0]
    print(f"\n{FORMATS[language]} against {REPO.name}/data_{language}/*.full.csv")
    print(f"  {'category':<20} {'published':>9} {'kasauti':>8} {'identical':>9}")
    for path in sorted((REPO / f"data_{language}").glob("*.full.csv")):
        category = path.name.split(".")[0]
        published = path.read_text(encoding="utf-8").split("\n")[1:]
        if published and published[-1] == "":
            published.pop()
        generated = ours.get(category, [])
        identical = sum(1 for a, b in zip(generated, published, strict=False) if a == b)
        print(f"  {category:<20} {len(published):>9} {len(generated):>8} {identical:>9}")
        for a, b in zip(generated, published, strict=False):
            if a != b:
                print(f"    first difference:\n      kasauti:   {a}\n      published: {b}")
                break
        totals[0] += len(published)
        totals[1] += len(generated)
        totals[2] += identical
    print(f"  {'total':<20} {totals[0]:>9} {totals[1]:>8} {totals[2]:>9}")
    return totals[0], totals[1], totals[2]


def main() -> None:
    with bench_database("kasauti_bench_esbbq"):
        files = import_files()
        summary = []
        for language in FORMATS:
            import_times, instantiate_times = [], []
            dataset = None
            for run in range(RUNS):
                import_s, instantiate_s, dataset = run_once(
                    language, files, f"{FORMATS[language]}-{run}"
                )
                import_times.append(import_s)
                instantiate_times.append(instantiate_s)
            published, generated, identical = compare(language, dataset)
            summary.append(
                (FORMATS[language], published, generated, identical,
                 statistics.median(import_times), statistics.median(instantiate_times))
            )  # fmt: skip
        print("\nformat  published  kasauti  identical  import s (median)  instantiate s (median)")
        for fmt, published, generated, identical, import_s, instantiate_s in summary:
            print(
                f"{fmt:<7} {published:>9} {generated:>8} {identical:>10} {import_s:>18.2f} "
                f"{instantiate_s:>23.2f}"
            )


if __name__ == "__main__":
    main()
