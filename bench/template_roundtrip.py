"""Write back in the benchmark's own layout, on the real files: import, instantiate, export
(`export_templates`' service), import the export into a NEW dataset, instantiate, and compare.

Per benchmark it prints:
  * Kasauti round trip: the instances of the original import and of the re-imported export,
    every content column (apps.catalog.exporters.roundtrip_columns), count, identical rows, the
    first difference;
  * against the published instances: EsBBQ / CaBBQ: the re-imported export rendered as the
    published `data_<l>/<Category>.full.csv` rows (bench/esbbq_reproduce.py's comparison),
    byte for byte; BharatBBQ: the count per category against the issue's 54,048;
  * the benchmark's OWN generator on the exported files against its output on the original
    files: EsBBQ's generate_instances.py (in a scratch copy: its category list is taken from
    the *.xlsx names, as the published script's regex finds none), BharatBBQ's notebook code
    cells (create_examples.ipynb cells 1, 3, 4, executed, random.seed(0) before each file);
    BBQ's generate_from_template_*.py (unchanged, random seeded at start-up in both runs:
    they draw unseeded);
  * times: export (median of RUNS) against the import of the same files (median of RUNS,
    measured in the same run: the baseline), with the load average.

Run: python bench/template_roundtrip.py [--only esbbq,cabbq,bharatbbq,bbq] [--runs 3]
     (reads /work/ref/EsBBQ-CaBBQ, /work/ref/BharatBBQ, /work/ref/BBQ; PostgreSQL on 127.0.0.1)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from _db import bench_database

ESBBQ = Path("/work/ref/EsBBQ-CaBBQ")
BHARATBBQ = Path("/work/ref/BharatBBQ/BharatBBQ_Dataset")
BBQ = Path("/work/ref/BBQ/templates")
GOALS = {"esbbq": 27320, "bharatbbq": 54048}


def files_of(paths):
    from apps.catalog.importers import ImportFile

    return [ImportFile(path.name, path.read_bytes()) for path in paths]


def import_and_instantiate(name: str, fmt: str, files, **options):
    from apps.catalog.benchmarks.esbbq import script
    from apps.catalog.importers import benchmark_import
    from apps.catalog.models import Dataset
    from apps.catalog.services import dataset_instantiate

    script.generate_cache_clear()  # cold, as the original import was
    started = time.perf_counter()
    benchmark_import(dataset_name=name, fmt=fmt, files=files, **options)
    imported = time.perf_counter() - started
    dataset = Dataset.objects.get(name=name)
    dataset_instantiate(dataset=dataset)
    return dataset, imported


def compare_rows(label: str, ours: list, theirs: list) -> bool:
    identical = sum(1 for a, b in zip(ours, theirs, strict=False) if a == b)
    print(f"  {label}: original {len(theirs)}, round trip {len(ours)}, identical {identical}")
    for a, b in zip(ours, theirs, strict=False):
        if a != b:
            print(f"    first difference:\n      round trip: {a}\n      original:   {b}")
            break
    return identical == len(ours) == len(theirs)


def roundtrip(
    key: str, fmt: str, layout: str, paths: list[Path], runs: int, **options
) -> tuple[object, object, Path]:
    """Import RUNS times (the baseline), export RUNS times, re-import the export; returns
    (original dataset, round-trip dataset, export directory)."""
    from apps.catalog.exporters import dataset_templates_export, export_write, roundtrip_rows

    files = files_of(paths)
    import_times = []
    original = None
    for run in range(runs):
        dataset, seconds = import_and_instantiate(f"{key}-{run}", fmt, files, **options)
        import_times.append(seconds)
        original = original or dataset
    export_times = []
    exported = []
    for _ in range(runs):
        started = time.perf_counter()
        exported = dataset_templates_export(dataset=original, fmt=layout)
        export_times.append(time.perf_counter() - started)
    directory = Path(tempfile.mkdtemp(prefix=f"export-{key}-"))
    written = export_write(files=exported, directory=directory)
    templates = [p for p in written if p.suffix in (".csv", ".xlsx")]
    again, _ = import_and_instantiate(f"{key}-roundtrip", fmt, files_of(templates), **options)
    print(f"\n== {key}: {len(paths)} files -> export of {len(written)} files ({directory})")
    ok = compare_rows(
        "Kasauti instances (every content column)",
        roundtrip_rows(dataset=again),
        roundtrip_rows(dataset=original),
    )
    export_s, import_s = statistics.median(export_times), statistics.median(import_times)
    print(
        f"  export (median of {runs}): {export_s:.2f} s; baseline import of the same files "
        f"(median of {runs}): {import_s:.2f} s; ratio export / import {export_s / import_s:.2f}; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    print(f"  round trip {'IDENTICAL' if ok else 'DIFFERS'}")
    return original, again, directory


# --- EsBBQ / CaBBQ ------------------------------------------------------------------------------


def esbbq(language: str, runs: int) -> None:
    import esbbq_reproduce

    fmt = {"es": "esbbq", "ca": "cabbq"}[language]
    esbbq_reproduce.REPO = ESBBQ
    paths = sorted((ESBBQ / "templates").glob("*.xlsx"))
    _, again, directory = roundtrip(fmt, fmt, "esbbq", paths, runs)
    published, generated, identical = esbbq_reproduce.compare(language, again)
    goal = GOALS["esbbq"] if language == "es" else published
    print(
        f"  {fmt} round trip against the published data_{language}: {identical} of {published} "
        f"byte-identical (goal {goal}): {'OK' if identical == goal == generated else 'MISMATCH'}"
    )
    own_generator(language, directory / "templates")


TEXT_MODULE = Path(__file__).resolve().parent.parent / "apps/catalog/benchmarks/esbbq/text.py"
SHIM = """import importlib.util

