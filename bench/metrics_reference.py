"""Kasauti's BBQ-style metrics against each benchmark's own reference code, on every published
row of local checkouts, with seeded predictions.

    python bench/metrics_reference.py --bbq NYU_BBQ --esbbq ESBBQ_CABBQ --bharatbbq BHARATBBQ
        [--seed 0] [--tolerance 1e-9]

NYU_BBQ: a checkout of nyu-mll/BBQ (data/*.jsonl); ESBBQ_CABBQ: langtech-bsc/EsBBQ-CaBBQ
(bias_score.py, data_es/ and data_ca/ *.full.csv); BHARATBBQ: sahoonihar/BharatBBQ
(Metrics/main.py, BharatBBQ_Dataset/Examples/*_examples.csv, Metrics/Example_Predictions/).
Any of the three may be left out. Run by hand; not part of the test suite; needs no database
(the published files are parsed by Kasauti's own instance readers, the items built by the
same function `run_metrics` uses, `apps.evaluation.services.metrics.bbq_item`).

For every benchmark and two seeded prediction sets ("uniform": each option with probability
1/3; "leaning": the stereotypical option half of the time, else uniform) it computes
Kasauti's figures (apps.evaluation.metrics.bbq) and the reference code's on the same rows, and
prints per figure the largest |Kasauti - reference| over overall and every category:

* BBQ: lm-evaluation-harness's bbq `utils` (the installed lm_eval package): `process_docs` on
  the local docs, `process_results_multiple_choice` with the chosen option's log-likelihood
  highest, the task's aggregation functions over all docs and over each category's docs.
  acc_a/acc_d/s_amb/s_dis vs accuracy_amb/accuracy_disamb/amb_bias_score/disamb_bias_score.
* EsBBQ / CaBBQ: `bias_score.get_scores` from the checkout (harness-style records, the chosen
  option's log-likelihood highest). acc_a/acc_d/diff_bias_a/diff_bias_d and both bounds vs
  acc_ambig/acc_disambig/bias_score_ambig/bias_score_disambig/upper_bound_bias_*.
* BharatBBQ: `Metrics/main.py`'s `bias_scores` and `calculate_stereotypical_bias` called
  directly (unrounded) on the Examples rows in the columns main.py reads (Context_Condition,
  Question_Polarity Neg/NonNeg, Options with keys option1..3, 1-based Label/Target/prediction).
  main.py drops Proper_Noun == 1 rows before scoring: Kasauti is compared on the same rows, and
  its figure over all rows (Kasauti keeps them) is printed beside. main.py recognises the
  unknown option only by its capitalised phrase ("Can't answer"), as its own predictions file
  writes it; the Examples files write them in lower case, so the bench capitalises the first
  letter of those options (with lower-case phrases main.py finds no unknown option and its
  bs_d denominator is 0). main.py's `main()` also drops consecutive disambiguated row pairs
  whose predictions are identical before scoring; Kasauti keeps the paper's equations 2, 4, 6.
  That step is measured apart on BharatBBQ's own published predictions
  (Metrics/Example_Predictions/Age_examples.csv, models' *_op columns), where Kasauti's named
  compatibility option (`run_metrics --compat bharatbbq-main-py`, `main_py_rows`) must give
  main()'s figures.
"""

from __future__ import annotations

import argparse
import ast
import csv
import importlib.util
import io
import json
import os
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kasauti.settings.test")
    import django

    django.setup()


def load_module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- Kasauti's side ----------------------------------------------------------------------------


def kasauti_records(fmt: str, paths: list[Path]):
    """Every published row as Kasauti's reader parses it (file order), and its findings."""
    from apps.catalog.importers import ImportFile, format_get
    from apps.catalog.importers.layouts import InstanceParse

    parse = InstanceParse()
    for path in paths:
        format_get(name=fmt).reader().read(ImportFile(path.name, path.read_bytes()), parse)
    if parse.problems:
        raise SystemExit(f"{fmt}: {len(parse.problems)} problems, first {parse.problems[0]}")
    return parse


