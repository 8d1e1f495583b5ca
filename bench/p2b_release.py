"""P2b release benchmark: release creation against PostgreSQL's own row_to_json COPY.

Run (PostgreSQL on 127.0.0.1:5432, trust auth, user postgres):

    .venv/bin/python bench/p2b_release.py                  # 50k and 400k instances, 3 repeats
    .venv/bin/python bench/p2b_release.py --sizes 50000 --repeats 1   # quicker

For each size it makes a dataset of synthetic instances in 8 languages (4 categories, native
scripts; COPY through apps.catalog.bulk, as in bench/p2_export.py), then measures, alternating
the two so that machine load hits both alike, each run in a fresh subprocess (its own peak RSS,
read from VmHWM):

  release   `release_create` of the dataset: membership rows + 4 kinds x 3 formats
            (JSONL, CSV, Parquet) + sha256 of every file, fsynced, committed;
  baseline  `COPY (SELECT row_to_json(r) FROM (<the same instance rows, same joins and
            order>) r) TO STDOUT`, read through psycopg 3 and discarded.

Before each measured release the previous one is removed (raw SQL), so that release_create
writes the release instead of returning the identical latest one. It prints the median rows/s
of each, the ratio release / baseline (goal >= 0.5), and the peak RSS of the release process
at each size (goal: flat). The database and the media directory
are dropped at the end (--keep to keep them).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from p2_export import (  # noqa: E402 (bench/ is not a package)
    _admin_sql,
    _make_dataset,
    _max_rss_mb,
    _setup_django,
)

BASELINE_SQL = """
COPY (
  SELECT row_to_json(r) FROM (
    SELECT i.example_id, i.question_index, i.question_polarity, i.context_condition,
           c.name AS category, i.answer_info, v.subcategory, v.stereotyped_groups,
           t.variant, v.source, t.external_id AS template_id, i.pairing, i.proper_noun,
           i.context, i.question, i.ans0, i.ans1, i.ans2, i.label, i.language
    FROM releases_releaseinstance m
    JOIN catalog_instance i ON i.id = m.instance_id
    JOIN catalog_category c ON c.id = i.category_id
    JOIN catalog_templateversion v ON v.id = i.template_version_id
    JOIN catalog_template t ON t.id = v.template_id
    WHERE m.release_id = %s
    ORDER BY c.name, i.language, i.example_id, i.id
  ) r
) TO STDOUT
"""


def _child_release(dataset_id: int) -> dict:
    from apps.catalog.models import Dataset
    from apps.releases.services import release_create

    dataset = Dataset.objects.get(pk=dataset_id)
    start = time.perf_counter()
    release = release_create(dataset=dataset, content="as_published")
    elapsed = time.perf_counter() - start
    if getattr(release, "reused", False):  # the parent removes the previous release first
        raise SystemExit("release_create returned the existing release: nothing was measured")
    return {
        "rows": release.counts["total"],
        "seconds": elapsed,
        "release_id": release.pk,
        "max_rss_mb": _max_rss_mb(),
    }


def _child_baseline(release_id: int) -> dict:
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cursor:
        start = time.perf_counter()
        size = rows = 0
        with cursor.cursor.copy(BASELINE_SQL, [release_id]) as copy:
            for block in copy:
                data = bytes(block)  # what any consumer of the stream would hold
                size += len(data)
                rows += data.count(b"\n")
        elapsed = time.perf_counter() - start
    return {"rows": rows, "bytes": size, "seconds": elapsed, "max_rss_mb": _max_rss_mb()}


CHILDREN = {"release": _child_release, "baseline": _child_baseline}


def _run_child(args: argparse.Namespace, mode: str, value: int) -> dict:
    command = [sys.executable, __file__, "--db", args.db, "--var-dir", args.var_dir,
               "--child", mode, str(value)]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(f"child {mode} failed:\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def _releases_remove(args: argparse.Namespace, dataset_id: int) -> None:
    """Remove the dataset's releases (rows and files; raw SQL: release rows refuse deletion
    through the ORM), so that the next release_create writes one instead of returning the
    identical latest release (which would measure a lookup, not a release)."""
    import shutil

    from django.conf import settings
    from django.db import connection

    with connection.cursor() as cursor:
        releases = "SELECT id FROM releases_release WHERE dataset_id = %s"
        for table in ("releases_releasefile", "releases_releaseinstance"):
            cursor.execute(
                f"DELETE FROM {table} WHERE release_id IN ({releases})",  # noqa: S608
                [dataset_id],
            )
        cursor.execute("DELETE FROM releases_release WHERE dataset_id = %s", [dataset_id])
    for directory in (Path(settings.MEDIA_ROOT) / "releases").glob(f"*-{dataset_id}"):
        shutil.rmtree(directory)


def _measure(args: argparse.Namespace, size: int) -> dict:
    from apps.releases.models import Release

    dataset_id = _make_dataset(f"bench-{size}", size)
    # One release first (it warms the caches), so the baseline has membership rows to read.
    first = _run_child(args, "release", dataset_id)
    releases, baselines = [first], []
    for _ in range(args.repeats):
        baselines.append(_run_child(args, "baseline", releases[-1]["release_id"]))
        _releases_remove(args, dataset_id)
        releases.append(_run_child(args, "release", dataset_id))
    releases = releases[1:]  # the first one warmed the caches
    release_rate = statistics.median(r["rows"] / r["seconds"] for r in releases)
    baseline_rate = statistics.median(r["rows"] / r["seconds"] for r in baselines)
    files = Release.objects.get(pk=releases[-1]["release_id"]).files.filter(kind="instances")
    return {
        "size": size,
        "rows": first["rows"],
        "release_rate": release_rate,
        "release_runs": [r["rows"] / r["seconds"] for r in releases],
        "release_seconds": statistics.median(r["seconds"] for r in releases),
        "baseline_rate": baseline_rate,
        "baseline_runs": [r["rows"] / r["seconds"] for r in baselines],
        "baseline_seconds": statistics.median(r["seconds"] for r in baselines),
        "ratio": release_rate / baseline_rate,
        "rss_mb": max(r["max_rss_mb"] for r in releases),
        "files": {f.format: f.size for f in files},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", default="kasauti_bench_p2b")
    parser.add_argument("--sizes", type=int, nargs="+", default=[50_000, 400_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--var-dir", default="")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        _setup_django(args.db, args.var_dir)
        mode, value = args.child
        print(json.dumps(CHILDREN[mode](int(value))))
        return

    args.var_dir = tempfile.mkdtemp(prefix="kasauti-bench-p2b-")
    _admin_sql(f'DROP DATABASE IF EXISTS "{args.db}" WITH (FORCE)')
    _admin_sql(f'CREATE DATABASE "{args.db}"')
    try:
        _setup_django(args.db, args.var_dir)
        from django.core.management import call_command
        from django.db import connection

        call_command("migrate", verbosity=0)
        print(f"database {args.db}; repeats={args.repeats}")
        results = []
        for size in args.sizes:
            result = _measure(args, size)
            with connection.cursor() as cursor:
                cursor.execute("VACUUM ANALYZE")
            results.append(result)
            print(
                f"{result['rows']:>8} instances: release_create {result['release_rate']:>9,.0f} "
                f"rows/s ({result['release_seconds']:.2f} s; runs "
                f"{', '.join(f'{r:,.0f}' for r in result['release_runs'])}) | row_to_json COPY "
                f"{result['baseline_rate']:>9,.0f} rows/s ({result['baseline_seconds']:.2f} s; "
                f"runs {', '.join(f'{r:,.0f}' for r in result['baseline_runs'])}) | ratio "
                f"{result['ratio']:.3f} (goal >= 0.5) | release peak RSS "
                f"{result['rss_mb']:.0f} MB | instance files "
                + ", ".join(f"{k} {v / 1e6:.1f} MB" for k, v in sorted(result["files"].items()))
            )
        if len(results) > 1:
            low, high = results[0], results[-1]
            print(
                f"peak RSS {low['rss_mb']:.0f} MB at {low['rows']} vs {high['rss_mb']:.0f} MB at "
                f"{high['rows']} instances: ratio {high['rss_mb'] / low['rss_mb']:.2f}"
            )
        worst = min(r["ratio"] for r in results)
        print(f"P2b goal (release >= 0.5 x row_to_json COPY at every size): "
              f"{'met' if worst >= 0.5 else 'NOT met'} (worst ratio {worst:.3f})")  # fmt: skip
    finally:
        if not args.keep:
            from django.db import connections

            connections.close_all()
            _admin_sql(f'DROP DATABASE IF EXISTS "{args.db}" WITH (FORCE)')
            import shutil

            shutil.rmtree(args.var_dir, ignore_errors=True)
        else:
            print(f"kept database {args.db} and media under {args.var_dir}")


if __name__ == "__main__":
    main()
