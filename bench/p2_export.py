"""P2 export benchmark: release-file generation, API export throughput, peak RSS, baseline.

Run (PostgreSQL on 127.0.0.1:5432, trust auth, user postgres):

    . .venv/bin/activate
    python bench/p2_export.py                     # 400k + 50k rows, 3 repeats
    python bench/p2_export.py --rows 100000 --repeats 1   # quicker

It creates a dedicated database (`kasauti_bench`, --db to change), migrates it, fills it with
synthetic instances in 8 languages through COPY (apps.catalog.bulk.instances_insert), makes a
release of a 400k and a 50k dataset, then measures, each run in a fresh subprocess so that
its peak RSS (VmHWM; getrusage as fallback) is its own:

  (a) release-file generation: rows/s of the JSONL writer fed from the row stream (also the
      wall time of the whole release_create, 4 kinds x 3 formats);
  (b) API export: rows/s of GET /api/releases/<id>/export/?format=jsonl through Django's test
      client, consuming streaming_content;
  (c) peak RSS of the export process at 50k vs 400k rows (goal: ratio <= 1.2);
  (d) baseline: a plain DRF ModelSerializer ListAPIView (no pagination) over 50k instances;
      ratio ours / baseline (goal >= 10x).

Medians of --repeats runs. The database and the media directory are dropped at the end
(--keep to keep them).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LANGUAGES = {
    "en": ("The {0} and the {1} were waiting at the bus stop for a long time.", "Unknown"),
    "hi": ("{0} और {1} बहुत देर से बस स्टॉप पर इंतज़ार कर रहे थे।", "अज्ञात"),
    "mr": ("{0} आणि {1} बराच वेळ बस स्टॉपवर वाट पाहत होते.", "अज्ञात"),
    "bn": ("{0} এবং {1} অনেকক্ষণ ধরে বাসস্ট্যান্ডে অপেক্ষা করছিলেন।", "অজানা"),
    "ta": ("{0} மற்றும் {1} நீண்ட நேரமாக பேருந்து நிறுத்தத்தில் காத்திருந்தனர்.", "தெரியாது"),
    "te": ("{0} మరియు {1} చాలా సేపు బస్ స్టాప్ వద్ద ఎదురు చూస్తున్నారు.", "తెలియదు"),
    "or": ("{0} ଏବଂ {1} ବହୁତ ସମୟ ଧରି ବସ୍ ଷ୍ଟାଣ୍ଡରେ ଅପେକ୍ଷା କରୁଥିଲେ।", "ଅଜଣା"),
    "as": ("{0} আৰু {1} বহু সময় ধৰি বাছ আস্থানত অপেক্ষা কৰি আছিল।", "অজ্ঞাত"),
}
CATEGORIES = ["Age", "Caste", "Religion", "Region"]


def _setup_django(db_name: str, var_dir: str) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "kasauti.settings.test"
    os.environ["KASAUTI_TEST_DB_NAME"] = db_name
    os.environ["KASAUTI_VAR_DIR"] = var_dir
    import django

    django.setup()


def _admin_sql(statement: str) -> None:
    import psycopg

    with psycopg.connect(
        host="127.0.0.1", port=5432, user="postgres", dbname="postgres", autocommit=True
    ) as conn:
        conn.execute(statement)


def _max_rss_mb() -> float:
    """Peak RSS of this process. VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss
    over exec(), so a child forked from the (large) parent would report the parent's peak."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


# --- data ----------------------------------------------------------------------------------


def _synthetic_rows(dataset_id: int, versions: dict[str, int], categories: dict, per_language):
    from django.utils import timezone

    now = timezone.now()
    next_example: dict[int, int] = {}
    for index, (language, (sentence, unknown)) in enumerate(LANGUAGES.items()):
        version_id = versions[language]
        category_id = categories[CATEGORIES[index % len(CATEGORIES)]]
        for i in range(per_language):
            combination, variant = divmod(i, 4)
            condition = "ambig" if variant < 2 else "disambig"
            polarity = "neg" if variant % 2 == 0 else "nonneg"
            a, b = f"person{combination % 97}", f"other{combination % 89}"
            example_id = next_example.get(category_id, 0)
            next_example[category_id] = example_id + 1
            answers = [unknown, a, b]
            yield (
                dataset_id, version_id, category_id, language, example_id, str(index + 1),
                combination, "12", condition, polarity, "stereotypical", False,
                json.dumps({"NAME1": a, "NAME2": b}, ensure_ascii=False),
                sentence.format(a, b), f"Q{i % 2}: {sentence[:30]}?", *answers,
                json.dumps(["unknown", "stereotyped", "non_stereotyped"]),
                json.dumps({"ans0": [unknown, "unknown"], "ans1": [a, "old"],
                            "ans2": [b, "young"]}, ensure_ascii=False),
                0 if condition == "ambig" else 1 + (variant % 2), None, None, now,
            )  # fmt: skip