def kasauti_items(records, predictions: list[int]):
    from apps.evaluation.services.metrics import bbq_item

    items = []
    for record, chosen in zip(records, predictions, strict=True):
        v = record.values
        items.append(
            bbq_item(
                category=v["category"],
                language=record.language,
                context_condition=v["context_condition"],
                question_polarity=v["question_polarity"],
                noun_form=v["noun_form"],
                proper_noun=v["proper_noun"],
                label=v["label"],
                option_roles=v["option_roles"],
                pairing=v["pairing"],
                prediction=chosen,
            )
        )
    return items


def kasauti_figures(items) -> dict[str, dict]:
    from apps.evaluation.metrics.bbq import bbq_results

    results = bbq_results(items)
    return {"overall": results["overall"], **results["by_category"]}


def seeded_predictions(records, seed: int, name: str, mode: str) -> list[int]:
    """uniform: any option; leaning: the stereotypical option half of the time."""
    rng = random.Random(f"{seed}:{name}:{mode}")
    out = []
    for record in records:
        v = record.values
        if mode == "leaning" and rng.random() < 0.5:
            want = "stereotyped" if v["question_polarity"] == "neg" else "non_stereotyped"
            if want in v["option_roles"]:
                out.append(v["option_roles"].index(want))
                continue
        out.append(rng.randrange(3))
    return out


def compare(name: str, ours: dict, theirs: dict, pairs: list[tuple[str, str]], tol: float):
    """Print the largest difference per figure over overall and every category."""
    worst_all = 0.0
    print(f"\n{name}: {len(theirs) - 1} categories")
    print(f"  {'Kasauti':<18} {'reference':<28} {'max |diff|':>11}  overall K / ref")
    for ours_key, their_key in pairs:
        worst = 0.0
        for group, figures in theirs.items():
            ref = figures.get(their_key)
            mine = ours[group][ours_key]
            if ref is None or mine is None or ref != ref:  # NaN: the reference's "undefined"
                if not (mine is None and (ref is None or ref != ref)):
                    print(f"    {group}: {ours_key} {mine} vs {their_key} {ref}")
                    worst = float("inf")
                continue
            worst = max(worst, abs(mine - float(ref)))
        worst_all = max(worst_all, worst)
        o, r = ours["overall"][ours_key], theirs["overall"].get(their_key)
        shown = f"{o:.12f} / {float(r):.12f}" if o is not None and r is not None else f"{o} / {r}"
        flag = "" if worst <= tol else "   <-- DIFFERS"
        print(f"  {ours_key:<18} {their_key:<28} {worst:11.2e}  {shown}{flag}")
    return worst_all


# --- BBQ: lm-evaluation-harness --------------------------------------------------------------


def bench_bbq(checkout: Path, seed: int, tol: float) -> float:
    import datasets
    import numpy as np
    from lm_eval.tasks.bbq import utils

    datasets.disable_progress_bars()
    paths = sorted((checkout / "data").glob("*.jsonl"))
    parse = kasauti_records("bbq-instances", paths)
    rows = []
    for path in paths:
        rows += [line for line in path.read_text(encoding="utf-8").splitlines() if line]
    docs = utils.process_docs(datasets.Dataset.from_list([json.loads(r) for r in rows]))
    print(f"\nBBQ: {len(docs)} rows from {len(paths)} files: {', '.join(p.stem for p in paths)}")
    worst = 0.0
    for mode in ("uniform", "leaning"):
        predictions = seeded_predictions(parse.records, seed, "bbq", mode)
        ours = kasauti_figures(kasauti_items(parse.records, predictions))
        per_cat = defaultdict(list)
        everything = []
        for doc, chosen in zip(docs, predictions, strict=True):
            choices = utils.doc_to_choice(doc)
            lls = [-1.0] * len(choices)
            lls[choices.index(doc[f"ans{chosen}"])] = 0.0
            metrics = utils.process_results_multiple_choice(doc, [(ll, False) for ll in lls])
            per_cat[doc["category"]].append(metrics)
            everything.append(metrics)

        def aggregate(results):
            return {
                "accuracy_amb": utils.agg_accuracy_amb([m["accuracy_amb"] for m in results]),
                "accuracy_disamb": utils.agg_accuracy_disamb(
                    [m["accuracy_disamb"] for m in results]
                ),
                "amb_bias_score": utils.agg_amb_bias_scores([m["amb_bias_score"] for m in results]),
                "disamb_bias_score": utils.agg_disamb_bias_scores(
                    [m["disamb_bias_score"] for m in results]
                ),
                "acc": float(np.mean([m["acc"] for m in results])),
            }

        theirs = {"overall": aggregate(everything)}
        for category, results in per_cat.items():
            theirs[category] = aggregate(results)
            # The full run's per-category entries must say the same.
            full_amb = utils.agg_amb_bias_scores(
                [m[f"amb_bias_score_{category}"] for m in everything]
            )
            full_dis = utils.agg_disamb_bias_scores(
                [m[f"disamb_bias_score_{category}"] for m in everything]
            )
            assert abs(full_amb - theirs[category]["amb_bias_score"]) < 1e-12
            assert abs(full_dis - theirs[category]["disamb_bias_score"]) < 1e-12
        worst = max(
            worst,
            compare(
                f"BBQ ({mode}) vs lm-eval bbq utils",
                ours,
                theirs,
                [
                    ("acc_a", "accuracy_amb"),
                    ("acc_d", "accuracy_disamb"),
                    ("s_amb", "amb_bias_score"),
                    ("s_dis", "disamb_bias_score"),
                ],
                tol,
            ),
        )
    return worst


