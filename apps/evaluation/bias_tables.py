"""Read-only shaping of CrowS-Pairs, SEAT and IndiCASA results into table rows for the run
page (each kind's `results_context`, apps/evaluation/kinds.py) and CSV: no queries beyond the
run itself."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from typing import Any

from .models import EvaluationRun, ItemResult


def _cell(entry: dict | None) -> dict[str, Any]:
    entry = entry or {}
    return {
        "mean": entry.get("mean"),
        "std": entry.get("std"),
        "full": entry.get("full"),
        "n": entry.get("n", 0),
        # Runs whose random sample held at least one pair of the cell: the mean is over these.
        "n_runs": entry.get("n_runs"),
    }


def crows_table(results: dict) -> dict[str, Any]:
    """Table 2's layout: one row per bias type, one column per language, mean (± std)."""
    languages = sorted(results.get("by_language", {}))
    grid = results.get("by_language_bias_type", {})
    bias_types = sorted(results.get("by_bias_type", {}))
    rows = [
        {"bias_type": bt, "cells": [_cell(grid.get(lang, {}).get(bt)) for lang in languages]}
        for bt in bias_types
    ]
    return {
        "languages": languages,
        "rows": rows,
        "language_totals": [_cell(results["by_language"][lang]) for lang in languages],
        "overall": _cell(results.get("overall")),
        "runs": results.get("runs"),
        "fraction": results.get("fraction"),
        "sample_size": results.get("sample_size"),
        "pairs": results.get("pairs"),
        "unscorable": results.get("unscorable", 0),
    }


def seat_table(results: dict) -> dict[str, Any]:
    """One row per test (grouped by axis), one column per language: effect size and p."""
    tests = results.get("tests", [])
    languages = sorted({t["language"] for t in tests})
    by_key = {(t["name"], t["language"]): t for t in tests}
    names = list(dict.fromkeys(t["name"] for t in tests))
    axis_of = {t["name"]: t["axis"] for t in tests}
    rows = [
        {
            "name": name,
            "axis": axis_of[name],
            "cells": [by_key.get((name, lang)) for lang in languages],
        }
        for name in names
    ]
    return {"languages": languages, "rows": rows, "level": results.get("significance_level")}


def indicasa_train_table(results: dict) -> dict[str, Any]:
    """The encoder's Δsim by epoch and the MLP head's macro-F1, vanilla against contrastive
    (the paper's Table 4 comparison)."""
    mlp = results.get("mlp", {})
    categories = sorted(
        set(mlp.get("vanilla", {}).get("by_category", {}))
        | set(mlp.get("contrastive", {}).get("by_category", {}))
    )
    f1_rows = [
        {
            "category": c,
            "vanilla": mlp.get("vanilla", {}).get("by_category", {}).get(c, {}).get("macro_f1"),
            "contrastive": mlp.get("contrastive", {})
            .get("by_category", {})
            .get(c, {})
            .get("macro_f1"),
        }
        for c in categories
    ]
    return {
        "mode": "train",
        "history": results.get("history", []),
        "best_epoch": results.get("best_epoch"),
        "best_delta_sim": results.get("best_delta_sim"),
        "split": results.get("split", {}),
        "checkpoint": results.get("checkpoint"),
        "f1_rows": f1_rows,
        "f1_overall": {
            "vanilla": mlp.get("vanilla", {}).get("overall", {}).get("macro_f1"),
            "contrastive": mlp.get("contrastive", {}).get("overall", {}).get("macro_f1"),
        },
    }


def indicasa_generate_table(results: dict) -> dict[str, Any]:
    """Stereotype probability, bias score and skip ratio: overall, by category, by language."""
    rows = [{"label": "Overall", **(results.get("overall") or {})}]
    rows += [{"label": c, **v} for c, v in sorted((results.get("by_category") or {}).items())]
    rows += [
        {"label": f"Language: {lang}", **v}
        for lang, v in sorted((results.get("by_language") or {}).items())
    ]
    return {
        "mode": "generate",
        "rows": rows,
        "rounds": results.get("rounds"),
        "pairs": results.get("pairs"),
    }


