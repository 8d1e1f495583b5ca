"""The leaderboard API: rows (filters, ordering, pagination), the CSV of exactly those rows, heat
maps side by side, "evaluate every registered model" (one run per eligible model, each queued;
model-specific refusals skipped, common ones refuse all), the schema and permissions."""

from __future__ import annotations

import csv
import io
import json

import pytest

from apps.core.models import Job
from apps.evaluation import leaderboard
from apps.evaluation.metrics.bbq import METRIC_KEYS
from apps.evaluation.models import EvaluationRun, ModelEntry, ModelKind, PromptTemplate
from tests.evaluation.bbq_data import bbq_release
from tests.evaluation.test_leaderboard import complete_run, release_of, two_language_results

pytestmark = pytest.mark.django_db

URL = "/api/evaluation/leaderboard/"


@pytest.fixture
def board():
    release = release_of()
    complete_run(release=release, model_label="m1", results=two_language_results(0.5, 0.2, 0.3))
    complete_run(release=release, model_label="m2", results=two_language_results(0.9, None, -0.4))
    complete_run(
        release=release, model_label="m2", results=two_language_results(0.1, 0.1, 0.1), shots=2
    )
    return release


def test_rows_are_paginated_filtered_and_ordered(annotator_client, board):
    response = annotator_client.get(URL, {"language": "ta", "ordering": "-acc_a"})
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 3 and body["next"] is None
    assert [(r["model"], r["setting"], r["acc_a"]) for r in body["results"]] == [
        ("m1", "0-en", 0.2),
        ("m2", "2-en", 0.1),
        ("m2", "0-en", None),
    ]
    undefined = body["results"][-1]
    assert undefined["undefined"]["acc_a"].startswith("no ambiguous items")
    assert set(METRIC_KEYS) <= set(undefined) and undefined["n_amb"] == 0
    page = annotator_client.get(URL, {"ordering": "model", "limit": 2, "offset": 2}).json()
    assert page["count"] == 9 and len(page["results"]) == 2
    assert [(r["model"], r["language"]) for r in page["results"]] == [("m1", "ta"), ("m2", "all")]
    assert annotator_client.get(URL, {"setting": "2-en"}).json()["count"] == 3
    assert annotator_client.get(URL, {"model": "m1", "language": "hi"}).json()["count"] == 1


def test_bad_filters_are_400_with_the_reason(researcher_client, board):
    response = researcher_client.get(URL, {"ordering": "colour", "release": "abc"})
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert "ordering: 'colour'" in detail and "release: no release has the id 'abc'" in detail
    # A dataset by id or by name (docs/api.md, "Filters"); one that names nothing is a 400.
    by_name = researcher_client.get(URL, {"dataset": "board-data", "language": "all"}).json()
    assert by_name["count"] == 3
    unknown = researcher_client.get(URL, {"dataset": "no-such-data"})
    assert unknown.status_code == 400
    assert "no dataset has the id or name 'no-such-data'" in unknown.json()["detail"]
    csv_response = researcher_client.get(URL + "download/", {"setting": "9-en"})
    assert csv_response.status_code == 400


def test_the_csv_download_is_the_filtered_and_ordered_rows(annotator_client, board):
    params = {"release": board.pk, "language": "hi", "ordering": "-acc_a"}
    response = annotator_client.get(URL + "download/", params)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="leaderboard.csv"' in response["Content-Disposition"]
    text = response.content.decode()
    expected = leaderboard.leaderboard_table(query=leaderboard.leaderboard_query(params))
    assert text == leaderboard.leaderboard_csv(expected)
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert [(r["model"], r["acc_a"]) for r in parsed] == [
        ("m2", "0.9"),
        ("m1", "0.5"),
        ("m2", "0.1"),
    ]
    listed = annotator_client.get(URL, params).json()["results"]
    assert [r["run"] for r in listed] == [int(r["run"]) for r in parsed]