# --- EsBBQ / CaBBQ: bias_score.py ------------------------------------------------------------


def bench_esbbq(checkout: Path, seed: int, tol: float) -> float:
    reference = load_module("esbbq_bias_score", checkout / "bias_score.py")
    worst = 0.0
    for language, fmt in (("es", "esbbq-instances"), ("ca", "cabbq-instances")):
        paths = sorted((checkout / f"data_{language}").glob("*.full.csv"))
        parse = kasauti_records(fmt, paths)
        kinds = defaultdict(int)
        for finding in parse.findings:
            kinds[finding.kind] += 1
        docs = []
        for path in paths:
            for row in csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))):
                docs.append(
                    {
                        "label": int(row["label"]),
                        "category": row["category"],
                        "context_condition": row["context_condition"],
                        "question_polarity": row["question_polarity"],
                        "question_type": row["question_type"],
                        "stereotyped_groups": ast.literal_eval(row["stereotyped_groups"]),
                        "answer_info": {
                            f"ans{i}": ast.literal_eval(row[f"answer_info.ans{i}"])
                            for i in range(3)
                        },
                    }
                )
        print(f"\n{fmt}: {len(docs)} rows, {len(paths)} files; Kasauti's findings: {dict(kinds)}")
        for mode in ("uniform", "leaning"):
            predictions = seeded_predictions(parse.records, seed, fmt, mode)
            ours = kasauti_figures(kasauti_items(parse.records, predictions))
            records = defaultdict(list)
            for doc, chosen in zip(docs, predictions, strict=True):
                lls = [-1.0, -1.0, -1.0]
                lls[chosen] = 0.0
                record = {"doc": doc, "filtered_resps": [[str(ll), False] for ll in lls]}
                records["overall"].append(record)
                records[doc["category"]].append(record)
            theirs = {group: reference.get_scores(rs) for group, rs in records.items()}
            worst = max(
                worst,
                compare(
                    f"{fmt} ({mode}) vs bias_score.py",
                    ours,
                    theirs,
                    [
                        ("acc_a", "acc_ambig"),
                        ("acc_d", "acc_disambig"),
                        ("diff_bias_a", "bias_score_ambig"),
                        ("diff_bias_d", "bias_score_disambig"),
                        ("diff_bias_a_bound", "upper_bound_bias_ambig"),
                        ("diff_bias_d_bound", "upper_bound_bias_disambig"),
                    ],
                    tol,
                ),
            )
    return worst


# --- BharatBBQ: Metrics/main.py --------------------------------------------------------------

MAIN_PY_PAIRS = [
    ("acc_a", "acc_amb"),
    ("acc_d", "acc_disamb"),
    ("bs_a", "bias_score_amb"),
    ("bs_d", "bias_score_disamb"),
    ("sbs_a", "stereotypical_bias_amb"),
    ("sbs_d", "stereotypical_bias_disamb"),
]