# Each kind's run-page context (EvaluationKind.results_context): its table, none until the run
# has results.
def _context(run: EvaluationRun, table: Callable[[dict], dict[str, Any]]) -> dict | None:
    return {"table": table(run.results)} if run.results else None


def crows_results_context(*, run: EvaluationRun) -> dict[str, Any] | None:
    return _context(run, crows_table)


def seat_results_context(*, run: EvaluationRun) -> dict[str, Any] | None:
    return _context(run, seat_table)


def indicasa_train_results_context(*, run: EvaluationRun) -> dict[str, Any] | None:
    return _context(run, indicasa_train_table)


def indicasa_generate_results_context(*, run: EvaluationRun) -> dict[str, Any] | None:
    return _context(run, indicasa_generate_table)


def crows_run_metrics_csv(*, run: EvaluationRun) -> str:
    """A CrowS-Pairs run's metrics download (crows_metrics_csv of its results)."""
    return crows_metrics_csv(run.results or {})


# --- downloads of runs scored item by item (CrowS-Pairs, SEAT, IndiCASA) --------------------
ITEM_COLUMNS = ["item_key", "bias_type", "language"]


def item_result_rows(run: EvaluationRun) -> Iterator[dict[str, Any]]:
    """One dict per scored item (for a CrowS run: per pair, its sentences, both scores, the
    difference and whether the model preferred the stereotype), payload keys flattened."""
    items = ItemResult.objects.filter(run=run).order_by("id")
    for item in items.iterator(chunk_size=2000):
        yield {
            "item_key": item.item_key,
            "bias_type": item.category,
            "language": item.language,
            **item.payload,
        }


def item_results_csv(run: EvaluationRun) -> Iterator[str]:
    """The item rows as CSV, streamed; the columns are the union of the payloads' keys."""
    keys: dict[str, None] = dict.fromkeys(ITEM_COLUMNS)
    for payload in ItemResult.objects.filter(run=run).values_list("payload", flat=True):
        keys.update(dict.fromkeys(k for k in payload if isinstance(k, str)))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(keys), lineterminator="\n")
    writer.writeheader()
    for index, row in enumerate(item_result_rows(run)):
        writer.writerow({k: _csv_value(v) for k, v in row.items()})
        if index % 500 == 499:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def _csv_value(value: Any) -> Any:
    return "" if value is None else value


CROWS_METRIC_COLUMNS = ["scope", "language", "bias_type", "n", "n_runs", "runs"]


def crows_metrics_csv(results: dict) -> str:
    """CrowS-Pairs figures, one row per scope: overall, each bias type, each language, each
    language x bias type. `mean`/`std` are over the `n_runs` of `runs` samples that held
    pairs of the row; `all_pairs` on every pair; `run_1..` each sample's figure."""
    runs = results.get("runs") or 0
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        [*CROWS_METRIC_COLUMNS, "mean", "std", "all_pairs"] + [f"run_{i + 1}" for i in range(runs)]
    )

    def row(scope: str, language: str, bias_type: str, entry: dict | None) -> None:
        entry = entry or {}
        per_run = list(entry.get("per_run") or []) + [None] * runs
        writer.writerow(
            [scope, language, bias_type, entry.get("n"), entry.get("n_runs"), runs]
            + [_number(entry.get(k)) for k in ("mean", "std", "full")]
            + [_number(v) for v in per_run[:runs]]
        )

    row("overall", "(all)", "(all)", results.get("overall"))
    for bias_type, entry in sorted((results.get("by_bias_type") or {}).items()):
        row("bias_type", "(all)", bias_type, entry)
    for language, entry in sorted((results.get("by_language") or {}).items()):
        row("language", language, "(all)", entry)
    for language, cells in sorted((results.get("by_language_bias_type") or {}).items()):
        for bias_type, entry in sorted(cells.items()):
            row("language x bias_type", language, bias_type, entry)
    return buffer.getvalue()


def _number(value: Any) -> str:
    return "" if value is None else repr(float(value))
