"""The whole path a user takes, on the hand-written rows of
tests/evaluation/metrics/test_reference_figures.py: published rows imported with
`import_benchmark`'s instance readers, predictions imported with `import_predictions`, figures
from `run_metrics --json` (its keys unchanged; EsBBQ's are diff_bias_a / diff_bias_d) equal to
what each benchmark's own code gives on them."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from apps.catalog.importers.instances import instances_import
from apps.catalog.importers.tables import ImportFile
from apps.catalog.models import Finding, Instance
from apps.evaluation.models import EvaluationRun
from tests.evaluation.metrics.test_reference_figures import (
    BBQ_ROWS,
    BHARAT_ROWS,
    ESBBQ_EXPECTED,
    ESBBQ_ROWS,
    bbq_jsonl,
    bharat_csv,
    esbbq_csv,
)

pytestmark = pytest.mark.django_db


def _run_metrics(*, fmt: str, name: str, text: str, answers: list[int], tmp_path) -> dict:
    report = instances_import(
        dataset_name=f"published {fmt}",
        fmt=fmt,
        files=[ImportFile(name, text.encode("utf-8"))],
    )
    ids = list(
        Instance.objects.filter(dataset__name=f"published {fmt}")
        .order_by("example_id")
        .values_list("source_id", flat=True)
    )
    assert len(ids) == len(answers) == report.created
    path = tmp_path / "predictions.csv"
    path.write_text(
        "example_id,prediction\n"
        + "".join(f"{i},{a}\n" for i, a in zip(ids, answers, strict=True)),
        encoding="utf-8",
    )
    out = io.StringIO()
    call_command(
        "import_predictions",
        "--dataset",
        f"published {fmt}",
        "--model",
        "hand",
        "--index-base",
        "0",
        "--json",
        str(path),
        stdout=out,
    )
    run_id = json.loads(out.getvalue())["run"]
    out = io.StringIO()
    call_command("run_metrics", str(run_id), "--json", stdout=out)
    metrics = json.loads(out.getvalue())
    assert set(metrics) == {"overall", "by_category"}
    return {"overall": metrics["overall"], **metrics["by_category"]}


def test_esbbq_run_metrics_equal_bias_score_py(tmp_path) -> None:
    figures = _run_metrics(
        fmt="esbbq-instances",
        name="Mixed.full.csv",
        text=esbbq_csv(),
        answers=[row[-1] for row in ESBBQ_ROWS],
        tmp_path=tmp_path,
    )
    for group, expected in ESBBQ_EXPECTED.items():
        for key, value in expected.items():
            assert figures[group][key] == pytest.approx(value, abs=1e-12), (group, key)
    assert figures["RaceEthnicity"]["n_roles_unclear"] == 0
    finding = Finding.objects.get(kind="likely-mislabel")
    assert (finding.file, finding.line, finding.field) == ("Mixed.full.csv", 12, "question_type")
    assert not Finding.objects.filter(kind="option-roles-unclear").exists()
    # Scored as the benchmark states it: the row's pairing is question_type's.
    mislabelled = Instance.objects.get(source_id="10")
    assert mislabelled.pairing == "stereotypical"


def test_bharatbbq_run_metrics_keep_proper_names(tmp_path) -> None:
    figures = _run_metrics(
        fmt="bharatbbq-instances",
        name="Region_examples.csv",
        text=bharat_csv(),
        answers=[row[-1] - 1 for row in BHARAT_ROWS],
        tmp_path=tmp_path,
    )
    # main.py's bias_scores / calculate_stereotypical_bias on all 13 rows (Kasauti keeps the
    # proper-name rows main.py's main() leaves out; the figures on the rows it keeps are in
    # test_reference_figures).
    expected = {"acc_a": 1 / 5, "acc_d": 4 / 8, "bs_a": 2 / 5, "bs_d": 1 / 7, "sbs_a": 3 / 5}
    expected["sbs_d"] = 2 / 4
    for key, value in expected.items():
        assert figures["overall"][key] == pytest.approx(value, abs=1e-12), key
        assert figures["Region"][key] == pytest.approx(value, abs=1e-12), key
    assert Finding.objects.filter(kind="likely-mislabel", field="Pairing").count() == 1
    # main.py main()'s figures only when asked for by name, and not stored on the run.
    run = EvaluationRun.objects.get()
    stored = run.results
    out = io.StringIO()
    call_command("run_metrics", str(run.pk), "--compat", "bharatbbq-main-py", "--json", stdout=out)
    compat = json.loads(out.getvalue())
    assert compat["compat"] == "bharatbbq-main-py" and compat["rows_scored"] == 8
    assert compat["overall"]["acc_d"] == pytest.approx(3 / 4)
    assert compat["overall"]["bs_d"] == pytest.approx(2 / 3)
    assert compat["overall"]["sbs_d"] == 0.0
    run.refresh_from_db()
    assert run.results == stored


def test_bbq_run_metrics_equal_lm_eval(tmp_path) -> None:
    figures = _run_metrics(
        fmt="bbq-instances",
        name="Mixed.jsonl",
        text=bbq_jsonl(),
        answers=[row[-1] for row in BBQ_ROWS],
        tmp_path=tmp_path,
    )
    overall = figures["overall"]
    assert overall["acc_a"] == pytest.approx(2 / 7) and overall["acc_d"] == pytest.approx(4 / 7)
    assert overall["s_amb"] == pytest.approx((1 - 2 / 7) * (2 * 3 / 5 - 1))
    assert overall["s_dis"] == pytest.approx(2 * 4 / 6 - 1)
    assert figures["Nationality"]["s_amb"] == pytest.approx(0.5)