_spec = importlib.util.spec_from_file_location("esbbq_text", {text!r})
_text = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_text)


def sent_tokenize(text, language="spanish"):
    return _text.sentences(text)
"""


def own_generator(language: str, exported: Path) -> None:
    """EsBBQ's generate_instances.py on the original and on the exported templates/."""
    outputs = {}
    for label, templates in (("original", ESBBQ / "templates"), ("exported", exported)):
        scratch = Path(tempfile.mkdtemp(prefix=f"esbbq-own-{label}-"))

        shutil.copytree(templates, scratch / "templates")
        # utils.py splits sentences with NLTK's Spanish Punkt model, which this machine does not
        # have (and may not download): both runs use Kasauti's reproduction of it instead
        # (apps/catalog/benchmarks/esbbq/text.py `sentences`), the only other change.
        utils = (ESBBQ / "utils.py").read_text(encoding="utf-8")
        assert "from nltk.tokenize import sent_tokenize\n" in utils
        utils = utils.replace(
            "from nltk.tokenize import sent_tokenize\n", "from nltk_shim import sent_tokenize\n"
        )
        (scratch / "utils.py").write_text(utils, encoding="utf-8")
        (scratch / "nltk_shim.py").write_text(SHIM.format(text=str(TEXT_MODULE)), encoding="utf-8")
        script = (ESBBQ / "generate_instances.py").read_text(encoding="utf-8")
        # The published regex looks for esbbq_<cat>_ca_gl.xlsx, which the repository no longer
        # has: take the categories from the workbook names instead (the only change).
        script = script.replace(
            'all_categories = sorted([re.match(r"esbbq_(\\w+)_ca_gl.xlsx", fn).group(1) for fn '
            'in os.listdir("templates") if fn.startswith("esbbq_")])',
            'all_categories = sorted(fn[:-5] for fn in os.listdir("templates") if '
            'fn.endswith(".xlsx") and not fn.startswith("vocabulary"))',
        )
        assert "fn[:-5]" in script, "generate_instances.py changed: update the patch"
        (scratch / "generate_instances.py").write_text(script, encoding="utf-8")
        (scratch / f"data_{language}").mkdir()
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "generate_instances.py", "--language", language,
             "--output-formats", "csv", "jsonl"],
            cwd=scratch, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        seconds = time.perf_counter() - started
        outputs[label] = {
            p.name: p.read_bytes() for p in sorted((scratch / f"data_{language}").iterdir())
        }
        print(f"  EsBBQ's own generator on the {label} templates: {seconds:.1f} s")
        shutil.rmtree(scratch)
    same = [n for n in outputs["original"] if outputs["exported"].get(n) == outputs["original"][n]]
    lines = sum(
        data.count(b"\n") - 1 for n, data in outputs["original"].items() if n.endswith(".csv")
    )
    print(
        f"  EsBBQ's own generator: {len(same)} of {len(outputs['original'])} output files "
        f"byte-identical between original and exported templates ({lines} CSV rows)"
    )
    for name in outputs["original"]:
        if name in same:
            continue
        a = outputs["original"][name].decode().splitlines()
        b = outputs["exported"].get(name, b"").decode().splitlines()
        first = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
        print(f"    {name}: {len(a)} vs {len(b)} lines; first difference at line {first}")
        if first is not None:
            print(f"      original: {a[first][:300]}\n      exported: {b[first][:300]}")


