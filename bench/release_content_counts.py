"""What deciding a release's content costs: the counts (with exclusions) and the fingerprint
that release_create computes before writing anything, and the release page's preview of both
content modes, against the counts and fingerprint as they were before reviewed content covered
every kind (instances only; reproduced below as the baseline).

Run (PostgreSQL on 127.0.0.1:5432, trust auth, user postgres):

    .venv/bin/python bench/release_content_counts.py                 # 400k instances, 5 repeats
    .venv/bin/python bench/release_content_counts.py --rows 50000 --repeats 3

It creates a dedicated database (`kasauti_bench_counts`, dropped at the end; --keep keeps it),
fills it with synthetic instances in 8 languages through COPY (bench/p2_export.py's data; half
of the templates approved), 800 sentence pairs, 300 tuples with votes and 500 context sets of
5 sentences in several review states, then times each measurement --repeats times, alternating
them so that machine load hits all alike, and prints medians in ms and the ratios to the
baseline measured in the same run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from p2_export import _admin_sql, _make_dataset, _setup_django  # noqa: E402


def _baseline_counts(dataset, content: str) -> dict:
    """release_create's counts before this change (apps/releases/services.py _live_counts)."""
    from django.db.models import Count

    from apps.catalog.models import ContextSet, SentencePair, StereotypeTuple
    from apps.releases.content import live_instances

    by_category_language: dict = defaultdict(dict)
    total = 0
    for row in (
        live_instances(dataset=dataset, content=content)
        .values("category__name", "language")
        .annotate(n=Count("id"))
        .order_by("category__name", "language")
    ):
        by_category_language[row["category__name"]][row["language"]] = row["n"]
        total += row["n"]
    return {
        "total": total,
        "by_category_language": dict(by_category_language),
        "sentence_pairs": SentencePair.objects.filter(dataset=dataset).count(),
        "tuples": StereotypeTuple.objects.filter(dataset=dataset).count(),
        "context_sets": ContextSet.objects.filter(dataset=dataset).count(),
    }


def _baseline_fingerprint(dataset, counts: dict, content: str) -> str:
    """release_create's fingerprint before this change: counts and id ranges only."""
    from django.db.models import Count, Max, Min

    from apps.catalog.models import ContextSet, SentencePair, StereotypeTuple
    from apps.releases.content import live_instances

    marks = {"counts": counts, "content": content}
    for name, queryset in (
        ("instances", live_instances(dataset=dataset, content=content)),
        ("sentence_pairs", SentencePair.objects.filter(dataset=dataset)),
        ("tuples", StereotypeTuple.objects.filter(dataset=dataset)),
        ("context_sets", ContextSet.objects.filter(dataset=dataset)),
    ):
        marks[name] = queryset.aggregate(low=Min("id"), high=Max("id"), n=Count("id"))
    return hashlib.sha256(json.dumps(marks, sort_keys=True, default=str).encode()).hexdigest()


def _other_kinds(dataset) -> None:
    from apps.catalog.models import (
        Category,
        ContextSentence,
        ContextSet,
        SentencePair,
        StereotypeTuple,
    )

    category = Category.objects.get_or_create(name="Caste")[0]
    SentencePair.objects.bulk_create(
        SentencePair(
            dataset=dataset,
            external_id=str(n),
            category=category,
            language=("en", "hi")[n % 2],
            sent_more=f"sentence {n} more",
            sent_less=f"sentence {n} less",
            direction="stereo",
        )
        for n in range(800)
    )
    votes = ([1, 1, 0], [1, 0, 0], [], [1, 1, 1])
    StereotypeTuple.objects.bulk_create(
        StereotypeTuple(
            dataset=dataset,
            category=category,
            identity_term=f"group {n}",
            attribute="attribute",
            votes=votes[n % len(votes)],
        )
        for n in range(300)
    )
    sets = ContextSet.objects.bulk_create(
        ContextSet(dataset=dataset, external_id=str(n), category=category, language="hi")
        for n in range(500)
    )
    states = [
        ("social_science", "keep"),
        ("social_science", "fix"),
        ("social_science", "drop"),
        ("language", "keep"),
        ("", ""),
    ]
    ContextSentence.objects.bulk_create(
        ContextSentence(
            context_set=context_set,
            kind=("stereotype", "anti_stereotype")[position % 2],
            text=f"वाक्य {context_set.pk}-{position}",
            position=position,
            review_tier=states[(index + position) % len(states)][0],
            review_decision=states[(index + position) % len(states)][1],
        )
        for index, context_set in enumerate(sets)
        for position in range(5)
    )


