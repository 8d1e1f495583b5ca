"""BBQ reproduced: import nyu-mll/BBQ `templates/` with `--format bbq`, instantiate, and compare
with what BBQ published.

    python bench/bbq_reproduce.py [--templates DIR] [--data DIR] [--runs N] [--original DIR]

Prints, per category, the published count, Kasauti's count and, where `--data` has the
category's published `<Category>.jsonl`, how many instances agree on question index,
polarity, context condition, context, question, gold answer and the answer_info of the two
group answers (and, for seed-free templates, on the texts and gold answer alone: where only
answer_info differs, the published file lacks the answer-info-overlap that BBQ's utils.py
produces, a finding). Templates whose draws do not depend on the seed (label templates: every
vocabulary pair is used) must agree exactly; the others differ by BBQ's unseeded random draws.
Times the import and the instantiation (medians of --runs, PostgreSQL). With --original (a BBQ
checkout), BBQ's own two generator scripts are run once in a scratch directory as the baseline,
and the ratio is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from _db import bench_database

PUBLISHED = {
    "Age": 3680,
    "Disability_status": 1556,
    "Gender_identity": 5672,
    "Nationality": 3080,
    "Physical_appearance": 1576,
    "Race_ethnicity": 6880,
    "Race_x_SES": 11160,
    "Race_x_gender": 15960,
    "Religion": 1200,
    "SES": 6864,
    "Sexual_orientation": 864,
}


def _key(question_index, polarity, condition, context, question, gold, infos) -> tuple:
    named = tuple(sorted(tuple(info) for info in infos if info[1] != "unknown"))
    return (str(question_index), polarity, condition, context, question, gold, named)


def _texts(counter: Counter) -> Counter:
    """The same keys without answer_info: context, question and gold answer only."""
    out: Counter = Counter()
    for key, n in counter.items():
        out[key[:6]] += n
    return out


def published_keys(path: Path) -> Counter:
    keys: Counter = Counter()
    for line in path.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        gold_info = d["answer_info"][f"ans{d['label']}"]
        gold = "unknown" if gold_info[1] == "unknown" else d[f"ans{d['label']}"]
        keys[
            _key(
                d["question_index"], d["question_polarity"], d["context_condition"],
                d["context"], d["question"], gold, d["answer_info"].values(),
            )
        ] += 1  # fmt: skip
    return keys


def seed_independent(version) -> bool:
    from apps.catalog.benchmarks.bbq.generator import draws_for

    data = version.generator_data
    # Twelve seeds: a template with one two-way word choice coincides under three now and then.
    first = draws_for(data, random.Random("0:x"))
    return all(draws_for(data, random.Random(f"{seed}:x")) == first for seed in range(1, 12))


def run_original(bbq: Path) -> float:
    """BBQ's own scripts, unchanged, in a scratch directory laid out as they expect."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "BBQ_Full").mkdir()
        (root / "BBQ_Full" / "__init__.py").write_text("")
        (root / "BBQ_Full" / "utils.py").symlink_to(bbq / "utils.py")
        (root / "BBQ_full").mkdir()
        (root / "BBQ_full" / "templates").symlink_to(bbq / "templates")
        (root / "BBQ_full" / "data").mkdir()
        env = {**os.environ, "PYTHONPATH": str(root)}
        start = time.perf_counter()
        for script in (
            "generate_from_template_all_categories.py",
            "generate_from_template_intersectional_cats.py",
        ):
            subprocess.run(
                [sys.executable, str(bbq / script)],
                cwd=root,
                env=env,
                check=True,
                stdout=subprocess.DEVNULL,
            )
        elapsed = time.perf_counter() - start
        lines = sum(
            len(p.read_text().splitlines()) for p in (root / "BBQ_full" / "data").glob("*.jsonl")
        )
        print(f"BBQ's own generator: {lines} instances in {elapsed:.1f} s (one run)")
        return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--templates", type=Path, default=Path("/work/ref/BBQ/templates"))
    parser.add_argument("--data", type=Path, default=Path("/work/ref/BBQ/data"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--original", type=Path, help="a BBQ checkout: time its generator")
    args = parser.parse_args()

    with bench_database("kasauti_bench_bbq"):
        from apps.catalog.importers import ImportFile, benchmark_import
        from apps.catalog.models import Dataset, Instance, TemplateVersion
        from apps.catalog.services import dataset_instantiate

        files = [ImportFile(p.name, p.read_bytes()) for p in sorted(args.templates.glob("*.csv"))]
        import_times, instantiate_times = [], []
        for run in range(args.runs):
            name = f"bbq-{run}"
            start = time.perf_counter()
            report = benchmark_import(dataset_name=name, fmt="bbq", files=files, seed=args.seed)
            import_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            dataset_instantiate(dataset=Dataset.objects.get(name=name))
            instantiate_times.append(time.perf_counter() - start)
        templates_created = report.templates.created
        print(f"files: {len(files)}; templates: {templates_created}")
        for line in report.skipped:
            print(f"skipped {line}")

        dataset = Dataset.objects.get(name="bbq-0")
        versions = TemplateVersion.objects.filter(template__dataset=dataset).select_related(
            "template"
        )
        fixed = {v.pk for v in versions if seed_independent(v)}
        rows = Instance.objects.filter(dataset=dataset).values_list(
            "category__name", "template_version_id", "question_index", "question_polarity",
            "context_condition", "context", "question", "ans0", "ans1", "ans2", "label",
            "option_roles", "answer_info",
        )  # fmt: skip
        ours: dict[str, Counter] = {}
        ours_fixed: dict[str, Counter] = {}
        counts: Counter = Counter()
        for cat, version, qi, pol, cond, ctx, q, a0, a1, a2, label, roles, infos in rows:
            counts[cat] += 1
            gold = "unknown" if roles[label] == "unknown" else (a0, a1, a2)[label]
            key = _key(qi, pol, cond, ctx, q, gold, infos.values())
            ours.setdefault(cat, Counter())[key] += 1
            if version in fixed:
                ours_fixed.setdefault(cat, Counter())[key] += 1

        print(
            f"\n{'category':<20}{'published':>10}{'kasauti':>9}{'equal':>7}"
            f"{'content agrees':>16}{'seed-free agree':>18}{'(texts, gold)':>15}"
        )
        for cat, published in PUBLISHED.items():
            path = args.data / f"{cat}.jsonl"
            agree = fixed_agree = fixed_texts = "-"
            if path.exists():
                keys = published_keys(path)
                agree = f"{sum((keys & ours.get(cat, Counter())).values())}"
                mine = ours_fixed.get(cat, Counter())
                fixed_agree = f"{sum((keys & mine).values())}/{sum(mine.values())}"
                fixed_texts = f"{sum((_texts(keys) & _texts(mine)).values())}"
            equal = "yes" if counts[cat] == published else "NO"
            print(
                f"{cat:<20}{published:>10}{counts[cat]:>9}{equal:>7}{agree:>16}{fixed_agree:>18}"
                f"{fixed_texts:>15}"
            )
        total = sum(counts.values())
        print(f"{'total':<20}{sum(PUBLISHED.values()):>10}{total:>9}")
        published_files = [
            ImportFile(p.name, p.read_bytes()) for p in sorted(args.data.glob("*.jsonl"))
        ]
        if published_files:
            from apps.catalog.importers.instances import published_compare

            report = published_compare(dataset=dataset, files=published_files)
            print("\ncompare_published (the reproduction report) on the same files:")
            print(json.dumps({k: v for k, v in report.as_dict(limit=0).items()
                              if k in ("published", "kasauti", "matched", "reasons")}))  # fmt: skip
        import_median = statistics.median(import_times)
        instantiate_median = statistics.median(instantiate_times)
        print(
            f"\nimport (parse, check, write {templates_created} templates): "
            f"median {import_median:.2f} s of {args.runs}"
        )
        print(f"instantiate ({total} instances): median {instantiate_median:.2f} s")
    if args.original:
        baseline = run_original(args.original)
        ours_total = import_median + instantiate_median
        print(
            f"Kasauti import + instantiate {ours_total:.1f} s vs BBQ's generator "
            f"{baseline:.1f} s: ratio {ours_total / baseline:.3f}"
        )


if __name__ == "__main__":
    main()