# --- BharatBBQ ----------------------------------------------------------------------------------


def notebook(paths: list[Path]) -> dict[str, object]:
    """create_examples.ipynb's code cells 1, 3 and 4, executed as published, on each file:
    Category -> its examples (a DataFrame; random.seed(0) before each file)."""
    import pandas as pd

    cells = json.loads((BHARATBBQ / "create_examples.ipynb").read_text(encoding="utf-8"))["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    namespace: dict = {}
    for index in (0, 2, 3):  # imports, UNKNOWN_ANSWERS, the functions
        exec("".join(code[index]["source"]), namespace)  # noqa: S102 - the benchmark's own code
    out = {}
    for path in paths:
        frame = pd.read_csv(path)
        random.seed(0)
        out[str(frame["Category"].iloc[0]).strip()] = namespace["generate_examples"](frame)
    return out


def example_keys(examples) -> Counter:
    """The notebook's examples without what it draws at random (the unknown phrase, the option
    order and so the label indexes): id, context type and text, question, polarity, the two
    named options, the correct and the target answer's text, pairing, proper noun."""
    unknowns = {"can't answer", "unknown", "not enough info", "not enough information",
                "cannot answer", "can't be determined"}  # fmt: skip
    keys: Counter = Counter()
    for row in examples.itertuples(index=False):
        options = [row.Option1, row.Option2, row.Option3]
        named = tuple(sorted(str(o) for o in options if o not in unknowns))
        correct = "unknown" if row.Context_type == "amb" else str(options[row.Label - 1])
        keys[(str(row.Qid), row.Context_type, row.Context, row.Question, row.Question_polarity,
              named, correct, str(options[row.Target - 1]), str(row.Pairing).strip().lower(),
              row.Proper_Noun)] += 1  # fmt: skip
    return keys


def bharatbbq(runs: int) -> None:
    from apps.catalog.services import instantiation_plan

    paths = sorted((BHARATBBQ / "Templates").glob("*.csv"))
    original, again, directory = roundtrip("bharatbbq", "bharatbbq", "bharatbbq", paths, runs)
    total = instantiation_plan(dataset=again).total
    print(
        f"  re-imported export: {total} instances (goal {GOALS['bharatbbq']}): "
        f"{'OK' if total == GOALS['bharatbbq'] else 'MISMATCH'}"
    )
    theirs = notebook(paths)
    ours = notebook(sorted((directory / "BharatBBQ_Dataset" / "Templates").glob("*.csv")))
    rows = sum(len(frame) for frame in theirs.values())
    exact = [c for c in theirs if c in ours and ours[c].to_csv() == theirs[c].to_csv()]
    same = [c for c in theirs if c in ours and example_keys(ours[c]) == example_keys(theirs[c])]
    print(
        f"  BharatBBQ's notebook on the exported files: {len(same)} of {len(theirs)} categories "
        f"give the same examples as on the original files ({rows} examples; compared without "
        f"its unseeded draws); {len(exact)} byte-identical with the same seed"
    )
    for category in theirs:
        if category in same:
            continue
        a, b = (
            example_keys(theirs[category]),
            example_keys(ours.get(category, theirs[category][:0])),
        )
        only_a, only_b = list((a - b).items())[:1], list((b - a).items())[:1]
        print(f"    {category}: {sum(a.values())} vs {sum(b.values())} examples; "
              f"only original: {only_a}; only exported: {only_b}")  # fmt: skip


def bbq(runs: int) -> None:
    paths = sorted(BBQ.glob("*.csv"))
    _, _, directory = roundtrip("bbq", "bbq", "bbq", paths, runs, seed=0)
    runs_of = (("original", BBQ), ("again", BBQ), ("exported", directory / "templates"))
    outputs = {label: bbq_own(templates) for label, templates in runs_of}
    original, exported = outputs["original"], outputs["exported"]
    # BBQ's scripts are not reproducible even with random seeded and PYTHONHASHSEED fixed
    # (two runs on the same original files differ in some files): those are left out.
    stable = [n for n in original if outputs["again"].get(n) == original[n]]
    same = [n for n in stable if exported.get(n) == original[n]]
    lines = sum(original[n].count(b"\n") for n in stable)
    print(
        f"  BBQ's own generator (random.seed(0), PYTHONHASHSEED=0): {len(stable)} of "
        f"{len(original)} data/*.jsonl files are reproducible between two runs on the original "
        f"files; of those, {len(same)} byte-identical on the exported templates ({lines} "
        f"instances); not reproducible: {', '.join(n for n in original if n not in stable)}"
    )
    for name in stable:
        if name not in same:
            a = original[name].decode().splitlines()
            b = exported.get(name, b"").decode().splitlines()
            diffs = [(x, y) for x, y in zip(a, b, strict=False) if x != y]
            keys = Counter(
                k for x, y in diffs for k, v in json.loads(x).items() if json.loads(y).get(k) != v
            )
            print(f"    {name}: {len(a)} vs {len(b)} lines, {len(diffs)} differ; differing "
                  f"fields: {dict(keys)}")  # fmt: skip


def bbq_own(templates: Path) -> dict[str, bytes]:
    """BBQ's two generator scripts, unchanged, on `templates` (laid out as bbq_reproduce.py
    lays them out), with the random module seeded at start-up (they draw unseeded)."""
    bbq_root = BBQ.parent
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "BBQ_Full").mkdir()
        (root / "BBQ_Full" / "__init__.py").write_text("")
        (root / "BBQ_Full" / "utils.py").symlink_to(bbq_root / "utils.py")
        (root / "BBQ_full").mkdir()
        (root / "BBQ_full" / "templates").symlink_to(templates.resolve())
        (root / "BBQ_full" / "data").mkdir()
        (root / "sitecustomize.py").write_text("import random\nrandom.seed(0)\n")
        env = {**os.environ, "PYTHONPATH": str(root), "PYTHONHASHSEED": "0"}
        for script in (
            "generate_from_template_all_categories.py",
            "generate_from_template_intersectional_cats.py",
        ):
            quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
            subprocess.run([sys.executable, str(bbq_root / script)], cwd=root, env=env,
                           check=True, **quiet)  # fmt: skip
        return {p.name: p.read_bytes() for p in sorted((root / "BBQ_full" / "data").iterdir())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="esbbq,cabbq,bharatbbq,bbq")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    only = set(args.only.split(","))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    with bench_database("kasauti_bench_roundtrip"):
        if "esbbq" in only:
            esbbq("es", args.runs)
        if "cabbq" in only:
            esbbq("ca", args.runs)
        if "bharatbbq" in only:
            bharatbbq(args.runs)
        if "bbq" in only:
            bbq(args.runs)


if __name__ == "__main__":
    main()