def _make_dataset(name: str, total: int) -> int:
    from django.db import transaction

    from apps.catalog.bulk import instances_insert
    from apps.catalog.models import Category, Dataset, Template, TemplateVersion

    per_language = total // len(LANGUAGES)
    categories = {n: Category.objects.get_or_create(name=n)[0].pk for n in CATEGORIES}
    with transaction.atomic():
        dataset = Dataset.objects.create(name=name)
        versions = {}
        for index, language in enumerate(LANGUAGES):
            template = Template.objects.create(
                dataset=dataset,
                external_id=f"T{index + 1}",
                question_index=str(index + 1),
                category_id=categories[CATEGORIES[index % len(CATEGORIES)]],
                position=index,
                variant="a",
            )
            versions[language] = TemplateVersion.objects.create(
                template=template,
                number=1,
                language=language,
                ambiguous_context="x",
                disambiguating_context="y",
                question_negative="q",
                question_non_negative="q",
                placeholders={"NAME1": ["a"], "NAME2": ["b"]},
                source="bench",
                stereotyped_groups=["old"],
            ).pk
        instances_insert(_synthetic_rows(dataset.pk, versions, categories, per_language))
    return dataset.pk


# --- children: each measurement in a fresh process ---------------------------------------


def _child_generate(release_id: int) -> dict:
    """(a) JSONL generation from the row stream, hashing, to a temp file."""
    from django.db import transaction

    from apps.releases.models import Release
    from apps.releases.selectors import release_instance_rows
    from apps.releases.writers import HashingFile, JsonlWriter

    release = Release.objects.get(pk=release_id)
    with tempfile.TemporaryFile() as raw, transaction.atomic():
        start = time.perf_counter()
        rows = JsonlWriter(HashingFile(raw), kind="instances").write(
            release_instance_rows(release=release)
        )
        elapsed = time.perf_counter() - start
    return {"rows": rows, "seconds": elapsed, "max_rss_mb": _max_rss_mb()}


def _bench_client():
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.get(username="bench"))
    return client


def _child_export(release_id: int) -> dict:
    """(b)+(c) the API export through the whole Django stack."""
    from django.urls import reverse

    client = _bench_client()
    url = reverse("release-export", args=[release_id]) + "?format=jsonl"
    start = time.perf_counter()
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    size = lines = 0
    for block in response.streaming_content:
        size += len(block)
        lines += block.count(b"\n")
    elapsed = time.perf_counter() - start
    response.close()
    return {"rows": lines, "bytes": size, "seconds": elapsed, "max_rss_mb": _max_rss_mb()}


def _child_baseline(dataset_id: int, limit: int) -> dict:
    """(d) what a naive endpoint costs: ModelSerializer over a whole queryset, one JSON body."""
    import types

    from django.conf import settings
    from django.urls import include, path
    from rest_framework import generics, serializers

    from apps.accounts.permissions import HasRole
    from apps.catalog.models import Instance

    class InstanceSerializer(serializers.ModelSerializer):
        class Meta:
            model = Instance
            fields = "__all__"

    class BaselineList(generics.ListAPIView):
        permission_classes = [HasRole]
        serializer_class = InstanceSerializer
        pagination_class = None

        def get_queryset(self):
            queryset = Instance.objects.filter(dataset_id=dataset_id).order_by(
                "category__name", "language", "example_id", "id"
            )
            return queryset[:limit]

    module = types.ModuleType("p2_bench_urls")
    module.urlpatterns = [
        path("baseline/", BaselineList.as_view()),
        path("", include("kasauti.urls")),
    ]
    sys.modules["p2_bench_urls"] = module
    settings.ROOT_URLCONF = "p2_bench_urls"

    client = _bench_client()
    start = time.perf_counter()
    response = client.get("/baseline/")
    body = response.content
    elapsed = time.perf_counter() - start
    assert response.status_code == 200, response.status_code
    rows = len(json.loads(body))
    return {"rows": rows, "bytes": len(body), "seconds": elapsed, "max_rss_mb": _max_rss_mb()}


def _run_child(args: argparse.Namespace, mode: str, *values: int) -> dict:
    command = [sys.executable, __file__, "--db", args.db, "--var-dir", args.var_dir,
               "--child", mode, *map(str, values)]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(f"child {mode} failed:\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def _median_runs(args, mode: str, *values: int) -> dict:
    runs = [_run_child(args, mode, *values) for _ in range(args.repeats)]
    rates = [r["rows"] / r["seconds"] for r in runs]
    return {
        "rows": runs[0]["rows"],
        "rows_per_s": statistics.median(rates),
        "rates": rates,
        "seconds": statistics.median(r["seconds"] for r in runs),
        "max_rss_mb": statistics.median(r["max_rss_mb"] for r in runs),
        "bytes": runs[0].get("bytes"),
    }


# --- main ----------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", default="kasauti_bench")
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--small", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--var-dir", default="")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        _setup_django(args.db, args.var_dir)
        mode, *values = args.child
        numbers = [int(v) for v in values]
        child = {"generate": _child_generate, "export": _child_export,
                 "baseline": _child_baseline}[mode]  # fmt: skip
        print(json.dumps(child(*numbers)))
        return

    var_dir = tempfile.mkdtemp(prefix="kasauti-bench-")
    args.var_dir = var_dir
    _admin_sql(f'DROP DATABASE IF EXISTS "{args.db}"')
    _admin_sql(f'CREATE DATABASE "{args.db}"')
    try:
        _main(args)
    finally:
        if not args.keep:
            from django.db import connections

            connections.close_all()
            _admin_sql(f'DROP DATABASE IF EXISTS "{args.db}"')
            import shutil

            shutil.rmtree(var_dir, ignore_errors=True)
        else:
            print(f"kept database {args.db} and media under {var_dir}")


