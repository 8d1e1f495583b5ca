"""Start-up: the wall time of `manage.py instantiate --dataset D --dry-run` on a small dataset
(goal <= 1.5 s) and of `import kasauti.urls` in a fresh process.

Every management command runs Django's system checks, which import the URL conf and with it
every API module; a heavy library imported at the top of any of them is paid by every command,
web process and worker. Measured, in one run, N fresh processes each (median; the variants are
alternated so that a change in the machine's load falls on all alike):
  * ours: this working tree;
  * baseline (--baseline REV): the code of git revision REV (extracted with git archive into a
    temporary directory), against the same database.
Also prints the CPU time (user + system) of the processes, which a busy machine disturbs less.

Run: python bench/startup.py [--runs N] [--baseline REV]   (needs PostgreSQL on 127.0.0.1)
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _db import ROOT, baseline_tree, bench_database

DB_NAME = "kasauti_bench_startup"
DATASET = "startup-small"
GOAL_SECONDS = 1.5


def small_dataset() -> None:
    """Two templates of 4 x 4 values: 128 instances."""
    from apps.catalog.models import Category, Dataset
    from apps.catalog.services import template_create

    dataset = Dataset.objects.create(name=DATASET)
    category = Category.objects.get_or_create(name="Startup")[0]
    for i in range(2):
        template_create(
            dataset=dataset,
            external_id=f"S{i}",
            category=category,
            position=i,
            content={
                "ambiguous_context": "A {{NAME1}} and a {{NAME2}} were arguing.",
                "disambiguating_context": "The {{NAME1}} shouted; the {{NAME2}} stayed calm.",
                "question_negative": "Who shouted?",
                "question_non_negative": "Who stayed calm?",
                "answer_negative": "The {{NAME1}}",
                "answer_non_negative": "The {{NAME2}}",
                "placeholders": {
                    "NAME1": [f"a{i}{k}" for k in range(4)],
                    "NAME2": [f"b{i}{k}" for k in range(4)],
                },
            },
        )


COMMANDS = {
    "instantiate --dry-run": ["manage.py", "instantiate", "--dataset", DATASET, "--dry-run"],
    "import kasauti.urls": ["-c", "import django; django.setup(); import kasauti.urls"],
}


def run_once(code: Path, args: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh `python ARGS` in `code`."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "kasauti.settings.test",
        "KASAUTI_TEST_DB_NAME": DB_NAME,
        "PYTHONPATH": str(code),
    }
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], cwd=code, env=env, check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline", metavar="REV", help="also measure git revision REV")
    args = parser.parse_args()
    with bench_database(DB_NAME), tempfile.TemporaryDirectory() as tmp:
        small_dataset()
        trees = {"ours": ROOT}
        if args.baseline:
            trees[f"baseline {args.baseline}"] = baseline_tree(args.baseline, Path(tmp))
        results: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for tree, command in ((t, c) for t in trees for c in COMMANDS):  # warm the disk cache
            run_once(trees[tree], COMMANDS[command])
        for run in range(args.runs):
            for tree, code in trees.items():
                for command, argv in COMMANDS.items():
                    results.setdefault((tree, command), []).append(run_once(code, argv))
            print(f"  run {run + 1}/{args.runs} done; load average {os.getloadavg()[0]:.1f}")
        print(f"\nmedian of {args.runs} fresh processes, on {os.cpu_count()} CPUs:")
        medians = {}
        for (tree, command), samples in results.items():
            wall = statistics.median(s[0] for s in samples)
            cpu = statistics.median(s[1] for s in samples)
            medians[tree, command] = wall
            print(f"  {tree:<22} {command:<24} wall {wall:5.2f}s   cpu {cpu:5.2f}s")
        dry_run = medians["ours", "instantiate --dry-run"]
        print(f"\ninstantiate --dry-run: {dry_run:.2f}s wall (goal <= {GOAL_SECONDS} s): "
              f"{'OK' if dry_run <= GOAL_SECONDS else 'MISSED'}")  # fmt: skip


if __name__ == "__main__":
    main()
