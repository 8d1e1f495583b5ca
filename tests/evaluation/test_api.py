"""Evaluation API: the model registry, run creation, reads, permissions, schema."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from django.utils import timezone

from apps.core.models import Job
from apps.evaluation.models import EvaluationRun, ModelEntry, ModelKind, Prediction
from tests.conftest import PASSWORD
from tests.evaluation.bbq_data import bbq_release

pytestmark = pytest.mark.django_db


@pytest.fixture
def model_dir(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    return tmp_path


def test_researchers_register_update_and_delete_models(researcher_client, model_dir, settings):
    settings.KASAUTI_MODEL_ROOT = model_dir.parent
    url = reverse("evaluation-model-list")
    created = researcher_client.post(
        url, {"name": "tiny", "kind": "causal_lm", "path": str(model_dir)}, format="json"
    )
    assert created.status_code == 201, created.content
    entry = created.json()
    assert entry["created_by"] == "rekha" and entry["dtype"] == "float32"
    again = researcher_client.post(url, {"name": "tiny", "kind": "causal_lm", "path": "x"})
    assert again.status_code == 409 and "already exists" in again.json()["detail"]
    detail = reverse("evaluation-model-detail", args=[entry["id"]])
    patched = researcher_client.patch(detail, {"device": "cuda:0"}, format="json")
    assert patched.status_code == 200 and patched.json()["device"] == "cuda:0"
    assert researcher_client.get(url).json()["results"][0]["name"] == "tiny"
    assert researcher_client.delete(detail).status_code == 204
    assert not ModelEntry.objects.exists()


def test_an_endpoint_needs_its_url_and_a_local_model_its_path(researcher_client):
    url = reverse("evaluation-model-list")
    response = researcher_client.post(url, {"name": "e", "kind": "endpoint"}, format="json")
    assert response.status_code == 400 and "endpoint_url" in response.json()["detail"]
    response = researcher_client.post(url, {"name": "l", "kind": "causal_lm"}, format="json")
    assert response.status_code == 400 and "needs a path" in response.json()["detail"]


def test_annotators_read_but_do_not_write_and_outsiders_do_neither(
    annotator_client, outsider_client, anonymous_client
):
    url = reverse("evaluation-model-list")
    assert annotator_client.get(url).status_code == 200
    assert (
        annotator_client.post(url, {"name": "x", "kind": "causal_lm", "path": "x"}).status_code
        == 403
    )
    assert annotator_client.post(reverse("evaluation-run-list"), {}).status_code == 403
    assert outsider_client.get(url).status_code == 403
    assert outsider_client.get(reverse("evaluation-run-list")).status_code == 403
    assert anonymous_client.get(reverse("evaluation-run-list")).status_code in (401, 403)


def test_a_run_is_started_over_the_api(researcher_client, model_dir):
    release = bbq_release()
    model = ModelEntry.objects.create(name="tiny", kind=ModelKind.CAUSAL_LM, path=str(model_dir))
    response = researcher_client.post(
        reverse("evaluation-run-list"),
        {"release": release.pk, "model": model.pk, "shots": 2, "instruction_language": "target"},
        format="json",
    )
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["status"] == "queued" and body["job_status"] == "queued"
    assert body["shots"] == 2 and body["release_number"] == 1
    run = EvaluationRun.objects.get(pk=body["id"])
    assert run.prompt_text["hi"]["name"] == "bharatbbq-hi-2shot"
    listed = researcher_client.get(reverse("evaluation-run-list"), {"kind": "bbq_mc"}).json()
    assert [r["id"] for r in listed["results"]] == [run.pk]


def test_bad_run_requests_are_400_with_the_reason(researcher_client, tmp_path):
    release = bbq_release(conditions=("ambig",))
    model = ModelEntry.objects.create(name="m", kind=ModelKind.CAUSAL_LM, path=str(tmp_path))
    url = reverse("evaluation-run-list")
    missing = researcher_client.post(url, {"release": release.pk, "model": 999999}, format="json")
    assert missing.status_code == 400 and "model" in missing.json()
    (tmp_path / "config.json").write_text("{}")
    no_dis = researcher_client.post(url, {"release": release.pk, "model": model.pk})
    assert no_dis.status_code == 400
    assert "no disambiguated contexts" in no_dis.json()["detail"]
    assert not EvaluationRun.objects.exists()


def test_reads_of_a_run_predictions_compare_and_downloads(researcher_client):
    release = bbq_release(languages=("en",), categories=("Caste",))
    run = EvaluationRun.objects.create(
        kind="imported",
        # A run's status is its job's (succeeded: complete).
        job=Job.objects.create(kind="import_predictions", status=Job.Status.SUCCEEDED),
        dataset=release.dataset,
        release=release,
        model_label="elsewhere",
        results={"overall": {"acc_a": 0.5, "n_amb": 2, "n_dis": 2}},
    )
    instances = list(release.dataset.instances.order_by("id"))
    Prediction.objects.bulk_create(
        Prediction(run=run, instance=i, item_key=i.source_id, chosen=i.label) for i in instances
    )
    detail = researcher_client.get(reverse("evaluation-run-detail", args=[run.pk])).json()
    assert detail["overall"]["acc_a"] == 0.5 and detail["model_label"] == "elsewhere"
    page = researcher_client.get(
        reverse("evaluation-run-predictions", args=[run.pk]), {"limit": 3}
    ).json()
    assert page["count"] == 4 and len(page["results"]) == 3
    assert page["results"][0]["category"] == "Caste"
    download = reverse("evaluation-run-download", args=[run.pk])
    csv_response = researcher_client.get(download, {"what": "predictions", "as": "csv"})
    assert csv_response["Content-Type"].startswith("text/csv")
    lines = b"".join(csv_response.streaming_content).decode().splitlines()
    assert lines[0].startswith("instance_id,item_key,category") and len(lines) == 5
    as_json = researcher_client.get(download, {"what": "metrics", "as": "json"})
    assert json.loads(as_json.content)["overall"]["acc_a"] == 0.5
    bad = researcher_client.get(download, {"what": "everything"})
    assert bad.status_code == 400
    compare = reverse("evaluation-run-compare")
    both = researcher_client.get(compare, {"runs": f"{run.pk},{run.pk}"}).json()
    assert [r["id"] for r in both["runs"]] == [run.pk, run.pk]
    assert both["overall"][0]["values"] == [0.5, 0.5]
    assert researcher_client.get(compare, {"runs": "x"}).status_code == 400
    assert researcher_client.get(compare, {"runs": "987654"}).status_code == 400
    assert researcher_client.get(reverse("evaluation-run-detail", args=[987654])).status_code == 404


def test_the_schema_documents_the_evaluation_api(researcher_client):
    schema = researcher_client.get(reverse("api-schema"), {"format": "json"}).json()
    paths = schema["paths"]
    for path in (
        "/api/evaluation/models/",
        "/api/evaluation/runs/",
        "/api/evaluation/runs/{id}/predictions/",
        "/api/evaluation/runs/{id}/metrics/",
        "/api/evaluation/runs/{id}/download/",
        "/api/evaluation/runs/compare/",
        "/api/evaluation/runs/import/",
    ):
        assert path in paths, sorted(p for p in paths if "evaluation" in p)


def test_run_status_comes_from_the_job_and_filters_on_it(researcher_client):
    """queued / running / complete from the job; a failed or cancelled job's run is partial
    with predictions, failed without; ?status= selects the same runs."""
    release = bbq_release(languages=("en",), categories=("Caste",))
    instance = release.dataset.instances.order_by("id").first()
    states = {
        "queued": (Job.Status.QUEUED, False),
        "running": (Job.Status.RUNNING, True),
        "complete": (Job.Status.SUCCEEDED, True),
        "partial": (Job.Status.CANCELLED, True),
        "failed": (Job.Status.FAILED, False),
    }
    runs = {}
    for expected, (job_status, scored) in states.items():
        finished = timezone.now() if job_status in Job.FINISHED else None
        job = Job.objects.create(
            kind="evaluate", status=job_status, error="boom" * scored, finished_at=finished
        )
        run = EvaluationRun.objects.create(
            kind="bbq_mc", job=job, dataset=release.dataset, model_label=expected
        )
        if scored:
            Prediction.objects.create(run=run, instance=instance, chosen=0)
        runs[expected] = run
    url = reverse("evaluation-run-list")
    for expected, run in runs.items():
        detail = researcher_client.get(reverse("evaluation-run-detail", args=[run.pk])).json()
        assert detail["status"] == expected, (expected, detail)
        listed = researcher_client.get(url, {"status": expected}).json()["results"]
        assert [row["id"] for row in listed] == [run.pk], expected
    assert researcher_client.get(url, {"status": "nonsense"}).status_code == 400
    partial = researcher_client.get(reverse("evaluation-run-detail", args=[runs["partial"].pk]))
    assert partial.json()["error"] == "boom" and partial.json()["finished_at"]
    queued = researcher_client.get(reverse("evaluation-run-detail", args=[runs["queued"].pk]))
    assert queued.json()["error"] == "" and queued.json()["finished_at"] is None


def test_listing_runs_reads_their_status_without_a_query_per_run(
    researcher_client, client, researcher, django_assert_max_num_queries
):
    release = bbq_release(languages=("en",), categories=("Caste",))
    for index in range(12):
        job = Job.objects.create(kind="evaluate", status=Job.Status.FAILED, error="stopped")
        EvaluationRun.objects.create(
            kind="bbq_mc", job=job, dataset=release.dataset, model_label=f"m{index}"
        )
    url = reverse("evaluation-run-list")
    researcher_client.get(url)  # the session and permissions are loaded once
    with django_assert_max_num_queries(6):
        rows = researcher_client.get(url, {"limit": 50}).json()["results"]
    assert len(rows) == 12 and {row["status"] for row in rows} == {"failed"}
    assert client.login(username=researcher.username, password=PASSWORD)
    client.get(reverse("evaluation:runs"))
    with django_assert_max_num_queries(8):
        page = client.get(reverse("evaluation:runs"))
    assert page.status_code == 200, page.status_code
    assert page.content.count(b"badge run-failed") == 12, page.content.decode()[:3000]