def test_heat_maps_api(annotator_client, board):
    first, second = EvaluationRun.objects.filter(shots=0).order_by("id")
    response = annotator_client.get(
        URL + "heatmaps/", {"runs": f"{first.pk},{second.pk}", "metric": "acc_a"}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["metric"] == "acc_a" and body["label"] == "Acc_A" and body["signed"] is False
    assert [r["run"] for r in body["runs"]] == [first.pk, second.pk]
    caste = body["runs"][1]["rows"][0]
    assert caste["category"] == "Caste"
    assert [(c["language"], c["value"]) for c in caste["cells"]] == [("hi", 0.9), ("ta", None)]
    assert caste["cells"][1]["undefined"].startswith("no ambiguous items")
    assert caste["cells"][0]["undefined"] is None and caste["cells"][0]["n"] == 8
    signed = annotator_client.get(URL + "heatmaps/", {"runs": first.pk, "metric": "bs_a"}).json()
    assert signed["signed"] is True and len(signed["runs"]) == 1
    bad = annotator_client.get(URL + "heatmaps/", {"runs": f"{first.pk},x"})
    assert bad.status_code == 400 and "not a run id" in bad.json()["detail"]
    missing = annotator_client.get(URL + "heatmaps/", {"runs": "999999", "metric": "acc_a"})
    assert missing.status_code == 400


def test_the_schema_documents_the_leaderboard(anonymous_client):
    schema = anonymous_client.get("/api/schema/?format=json").json()
    paths = schema["paths"]
    listed = paths["/api/evaluation/leaderboard/"]["get"]
    names = {p["name"] for p in listed["parameters"]}
    assert {"dataset", "release", "model", "language", "setting", "ordering", "limit"} <= names
    page = listed["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert page.endswith("PaginatedLeaderboardRowList")
    row = schema["components"]["schemas"]["LeaderboardRow"]["properties"]
    assert set(METRIC_KEYS) <= set(row) and row["acc_a"]["nullable"] is True
    assert "n_amb" in row and "undefined" in row
    assert (
        "text/csv"
        in paths["/api/evaluation/leaderboard/download/"]["get"]["responses"]["200"]["content"]
    )
    heat = paths["/api/evaluation/leaderboard/heatmaps/"]["get"]["responses"]["200"]
    assert heat["content"]["application/json"]["schema"]["$ref"].endswith("LeaderboardHeatMaps")
    post = paths["/api/evaluation/leaderboard/evaluate-all/"]["post"]
    assert set(post["responses"]) >= {"202", "400", "403"}
    assert "EvaluateAllInput" in json.dumps(post["requestBody"])


def test_who_reads_and_who_evaluates(annotator_client, outsider_client, anonymous_client, board):
    assert annotator_client.get(URL).status_code == 200
    assert outsider_client.get(URL).status_code == 403
    assert anonymous_client.get(URL).status_code in (401, 403)
    response = annotator_client.post(URL + "evaluate-all/", {"release": board.pk}, format="json")
    assert response.status_code == 403
    assert outsider_client.post(URL + "evaluate-all/", {"release": board.pk}).status_code == 403
    assert EvaluationRun.objects.count() == 3


# --- evaluate every registered model -------------------------------------------------------


@pytest.fixture
def registry(tiny_gpt2_dir, tmp_path, settings):
    """A real tiny causal LM, an endpoint on an allowed host, a masked LM, and a causal LM whose
    directory is missing."""
    settings.KASAUTI_MODEL_ROOT = tmp_path
    settings.KASAUTI_EVAL_ENDPOINT_HOSTS = ["vllm.internal:8000"]
    return {
        "gpt2": ModelEntry.objects.create(
            name="tiny-gpt2", kind=ModelKind.CAUSAL_LM, path=str(tiny_gpt2_dir)
        ),
        "endpoint": ModelEntry.objects.create(
            name="served",
            kind=ModelKind.ENDPOINT,
            endpoint_url="http://vllm.internal:8000/v1",
            endpoint_model="served",
        ),
        "bert": ModelEntry.objects.create(
            name="a-bert", kind=ModelKind.MASKED_LM, path=str(tiny_gpt2_dir)
        ),
        "gone": ModelEntry.objects.create(
            name="gone", kind=ModelKind.CAUSAL_LM, path="not/copied/yet"
        ),
    }


def test_evaluate_all_makes_one_run_per_eligible_model_and_skips_the_rest(
    researcher_client, registry, tmp_path, django_capture_on_commit_callbacks
):
    release = bbq_release()
    with django_capture_on_commit_callbacks() as callbacks:
        response = researcher_client.post(
            URL + "evaluate-all/",
            {"release": release.pk, "shots": 2, "instruction_language": "target"},
            format="json",
        )
    assert response.status_code == 202, response.json()
    body = response.json()
    created = {r["model_label"]: r for r in body["created"]}
    assert set(created) == {"tiny-gpt2", "served"}
    runs = EvaluationRun.objects.order_by("id")
    assert [r.model_id for r in runs] == [registry["endpoint"].pk, registry["gpt2"].pk]
    for run in runs:
        assert (run.kind, run.release_id, run.shots, run.instruction_language) == (
            "bbq_mc",
            release.pk,
            2,
            "target",
        )
        assert run.job.kind == "evaluate" and run.job.status == Job.Status.QUEUED
        assert run.prompt_text["hi"]["name"] == "bharatbbq-hi-2shot"
        assert created[run.model_label]["id"] == run.pk
        assert created[run.model_label]["status"] == "queued"
    assert len(callbacks) == 2  # each run's job is sent to the broker once its row commits
    skipped = {s["model_name"]: s["reason"] for s in body["skipped"]}
    assert set(skipped) == {"a-bert", "gone"}
    assert "masked language model" in skipped["a-bert"]
    assert str(tmp_path / "not" / "copied" / "yet") in skipped["gone"]
    assert "README.md#getting-the-model-weights" in skipped["gone"]


def test_a_second_click_skips_the_models_whose_runs_are_still_going(researcher_client, registry):
    release = bbq_release()
    first = researcher_client.post(URL + "evaluate-all/", {"release": release.pk}, format="json")
    assert first.status_code == 202 and len(first.json()["created"]) == 2
    again = researcher_client.post(URL + "evaluate-all/", {"release": release.pk}, format="json")
    assert again.status_code == 400
    assert "is still queued" in again.json()["detail"]
    assert EvaluationRun.objects.count() == 2
    # Another setting is another run.
    other = researcher_client.post(
        URL + "evaluate-all/", {"release": release.pk, "shots": 2}, format="json"
    )
    assert other.status_code == 202 and EvaluationRun.objects.count() == 4


@pytest.mark.parametrize(
    ("release_args", "body", "message"),
    [
        ({"conditions": ("ambig",)}, {}, "no disambiguated contexts"),
        (
            {},
            {"instruction_language": "target", "shots": 0, "_drop_hindi": True},
            "instruction in hi",
        ),
    ],
)
def test_a_refusal_common_to_every_model_starts_nothing(
    researcher_client, registry, release_args, body, message, django_capture_on_commit_callbacks
):
    release = bbq_release(**release_args)
    if body.pop("_drop_hindi", False):
        PromptTemplate.objects.filter(instruction_language="hi").delete()
    with django_capture_on_commit_callbacks() as callbacks:
        response = researcher_client.post(
            URL + "evaluate-all/", {"release": release.pk, **body}, format="json"
        )
    assert response.status_code == 400
    assert response.json()["detail"].startswith("nothing was started: ")
    assert message in response.json()["detail"]
    assert not EvaluationRun.objects.exists() and not Job.objects.exists()
    assert callbacks == []


def test_no_eligible_model_is_a_400_naming_each_reason(researcher_client, tmp_path, settings):
    settings.KASAUTI_MODEL_ROOT = tmp_path
    ModelEntry.objects.create(name="gone", kind=ModelKind.CAUSAL_LM, path="nowhere")
    release = bbq_release()
    response = researcher_client.post(URL + "evaluate-all/", {"release": release.pk})
    assert response.status_code == 400
    assert "no registered model can be evaluated" in response.json()["detail"]
    assert "gone: model directory for 'gone' does not exist" in response.json()["detail"]
    bad = researcher_client.post(URL + "evaluate-all/", {"release": release.pk, "shots": 1})
    assert bad.status_code == 400 and "shots" in bad.json()
    assert not EvaluationRun.objects.exists()