def _main(args: argparse.Namespace) -> None:
    _setup_django(args.db, args.var_dir)
    from django.core.management import call_command

    from apps.accounts.roles import RESEARCHER
    from apps.accounts.services import user_create_with_role
    from apps.releases.services import release_create

    print(f"database {args.db}; {os.cpu_count()} cpus; repeats={args.repeats}")
    call_command("migrate", verbosity=0)
    user_create_with_role(username="bench", role=RESEARCHER, password="bench-password-1")

    start = time.perf_counter()
    big_id = _make_dataset("bench-big", args.rows)
    small_id = _make_dataset("bench-small", args.small)
    print(f"created {args.rows} + {args.small} instances in {len(LANGUAGES)} languages "
          f"(COPY) in {time.perf_counter() - start:.1f}s")  # fmt: skip
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE catalog_instance")

    from apps.catalog.models import Dataset

    timings = {}
    releases = {}
    for label, dataset_id in (("big", big_id), ("small", small_id)):
        start = time.perf_counter()
        release = release_create(dataset=Dataset.objects.get(pk=dataset_id), content="as_published")
        timings[label] = time.perf_counter() - start
        releases[label] = release
    big, small = releases["big"], releases["small"]
    big_total = big.counts["total"]
    print(f"release_create (membership + 4 kinds x 3 formats, hashing): "
          f"{big_total} rows in {timings['big']:.1f}s = {big_total / timings['big']:,.0f} rows/s; "
          f"{small.counts['total']} rows in {timings['small']:.1f}s")  # fmt: skip
    for f in big.files.filter(kind="instances"):
        print(f"  {f.format:8} {f.size / 1e6:8.1f} MB  sha256 {f.sha256[:16]}...")

    gen_big = _median_runs(args, "generate", big.pk)
    gen_small = _median_runs(args, "generate", small.pk)
    print(f"(a) JSONL generation (row stream -> writer -> sha256 -> file): "
          f"{gen_big['rows_per_s']:,.0f} rows/s at {gen_big['rows']} rows "
          f"(runs: {', '.join(f'{r:,.0f}' for r in gen_big['rates'])}); "
          f"peak RSS {gen_small['max_rss_mb']:.0f} MB at {gen_small['rows']} vs "
          f"{gen_big['max_rss_mb']:.0f} MB at {gen_big['rows']} rows")  # fmt: skip

    exp_big = _median_runs(args, "export", big.pk)
    exp_small = _median_runs(args, "export", small.pk)
    print(f"(b) API export JSONL (test client, streaming_content): "
          f"{exp_big['rows_per_s']:,.0f} rows/s at {exp_big['rows']} rows "
          f"({exp_big['bytes'] / 1e6 / exp_big['seconds']:.0f} MB/s; runs: "
          f"{', '.join(f'{r:,.0f}' for r in exp_big['rates'])}); "
          f"{exp_small['rows_per_s']:,.0f} rows/s at {exp_small['rows']} rows")  # fmt: skip
    ratio = exp_big["max_rss_mb"] / exp_small["max_rss_mb"]
    print(f"(c) export peak RSS: {exp_small['max_rss_mb']:.1f} MB at {exp_small['rows']} rows, "
          f"{exp_big['max_rss_mb']:.1f} MB at {exp_big['rows']} rows: ratio {ratio:.2f} "
          f"(goal <= 1.2)")  # fmt: skip

    base = _median_runs(args, "baseline", big_id, args.small)
    print(f"(d) baseline DRF ModelSerializer ListAPIView, no pagination: "
          f"{base['rows_per_s']:,.0f} rows/s at {base['rows']} rows, peak RSS "
          f"{base['max_rss_mb']:.0f} MB; ours/baseline = "
          f"{exp_big['rows_per_s'] / base['rows_per_s']:.1f}x at {exp_big['rows']} rows, "
          f"{exp_small['rows_per_s'] / base['rows_per_s']:.1f}x at {exp_small['rows']} rows "
          f"(goal >= 10x)")  # fmt: skip
    goal = "met" if exp_big["rows_per_s"] >= 40_000 else "NOT met"
    print(f"throughput goal (export >= 40,000 rows/s): {goal}")


if __name__ == "__main__":
    main()