def main_py_figures(reference, df, column: str) -> dict[str, float]:
    acc_amb, acc_disamb, _, _, bs_amb, bs_disamb = reference.bias_scores(df, column)
    sbs_amb, sbs_disamb = reference.calculate_stereotypical_bias(df, column)
    return {
        "acc_amb": acc_amb,
        "acc_disamb": acc_disamb,
        "bias_score_amb": bs_amb,
        "bias_score_disamb": bs_disamb,
        "stereotypical_bias_amb": sbs_amb,
        "stereotypical_bias_disamb": sbs_disamb,
    }


def main_py_frame(records, predictions: list[int]):
    """The rows in the columns main.py reads (its predictions file's layout)."""
    import pandas as pd

    from apps.catalog.benchmarks.bharatbbq.generator import UNKNOWN_ANSWERS

    def shown(text: str) -> str:
        return text[:1].upper() + text[1:] if text.casefold() in UNKNOWN_ANSWERS else text

    rows = []
    for record, chosen in zip(records, predictions, strict=True):
        v = record.values
        meta = v["additional_metadata"]["extra"]
        options = [v["ans0"], v["ans1"], v["ans2"]]
        rows.append(
            {
                "Category": v["category"],
                "Context_Condition": "amb" if v["context_condition"] == "ambig" else "disamb",
                "Question_Polarity": "Neg" if v["question_polarity"] == "neg" else "NonNeg",
                "Pairing": "biased" if v["pairing"] == "stereotypical" else "anti",
                "Proper_Noun": {"proper_name": 1, "group_label": 2}.get(v["noun_form"], 0),
                "Options": {f"option{i + 1}": shown(options[i]) for i in range(3)},
                "Label": v["label"] + 1,
                "Target": int(meta["Target"]),
                "pred": chosen + 1,
            }
        )
    return pd.DataFrame(rows)


def bench_bharatbbq(checkout: Path, seed: int, tol: float) -> float:
    reference = load_module("bharatbbq_main", checkout / "Metrics" / "main.py")
    paths = sorted((checkout / "BharatBBQ_Dataset" / "Examples").glob("*_examples.csv"))
    parse = kasauti_records("bharatbbq-instances", paths)
    kinds = defaultdict(int)
    for finding in parse.findings:
        kinds[finding.kind] += 1
    print(f"\nBharatBBQ: {len(parse.records)} rows, {len(paths)} files; findings: {dict(kinds)}")
    worst = 0.0
    for mode in ("uniform", "leaning"):
        predictions = seeded_predictions(parse.records, seed, "bharatbbq", mode)
        items = kasauti_items(parse.records, predictions)
        kept = [i for i in items if i.noun_type != "proper"]  # main.py drops Proper_Noun == 1
        ours = kasauti_figures(kept)
        df = main_py_frame(parse.records, predictions)
        df = df[df["Proper_Noun"] != 1]
        theirs = {"overall": main_py_figures(reference, df, "pred")}
        for category, part in df.groupby("Category"):
            theirs[category] = main_py_figures(reference, part, "pred")
        print(f"  ({mode}) rows main.py scores: {len(df)} of {len(items)} (Proper_Noun == 1 out)")
        worst = max(
            worst,
            compare(f"BharatBBQ ({mode}) vs main.py", ours, theirs, MAIN_PY_PAIRS, tol),
        )
        everything = kasauti_figures(items)["overall"]
        print(
            "  Kasauti over all rows (proper names kept): "
            + ", ".join(f"{k} {everything[k]:.6f}" for k, _ in MAIN_PY_PAIRS)
        )
    return worst


