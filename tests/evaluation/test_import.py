"""Importing predictions made elsewhere: matching, counting, hand-computed metrics, commands,
the API, and refusal of malformed files with nothing written."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

pytest.importorskip("apps.evaluation.metrics.bbq")

from apps.evaluation.models import EvaluationRun, Prediction  # noqa: E402
from tests.evaluation.bbq_data import bbq_dataset  # noqa: E402

pytestmark = pytest.mark.django_db

# Caste, English, two copies (bbq_data): copy 0 is a stereotypical pairing (NP) with options
# [stereotyped "The farmer", non-stereotyped "The banker", unknown]; copy 1 an
# anti-stereotypical one (NNP) with options [non-stereotyped, unknown, stereotyped].
# Items in order: copy 0 ambig neg/nonneg, disambig neg/nonneg, then copy 1 the same.
# Answers below are 1-based indices or option text.
PREDICTIONS = """example_id,prediction
cas-0,"the FARMER."
cas-1,3
cas-2,1
cas-3,The farmer
cas-4,2
cas-5,  The   Banker
cas-6,3
cas-7,Cannot be determined!
nope-1,1
3,1
rel-0,maybe
"""
# Hand-computed from BharatBBQ eqs. 1-6 and BBQ's definitions:
# ambiguous: farmer(S, neg), unknown, unknown, banker(NS, non-neg) -> Acc_A 2/4,
#   BS_A (1 - 1)/4, SBS_A (1 S_neg + 1 NS_non-neg)/4; BBQ s_AMB: both non-unknown answers are
#   biased -> 2*(2/2)-1 = 1, times (1 - 0.5) = 0.5.
# disambiguated: NP neg correct, NP non-neg wrong (farmer), NNP neg wrong (farmer), NNP non-neg
#   unknown -> Acc_D 1/4, BS_D (1 - 0)/3 non-unknown, SBS_D (1 S_neg(NNP) + 0)/2 NNP items;
#   BBQ s_DIS: biased answers farmer/neg twice of 3 non-unknown -> 2*(2/3)-1 = 1/3.
EXPECTED = {
    "n_amb": 4,
    "n_dis": 4,
    "acc_a": 0.5,
    "acc_d": 0.25,
    "bs_a": 0.0,
    "bs_d": 1 / 3,
    "sbs_a": 0.5,
    "sbs_d": 0.5,
    "s_amb": 0.5,
    "s_dis": 1 / 3,
}


@pytest.fixture
def dataset():
    return bbq_dataset(languages=("en",), categories=("Caste", "Religion"), copies=2)


@pytest.fixture
def prediction_file(tmp_path):
    path = tmp_path / "preds.csv"
    path.write_text(PREDICTIONS, encoding="utf-8")
    return path


def _call(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_import_counts_lists_and_scores_like_a_run(dataset, prediction_file):
    output = _call(
        "import_predictions",
        "--dataset",
        dataset.name,
        "--model",
        "paper-outputs",
        "--index-base",
        "1",
        "--json",
        str(prediction_file),
    )
    counts = json.loads(output)
    run = EvaluationRun.objects.get()
    assert counts == {"run": run.pk, "matched": 8, "unmatched": 2, "unparseable": 1}
    assert run.kind == "imported" and run.status == "complete"
    assert run.model_label == "paper-outputs"
    reasons = {entry["id"]: entry["reason"] for entry in run.report["unmatched_ids"]}
    assert reasons["nope-1"] == "no item has this id"
    assert "2 items have this id" in reasons["3"] and "Caste, Religion" in reasons["3"]
    assert run.report["unparseable_answers"][0]["answer"] == "maybe"
    # The unparseable answer is kept (without a choice), counted apart by the metrics.
    assert Prediction.objects.filter(run=run).count() == 9
    assert Prediction.objects.get(run=run, item_key="rel-0").chosen is None

    metrics = json.loads(_call("run_metrics", str(run.pk), "--json"))
    assert set(metrics) == {"overall", "by_category"}
    for key, value in EXPECTED.items():
        assert metrics["overall"][key] == pytest.approx(value), key
    assert metrics["overall"]["n_unanswered"] == 1
    # Religion has only the unparseable answer: counted, in no denominator.
    religion = metrics["by_category"]["Religion"]
    assert religion["n_unanswered"] == 1 and religion["n_amb"] == religion["n_dis"] == 0
    assert religion["acc_a"] is None and "acc_a" in religion["undefined"]
    assert metrics["by_category"]["Caste"]["acc_d"] == pytest.approx(0.25)


def test_a_category_column_resolves_ids_shared_across_categories(dataset, tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(row)
            for row in (
                {"example_id": 3, "category": "Religion", "prediction": 0},
                {"example_id": 3, "category": "caste", "prediction": "The farmer"},
            )
        )
    )
    counts = json.loads(
        _call("import_predictions", "--dataset", dataset.name, "--model", "m", "--json", str(path))
    )
    assert counts["matched"] == 2 and counts["unmatched"] == 0


def test_a_malformed_file_writes_nothing_and_says_where(dataset, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("example_id,prediction,logprobs\ncas-0,1,\ncas-1,1,[1]\n")
    with pytest.raises(CommandError, match=r"bad.csv:3: logprobs"):
        _call("import_predictions", "--dataset", dataset.name, "--model", "m", str(path))
    twice = tmp_path / "twice.csv"
    twice.write_text("example_id,prediction\ncas-0,1\ncas-0,2\n")
    with pytest.raises(CommandError, match=r"twice.csv:3: example_id: item 'cas-0' was already"):
        _call("import_predictions", "--dataset", dataset.name, "--model", "m", str(twice))
    assert not EvaluationRun.objects.exists() and not Prediction.objects.exists()
    with pytest.raises(CommandError, match="no dataset named 'nope'"):
        _call("import_predictions", "--dataset", "nope", "--model", "m", str(path))


def test_logprobs_choose_when_no_answer_is_given(dataset, tmp_path):
    path = tmp_path / "lp.csv"
    path.write_text('example_id,prediction,logprobs\ncas-0,,"[-3, -1, -2]"\n')
    _call("import_predictions", "--dataset", dataset.name, "--model", "m", str(path))
    prediction = Prediction.objects.get()
    assert prediction.chosen == 1 and prediction.sum_logprobs == [-3.0, -1.0, -2.0]


def test_the_api_imports_a_file(researcher_client, annotator_client, dataset, prediction_file):
    url = reverse("evaluation-run-import")
    with open(prediction_file, "rb") as handle:
        refused = annotator_client.post(
            url, {"file": handle, "dataset": dataset.pk, "model": "m"}, format="multipart"
        )
    assert refused.status_code == 403
    with open(prediction_file, "rb") as handle:
        response = researcher_client.post(
            url,
            {"file": handle, "dataset": dataset.pk, "model": "m", "index_base": 1},
            format="multipart",
        )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["report"]["matched"] == 8 and body["overall"]["acc_a"] == 0.5
    bad = io.BytesIO(b"id,prediction\n1,2\n")
    bad.name = "bad.csv"
    rejected = researcher_client.post(
        url, {"file": bad, "dataset": dataset.pk, "model": "m"}, format="multipart"
    )
    assert rejected.status_code == 400
    assert rejected.json()["problems"][0]["field"] == "example_id"
    assert EvaluationRun.objects.count() == 1


def test_the_run_page_shows_metrics_heat_maps_and_the_import_report(
    client, researcher, dataset, prediction_file
):
    from tests.conftest import PASSWORD

    _call(
        "import_predictions",
        "--dataset",
        dataset.name,
        "--model",
        "m",
        "--index-base",
        "1",
        str(prediction_file),
    )
    run = EvaluationRun.objects.get()
    client.login(username=researcher.username, password=PASSWORD)
    page = client.get(reverse("evaluation:run", args=[run.pk])).content.decode()
    for label in ("Acc_A", "Acc_D", "BS_A", "BS_D", "SBS_A", "SBS_D"):
        assert f'data-metric="{label}"' in page
    assert page.count("<svg") == 6 and 'id="metrics-table"' in page
    assert 'id="import-report"' in page and "nope-1" in page and "maybe" in page
    csv_text = client.get(
        reverse("evaluation-run-download", args=[run.pk]), {"what": "metrics", "as": "csv"}
    ).content.decode()
    assert csv_text.splitlines()[1].startswith("(all),(all),(all),4,4,0.5,0.25")
