"""P1: instantiate the real BharatBBQ templates and write the instances to PostgreSQL.

The 13 published template files (a local checkout of sahoonihar/BharatBBQ, by path) are imported
with the project's importer (format "bharatbbq", as bench/bharatbbq_import.py does) and
instantiated: 54,048 instances. Measured, in one run (median of --runs runs each, alternated):
  * ours: services.dataset_instantiate (plan, generation, one COPY stream, commit) into an
    emptied catalog_instance;
  * baseline: PostgreSQL's own COPY of the same rows into a table created
    `LIKE catalog_instance INCLUDING ALL` (same columns, defaults and indexes; no foreign keys):
    the rows are produced once, in memory, before the clock starts, then COPY'd and committed;
  * for context: the same COPY into such a table given catalog_instance's foreign key to the
    template version (PostgreSQL checks it per row, ~+50 % server CPU: the gap ours cannot close).
Prints rows/s for both and the ratio ours / COPY (goal >= 0.9x), and the CPU time each takes
in this process and in the database backend (a busy machine disturbs these less).

--synthetic adds the older synthetic catalog (850 templates, 54,400 instances) measured the
same way, and --save-baseline the Model.save() one-by-one baseline (on a 1/10 slice; slow).

Run: python bench/p1_instantiate.py [TEMPLATES_DIR] [--runs N] [--synthetic] [--save-baseline]
     (default $KASAUTI_BHARATBBQ_DIR or /work/ref/BharatBBQ/BharatBBQ_Dataset/Templates;
      needs PostgreSQL on 127.0.0.1, trust auth)
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import time
from pathlib import Path

from _db import bench_database

DEFAULT_DIR = "/work/ref/BharatBBQ/BharatBBQ_Dataset/Templates"
BHARATBBQ_TOTAL = 54048
GOAL_RATIO = 0.9
SYNTHETIC_TEMPLATES = 850
COPY_TABLE = "bench_p1_copy"
# The same table with catalog_instance's foreign key to its template version: PostgreSQL checks
# it row by row (a trigger), which a table LIKE catalog_instance does not have to do.
COPY_FK_TABLE = "bench_p1_copy_fk"


def import_bharatbbq(folder: Path):
    from apps.catalog.importers import ImportFile, benchmark_import
    from apps.catalog.models import Dataset

    paths = sorted(folder.glob("*.csv"))
    if not paths:
        raise SystemExit(f"no template CSVs in {folder}")
    files = [ImportFile(path.name, path.read_bytes()) for path in paths]
    benchmark_import(dataset_name="p1-bharatbbq", fmt="bharatbbq", files=files)
    return Dataset.objects.get(name="p1-bharatbbq")


def build_synthetic():
    """850 synthetic templates of 16 value combinations each (4 NAME1 x 4 NAME2 values, or for
    every fourth template 4 x 2 values x a 2-value WORD1 list): 54,400 instances."""
    from apps.catalog.models import Category, Dataset
    from apps.catalog.services import template_create

    dataset = Dataset.objects.create(name="p1-synthetic")
    categories = [Category.objects.get_or_create(name=f"Bench {i}")[0] for i in range(13)]
    for i in range(SYNTHETIC_TEMPLATES):
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


def truncate() -> None:
    """Start each measurement from empty, vacuumed tables (no dead index entries)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE catalog_instance CASCADE")
        for table in ("catalog_instance", COPY_TABLE, COPY_FK_TABLE):
            cursor.execute(f"TRUNCATE {table} CASCADE")
            cursor.execute(f"VACUUM ANALYZE {table}")


def all_rows(dataset) -> list[tuple]:
    """Every row dataset_instantiate writes, built by the same code, in memory."""
    from apps.catalog.services import instances as services

    rows: list[tuple] = []
    next_example_id: dict[int, int] = {}  # per category, as dataset_instantiate numbers them
    for version in todo_versions(dataset):
        category_id = version.template.category_id
        before = len(rows)
        rows.extend(
            services._instance_rows(
                dataset=dataset,
                version=version,
                unknowns=services._unknown_expressions(version.language),
                first_example_id=next_example_id.get(category_id, 0),
            )
        )
        next_example_id[category_id] = next_example_id.get(category_id, 0) + len(rows) - before
    return rows


def todo_versions(dataset) -> list:
    """The versions dataset_instantiate instantiates, in its order."""
    from apps.catalog.services import instances

    plan, planned = instances._plan_with_versions(dataset)
    return [planned[t.template_id] for t in plan.templates if not t.instantiated]


class Clock:
    """Wall time, this process's CPU time and the database backend's CPU time (from /proc: the
    server is local) of a block. On a busy machine wall time mostly measures the wait for a
    CPU; the CPU times say what the work costs."""

    def __enter__(self):
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            self.pid = cursor.fetchone()[0]
        self.start = (time.perf_counter(), time.process_time(), self._server())
        return self

    def __exit__(self, *exc) -> None:
        now = (time.perf_counter(), time.process_time(), self._server())
        self.wall, self.cpu, self.server = (b - a for a, b in zip(self.start, now, strict=True))

    def _server(self) -> float:
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # not on this machine: no server figure
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_ours(dataset, expected: int) -> Clock:
    """One dataset_instantiate into an emptied catalog_instance."""
    from apps.catalog.models import Instance
    from apps.catalog.services import dataset_instantiate

    truncate()
    with Clock() as clock:
        result = dataset_instantiate(dataset=dataset)
    assert result["created"] == expected == Instance.objects.count(), result["created"]
    return clock


