"""CrowS-Pairs runs: the table shows n and says exactly what each cell averages over (the runs
whose sample held pairs of that cell); predictions downloads are the per-pair scores, and
metrics.csv has CrowS's own layout."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.urls import reverse

from apps.evaluation.metrics.crows import PairScore, crows_scores
from apps.evaluation.models import EvaluationRun, ItemResult, RunKind
from tests.evaluation.test_bias_results_sections import make_run, render

pytestmark = pytest.mark.django_db

PAIRS = [
    PairScore("1", "gender", "en", "stereo", 0.0, -1.0),
    PairScore("2", "gender", "en", "antistereo", 0.0, -1.0),
    PairScore("3", "gender", "hi", "stereo", -1.0, 0.0),
    PairScore("4", "caste", "hi", "stereo", 0.0, -1.0),
    PairScore("5", "caste", "hi", "stereo", 0.0, -2.0),
]


def crows_run() -> EvaluationRun:
    results = crows_scores(PAIRS, runs=5, fraction=0.4, seed=3) | {"pairs": 5, "unscorable": 0}
    run = make_run(RunKind.CROWS, results)
    for pair in PAIRS:
        ItemResult.objects.create(
            run=run,
            item_key=f"{pair.pair_id}:{pair.language}",
            category=pair.bias_type,
            language=pair.language,
            payload={
                "direction": pair.direction,
                "sent_more": f"more {pair.pair_id} — हिंदी",
                "sent_less": f"less {pair.pair_id}",
                "score_more": pair.score_more,
                "score_less": pair.score_less,
                "difference": pair.score_more - pair.score_less,
                "prefers_stereotype": pair.score_more > pair.score_less,
            },
        )
    return run


def test_cells_show_n_and_how_many_runs_they_average():
    run = crows_run()
    cells = run.results["by_language_bias_type"]
    partial = [
        (lang, bt, c) for lang, row in cells.items() for bt, c in row.items() if c["n_runs"] < 5
    ]
    assert partial, "the seed should leave some cell out of some samples"
    html = render(run)
    table = html.split('id="crows-table"')[1].split("</table>")[0]
    for _lang, _bt, cell in partial:
        assert f"{cell['n_runs']}/5 runs" in table
    visible = re.sub(r"<[^>]+>", " ", table.split("</thead>")[1])  # not in a tooltip
    assert "n = 2" in visible and "n = 3" in visible
    assert "whose sample" in html  # the caption says what a cell is the mean of


def test_predictions_downloads_are_the_per_pair_scores(researcher_client):
    run = crows_run()
    url = reverse("evaluation-run-download", args=[run.pk])
    response = researcher_client.get(url, {"what": "predictions", "as": "csv"})
    text = b"".join(response.streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 5
    assert rows[0]["item_key"] == "1:en" and rows[0]["bias_type"] == "gender"
    assert rows[0]["sent_more"] == "more 1 — हिंदी" and float(rows[0]["difference"]) == 1.0
    body = json.loads(researcher_client.get(url, {"what": "predictions", "as": "json"}).content)
    assert len(body["predictions"]) == 5 and body["predictions"][2]["language"] == "hi"


def test_metrics_csv_has_the_crows_layout(researcher_client):
    run = crows_run()
    url = reverse("evaluation-run-download", args=[run.pk])
    text = researcher_client.get(url, {"what": "metrics", "as": "csv"}).content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0])[:4] == ["scope", "language", "bias_type", "n"]
    assert "n_amb" not in text
    overall = rows[0]
    assert overall["scope"] == "overall" and overall["n"] == "5"
    assert float(overall["all_pairs"]) == pytest.approx(run.results["overall"]["full"])
    cell = next(
        r for r in rows if r["scope"] == "language x bias_type" and r["bias_type"] == "caste"
    )
    assert cell["language"] == "hi" and cell["n"] == "2"
    assert int(cell["n_runs"]) == run.results["by_language_bias_type"]["hi"]["caste"]["n_runs"]
    assert {r["scope"] for r in rows} == {
        "overall",
        "bias_type",
        "language",
        "language x bias_type",
    }