def bench_bharatbbq_published(checkout: Path) -> float:
    """main.py's pair-dropping step, on BharatBBQ's own published Age predictions."""
    import pandas as pd

    reference = load_module("bharatbbq_main", checkout / "Metrics" / "main.py")
    path = checkout / "Metrics" / "Example_Predictions" / "Age_examples.csv"
    if not path.exists():
        return 0.0
    raw = pd.read_csv(path)
    # The same rows in the Examples layout, parsed by Kasauti's reader.
    out = io.StringIO()
    names = ["Qid", "Context_type", "Context", "Question", "Question_polarity", "Option1"]
    names += ["Option2", "Option3", "Options", "Label", "Target", "Pairing", "Proper_Noun"]
    names += ["Category", "id"]
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(names)
    for _, row in raw.iterrows():
        options = ast.literal_eval(row["Options"])
        texts = [options[f"option{i}"] for i in (1, 2, 3)]
        writer.writerow(
            [row["Qid"], row["Context_Condition"], row["Context"], row["Question"]]
            + ["neg" if row["Question_Polarity"] == "Neg" else "non-neg", *texts]
            + [repr({f"Option{i + 1}": texts[i] for i in range(3)}), row["Label"]]
            + [row["Target"], row["Pairing"], row["Proper_Noun"], row["Category"], row["id"]]
        )
    from apps.catalog.importers import ImportFile, format_get
    from apps.catalog.importers.layouts import InstanceParse

    parse = InstanceParse()
    format_get(name="bharatbbq-instances").reader().read(
        ImportFile("Age_examples.csv", out.getvalue().encode()), parse
    )
    assert not parse.problems, parse.problems[:3]
    columns = [c for c in raw.columns if c.endswith("_op")]
    print(f"\nBharatBBQ published Age predictions ({len(raw)} rows): {', '.join(columns)}")
    print(
        f"  {'model':<20} {'kept by main()':>15}  "
        "figure: Kasauti (eqs.) / main.py bias_scores / main() / Kasauti --compat"
    )
    from apps.evaluation.metrics.bbq import main_py_rows

    worst = 0.0
    for column in columns:
        predictions = [int(p) - 1 for p in raw[column]]
        items = kasauti_items(parse.records, predictions)
        ours = kasauti_figures([i for i in items if i.noun_type != "proper"])["overall"]
        compat = kasauti_figures(main_py_rows(items))["overall"]
        df = raw.copy()
        df["Options"] = df["Options"].apply(ast.literal_eval)
        direct = main_py_figures(reference, df[df["Proper_Noun"] != 1], column)
        # main()'s own steps, in its order: drop identical disambiguated pairs, proper names.
        data = []
        for idx in range(0, len(raw), 2):
            if idx + 1 >= len(raw):
                break
            a, b = raw.iloc[idx], raw.iloc[idx + 1]
            if a[column] == b[column] and a["Context_Condition"] == "disamb":
                continue
            data.extend([a, b])
        flow = pd.DataFrame(data)
        kept = len(flow)
        flow = flow[flow["Proper_Noun"] != 1].copy()
        flow["Options"] = flow["Options"].apply(ast.literal_eval)
        script = main_py_figures(reference, flow, column)
        print(f"  {column:<20} {kept:>6} of {len(raw)}")
        for ours_key, their_key in MAIN_PY_PAIRS:
            worst = max(
                worst,
                abs(ours[ours_key] - direct[their_key]),
                abs(compat[ours_key] - script[their_key]),
            )
            print(
                f"      {ours_key:<6} {ours[ours_key]:+.6f} / {direct[their_key]:+.6f} / "
                f"{script[their_key]:+.6f} / {compat[ours_key]:+.6f}"
            )
    print(f"  largest difference (equations vs bias_scores, --compat vs main()): {worst:.2e}")
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bbq", type=Path)
    parser.add_argument("--esbbq", type=Path)
    parser.add_argument("--bharatbbq", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tolerance", type=float, default=1e-9)
    args = parser.parse_args()
    setup_django()
    started = time.perf_counter()
    worst = {}
    if args.bbq:
        worst["BBQ"] = bench_bbq(args.bbq, args.seed, args.tolerance)
    if args.esbbq:
        worst["EsBBQ/CaBBQ"] = bench_esbbq(args.esbbq, args.seed, args.tolerance)
    if args.bharatbbq:
        worst["BharatBBQ"] = bench_bharatbbq(args.bharatbbq, args.seed, args.tolerance)
        published = bench_bharatbbq_published(args.bharatbbq)
        worst["BharatBBQ"] = max(worst["BharatBBQ"], published)
    print(f"\nlargest difference per benchmark (tolerance {args.tolerance:g}):")
    for name, value in worst.items():
        print(f"  {name:<12} {value:.2e} {'ok' if value <= args.tolerance else 'DIFFERS'}")
    print(f"({time.perf_counter() - started:.0f} s)")
    if any(value > args.tolerance for value in worst.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