def _measure(dataset, repeats: int) -> dict[str, list[float]]:
    from apps.releases.content import content_facts, content_preview
    from apps.releases.services import _live_fingerprint

    def baseline_release_checks(content):
        counts = _baseline_counts(dataset, content)
        _baseline_fingerprint(dataset, counts, content)

    def release_checks(content):
        facts = content_facts(dataset=dataset)
        counts = facts.counts(content)
        _live_fingerprint(dataset, counts, content, facts.instance_marks[content])

    measurements = {
        "baseline counts+fingerprint, reviewed": lambda: baseline_release_checks("reviewed"),
        "counts+fingerprint, reviewed": lambda: release_checks("reviewed"),
        "baseline counts+fingerprint, as_published": lambda: baseline_release_checks(
            "as_published"
        ),
        "counts+fingerprint, as_published": lambda: release_checks("as_published"),
        "baseline counts, both modes": lambda: [
            _baseline_counts(dataset, mode) for mode in ("reviewed", "as_published")
        ],
        "page preview (content_preview)": lambda: content_preview(dataset=dataset),
    }
    for function in measurements.values():  # warm the caches once
        function()
    times: dict[str, list[float]] = {name: [] for name in measurements}
    for _ in range(repeats):
        for name, function in measurements.items():
            start = time.perf_counter()
            function()
            times[name].append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", default="kasauti_bench_counts")
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    var_dir = tempfile.mkdtemp(prefix="kasauti-bench-counts-")
    _admin_sql(f'DROP DATABASE IF EXISTS "{args.db}"')
    _admin_sql(f'CREATE DATABASE "{args.db}"')
    try:
        _setup_django(args.db, var_dir)
        from django.core.management import call_command
        from django.db import connection

        from apps.catalog.models import Dataset, TemplateVersion

        call_command("migrate", verbosity=0)
        dataset = Dataset.objects.get(pk=_make_dataset("bench-counts", args.rows))
        versions = TemplateVersion.objects.filter(template__dataset=dataset).order_by("id")
        TemplateVersion.objects.filter(
            pk__in=list(versions.values_list("id", flat=True))[::2]
        ).update(status="approved")
        _other_kinds(dataset)
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
        print(f"{args.rows} instances, 800 pairs, 300 tuples, 500 context sets x 5 sentences; "
              f"{os.cpu_count()} cpus; load average {os.getloadavg()[0]:.2f} before")  # fmt: skip
        times = _measure(dataset, args.repeats)
        medians = {name: statistics.median(values) for name, values in times.items()}
        for name, median in medians.items():
            print(f"  {name:<45} median {median:8.1f} ms  (runs: "
                  + ", ".join(f"{v:.0f}" for v in times[name]) + ")")  # fmt: skip
        for mode in ("reviewed", "as_published"):
            ratio = (
                medians[f"counts+fingerprint, {mode}"]
                / medians[f"baseline counts+fingerprint, {mode}"]
            )
            print(f"  ratio counts+fingerprint / baseline, {mode}: {ratio:.2f}")
        ratio = medians["page preview (content_preview)"] / medians["baseline counts, both modes"]
        print(f"  ratio preview / baseline counts of both modes: {ratio:.2f}")
        print(f"load average {os.getloadavg()[0]:.2f} after")
    finally:
        if not args.keep:
            from django.db import connections

            connections.close_all()
            _admin_sql(f'DROP DATABASE IF EXISTS "{args.db}"')
            import shutil

            shutil.rmtree(var_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