def run_copy(rows: list[tuple], table: str = COPY_TABLE) -> Clock:
    """PostgreSQL's COPY of prepared rows (text format, psycopg 3's write_row), committed;
    foreign keys checked as ours checks them (immediately, during the COPY)."""
    from django.db import connection, transaction

    from apps.catalog.services import ORIGINAL_INSTANCE_COLUMNS

    statement = f"COPY {table} ({', '.join(ORIGINAL_INSTANCE_COLUMNS)}) FROM STDIN"
    truncate()
    with Clock() as clock, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        with cursor.cursor.copy(statement) as copy:  # noqa: SIM117 - the statement above first
            for row in rows:
                copy.write_row(row)
    return clock


def save_one_by_one(dataset, versions) -> tuple[int, float]:
    """The same generator, but one Model.save() (one INSERT) per instance."""
    from apps.catalog.models import Instance
    from apps.catalog.services import ORIGINAL_INSTANCE_COLUMNS as COLUMNS
    from apps.catalog.services import _instance_rows, _unknown_expressions

    count = 0
    start = time.perf_counter()
    for version in versions:
        for row in _instance_rows(
            dataset=dataset,
            version=version,
            unknowns=_unknown_expressions(version.language),
            first_example_id=count,
        ):
            values = dict(zip(COLUMNS, row, strict=True))
            for key in ("placeholder_values", "option_roles", "answer_info", "additional_metadata"):
                values[key] = json.loads(values[key])
            Instance(**values).save()
            count += 1
    return count, time.perf_counter() - start


def measure(label: str, dataset, runs: int, *, save_baseline: bool) -> None:
    from apps.catalog.services import instantiation_plan

    expected = instantiation_plan(dataset=dataset).total
    print(f"{label}: {expected} instances (exact plan)")
    if label == "BharatBBQ" and expected != BHARATBBQ_TOTAL:
        raise SystemExit(f"BharatBBQ gives {expected} instances, not {BHARATBBQ_TOTAL}")
    truncate()  # the rows are built with no instance live, as dataset_instantiate builds them
    rows = all_rows(dataset)
    assert len(rows) == expected
    # Out of the garbage collector's sight: otherwise every full collection during ours walks
    # these ~1.3M objects, a cost the command (which holds no such list) never pays.
    gc.collect()
    gc.freeze()
    # Alternated, so that a change in the machine's load falls on both alike.
    clocks: dict[str, list[Clock]] = {"ours": [], "COPY": [], "COPY+FK": []}
    for run in range(runs):
        clocks["ours"].append(run_ours(dataset, expected))
        clocks["COPY"].append(run_copy(rows))
        clocks["COPY+FK"].append(run_copy(rows, COPY_FK_TABLE))
        print(f"  run {run + 1}: " + ", ".join(
            f"{name} {c[-1].wall:.2f}s (CPU: Python {c[-1].cpu:.2f}s, server {c[-1].server:.2f}s)"
            for name, c in clocks.items()
        ))  # fmt: skip
    for name, c in clocks.items():
        print(f"  {name} medians: CPU Python {statistics.median(x.cpu for x in c):.2f}s, "
              f"server {statistics.median(x.server for x in c):.2f}s")  # fmt: skip
    ours = statistics.median(expected / x.wall for x in clocks["ours"])
    copy = statistics.median(expected / x.wall for x in clocks["COPY"])
    copy_fk = statistics.median(expected / x.wall for x in clocks["COPY+FK"])
    print(f"P1 {label} ours (median of {runs}): {ours:,.0f} rows/s")
    print(f"P1 {label} PostgreSQL COPY of the same rows (median of {runs}): {copy:,.0f} rows/s")
    print(f"P1 {label} ratio ours / COPY: {ours / copy:.2f}x  (goal >= {GOAL_RATIO}x)")
    print(f"  (context) COPY into the table with catalog_instance's foreign key: "
          f"{copy_fk:,.0f} rows/s; ours / that: {ours / copy_fk:.2f}x")  # fmt: skip
    if save_baseline:
        truncate()
        versions = todo_versions(dataset)
        n, elapsed = save_one_by_one(dataset, versions[: max(1, len(versions) // 10)])
        print(f"P1 {label} Model.save() one by one: {n} rows in {elapsed:.2f}s, "
              f"{n / elapsed:,.0f} rows/s; ours / save(): {ours * elapsed / n:.1f}x")  # fmt: skip
    gc.unfreeze()
    truncate()
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "folder", nargs="?", default=os.environ.get("KASAUTI_BHARATBBQ_DIR", DEFAULT_DIR)
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--synthetic", action="store_true", help="also the synthetic catalog")
    parser.add_argument("--save-baseline", action="store_true", help="also Model.save()")
    args = parser.parse_args()
    with bench_database("kasauti_bench_p1"):
        from django.db import connection

        with connection.cursor() as cursor:
            for table in (COPY_TABLE, COPY_FK_TABLE):
                cursor.execute(f"CREATE TABLE {table} (LIKE catalog_instance INCLUDING ALL)")
            cursor.execute(
                f"ALTER TABLE {COPY_FK_TABLE} ADD FOREIGN KEY (template_version_id) "
                "REFERENCES catalog_templateversion (id) DEFERRABLE INITIALLY DEFERRED"
            )
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        measure("BharatBBQ", import_bharatbbq(Path(args.folder)), args.runs,
                save_baseline=args.save_baseline)  # fmt: skip
        if args.synthetic:
            measure("synthetic", build_synthetic(), args.runs, save_baseline=args.save_baseline)


if __name__ == "__main__":
    main()
