"""P7 published instance files: import speed, counts, byte-identical round trip, reproduction.

Run (PostgreSQL on 127.0.0.1:5432, trust auth, user postgres; the reference repositories
checked out under --ref, default /work/ref):

    . .venv/bin/activate
    python bench/p7_published.py                   # every source, 3 repeats
    python bench/p7_published.py --only bbq --repeats 1

For each source (BBQ data/*.jsonl, BharatBBQ Examples/*_examples.csv, EsBBQ and CaBBQ
data_*/*.full.csv and the .full.jsonl files present) it measures, in a dedicated database
(`kasauti_bench_p7`, dropped at the end):

  (a) import: wall time of `instances_import` (parse + checks + COPY + findings), median of
      --repeats runs into fresh datasets, and its rows/s;
  (b) baseline, same run: the same rows written through Django's bulk_create (the ORM path
      apps.catalog.bulk uses on SQLite) instead of COPY, median; ratio baseline / ours;
      also the bare parse of the files with json/csv alone (a lower bound, no checks);
  (c) counts per category, rows kept verbatim, findings by kind;
  (d) round trip: a release of the dataset, its `published` zip extracted and compared byte
      for byte with every input file;
  (e) compare_published of the imported dataset against its own files (must be all-match);
  (f) with --templates: BharatBBQ Templates/*.csv imported with the template importer,
      instantiated, and compared with Examples/*_examples.csv.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._db import bench_database  # noqa: E402

SOURCES = {
    "bbq": ("bbq-instances", "BBQ/data/*.jsonl"),
    "bharatbbq": ("bharatbbq-instances", "BharatBBQ/BharatBBQ_Dataset/Examples/*_examples.csv"),
    "esbbq-csv": ("esbbq-instances", "EsBBQ-CaBBQ/data_es/*.full.csv"),
    "cabbq-csv": ("cabbq-instances", "EsBBQ-CaBBQ/data_ca/*.full.csv"),
    "esbbq-jsonl": ("esbbq-instances", "EsBBQ-CaBBQ/data_es/*.full.jsonl"),
    "cabbq-jsonl": ("cabbq-instances", "EsBBQ-CaBBQ/data_ca/*.full.jsonl"),
}


def bare_parse(paths: list[Path]) -> int:
    rows = 0
    for path in paths:
        text = path.read_text(encoding="utf-8-sig")
        if path.suffix == ".jsonl":
            rows += sum(1 for line in text.splitlines() if json.loads(line))
        else:
            rows += sum(1 for _ in csv.reader(io.StringIO(text, newline=""))) - 1
    return rows


def orm_baseline(fmt: str, files) -> float:
    """The same rows through bulk_create (rolled back): what the COPY path is measured against."""
    from django.db import transaction

    from apps.catalog import bulk, services
    from apps.catalog.importers import instances

    parse = instances.instances_parse(fmt=fmt, files=files)
    with transaction.atomic():
        dataset = services.dataset_get_or_create(name="orm-baseline")
        categories = {
            name: services.category_get_or_create(name=name)
            for name in {r.category for r in parse.records}
        }
        started = time.perf_counter()
        rows = instances.instance_rows(dataset, parse.records, categories)
        bulk._bulk_create_rows(rows, instances.PUBLISHED_INSTANCE_COLUMNS, batch_size=5000)
        elapsed = time.perf_counter() - started
        transaction.set_rollback(True)
    # The parse is common to both paths: add ours, so the ratio compares whole imports.
    started = time.perf_counter()
    instances.instances_parse(fmt=fmt, files=files)
    return elapsed + (time.perf_counter() - started)


def run_source(key: str, ref: Path, repeats: int) -> dict:
    from apps.catalog.importers.instances import instances_import, published_compare
    from apps.catalog.importers.tables import ImportFile
    from apps.catalog.models import Dataset
    from apps.releases.published import published_extract
    from apps.releases.services import release_create, release_file_path

    fmt, pattern = SOURCES[key]
    paths = sorted(ref.glob(pattern))
    if not paths:
        return {"source": key, "skipped": f"no files match {pattern}"}
    files = [ImportFile(name=p.name, data=p.read_bytes()) for p in paths]
    timings, cpu = [], []
    report = None
    for i in range(repeats):
        name = f"{key}-{i}"
        started, cpu_started = time.perf_counter(), time.process_time()
        report = instances_import(dataset_name=name, fmt=fmt, files=files)
        timings.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)
        if i < repeats - 1:
            Dataset.objects.get(name=name).delete()
    dataset = Dataset.objects.get(name=f"{key}-{repeats - 1}")
    bare = []
    for _ in range(repeats):
        started = time.perf_counter()
        bare_parse(paths)
        bare.append(time.perf_counter() - started)
    orm = [orm_baseline(fmt, files) for _ in range(repeats)]

    started = time.perf_counter()
    release = release_create(dataset=dataset, content="as_published")
    release_seconds = time.perf_counter() - started
    published = release.files.get(kind="published")
    with tempfile.TemporaryDirectory() as tmp:
        extracted = published_extract(
            archive_path=release_file_path(release_file=published), directory=Path(tmp)
        )
        identical = {p.name: (Path(tmp) / p.name).read_bytes() == p.read_bytes() for p in paths}
        assert sorted(e.name for e in extracted) == sorted(p.name for p in paths)
    comparison = published_compare(dataset=dataset, files=files, fmt=fmt)
    median = statistics.median(timings)
    return {
        "source": key,
        "format": fmt,
        "files": len(paths),
        "instances": report.created,
        "by_category": report.by_category,
        "verbatim_rows": report.verbatim,
        "findings": report.findings,
        "import_s_median": round(median, 3),
        "import_cpu_s_median": round(statistics.median(cpu), 3),
        "import_rows_per_s": round(report.created / median),
        "baseline_orm_bulk_create_s_median": round(statistics.median(orm), 3),
        "ratio_orm_over_ours": round(statistics.median(orm) / median, 2),
        "bare_parse_s_median": round(statistics.median(bare), 3),
        "release_s": round(release_seconds, 3),
        "published_zip_rows": published.rows,
        "round_trip_identical": all(identical.values()),
        "round_trip_files_identical": sum(identical.values()),
        "self_compare_all_matched": comparison.matched["all"],
        "self_compare_differences": len(comparison.differences),
    }


def run_templates(ref: Path) -> dict:
    from apps.catalog.importers import benchmark_import
    from apps.catalog.importers.instances import published_compare
    from apps.catalog.importers.tables import ImportFile
    from apps.catalog.models import Dataset
    from apps.catalog.services import dataset_instantiate
    from apps.core.errors import ImportRejected

    templates = sorted(ref.glob("BharatBBQ/BharatBBQ_Dataset/Templates/*.csv"))
    examples = sorted(ref.glob("BharatBBQ/BharatBBQ_Dataset/Examples/*_examples.csv"))
    files = [ImportFile(name=p.name, data=p.read_bytes()) for p in templates]
    try:
        benchmark_import(dataset_name="bharatbbq-templates", fmt="bharatbbq", files=files)
    except ImportRejected as rejected:
        return {"templates": "rejected", "problems": len(rejected.problems)}
    dataset = Dataset.objects.get(name="bharatbbq-templates")
    dataset_instantiate(dataset=dataset)
    comparison = published_compare(
        dataset=dataset,
        files=[ImportFile(name=p.name, data=p.read_bytes()) for p in examples],
        fmt="bharatbbq-instances",
    )
    return {
        "templates_vs_examples": {
            k: v for k, v in comparison.as_dict(limit=0).items() if k != "differences"
        }
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ref", default="/work/ref", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", choices=sorted(SOURCES), action="append")
    parser.add_argument("--templates", action="store_true", help="also (f)")
    parser.add_argument("--db", default="kasauti_bench_p7")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as media, bench_database(args.db):
        from django.conf import settings

        settings.MEDIA_ROOT = media
        results = [run_source(key, args.ref, args.repeats) for key in args.only or SOURCES]
        for result in results:
            print(json.dumps(result, ensure_ascii=False))
        if args.templates:
            print(json.dumps(run_templates(args.ref), ensure_ascii=False))


if __name__ == "__main__":
    main()
