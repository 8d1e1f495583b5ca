"""POST endpoints that start CrowS-Pairs, SEAT and IndiCASA runs: researchers only, input
validated, domain errors as a 400 naming the problem, nothing created on bad input."""

from __future__ import annotations

import pytest

from apps.catalog.models import SentencePair
from apps.evaluation.models import EvaluationRun, ModelEntry, ModelKind
from tests.factories import CategoryFactory, DatasetFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def dataset():
    dataset = DatasetFactory(name="ics")
    SentencePair.objects.create(
        dataset=dataset,
        external_id="1",
        category=CategoryFactory(name="gender"),
        direction="stereo",
        sent_more="He was excited.",
        sent_less="She was excited.",
    )
    return dataset


@pytest.fixture
def bert(tmp_path):
    return ModelEntry.objects.create(name="bert", kind=ModelKind.MASKED_LM, path=str(tmp_path))


def test_crows_run_is_created_with_its_job(researcher_client, dataset, bert):
    response = researcher_client.post(
        "/api/evaluation/crows/",
        {"dataset": dataset.pk, "model": bert.pk, "languages": ["en"], "seed": 3},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    run = EvaluationRun.objects.get(pk=body["id"])
    assert body["kind"] == "crows" and body["job"] == run.job_id
    assert run.params["seed"] == 3 and run.params["runs"] == 5
    assert run.job.kind == "evaluate_crows"


def test_domain_errors_are_400s_and_create_nothing(researcher_client, dataset, bert):
    empty = DatasetFactory(name="empty")
    response = researcher_client.post(
        "/api/evaluation/crows/", {"dataset": empty.pk, "model": bert.pk}, format="json"
    )
    assert response.status_code == 400 and "no sentence pairs" in response.content.decode()
    response = researcher_client.post(
        "/api/evaluation/indicasa/generate/",
        {"dataset": dataset.pk, "model": bert.pk},
        format="json",
    )
    assert response.status_code == 400 and "causal_lm" in response.content.decode()
    response = researcher_client.post(
        "/api/evaluation/indicasa/train/", {"dataset": dataset.pk, "loss": "hinge"}, format="json"
    )
    assert response.status_code == 400 and "loss" in response.json()
    response = researcher_client.post(
        "/api/evaluation/seat/", {"dataset": dataset.pk, "tests": ["No such test"]}, format="json"
    )
    assert response.status_code == 400 and "No such test" in response.content.decode()
    response = researcher_client.post(
        "/api/evaluation/crows/",
        {"dataset": dataset.pk, "model": bert.pk, "fraction": 2},
        format="json",
    )
    assert response.status_code == 400 and "fraction" in response.json()
    assert not EvaluationRun.objects.exists()


def test_seat_run_with_the_default_encoder(researcher_client, dataset):
    response = researcher_client.post(
        "/api/evaluation/seat/",
        {"dataset": dataset.pk, "languages": ["hi"], "tests": ["Hindu/ Muslim Names, N/V"]},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["model"] is None
    assert response.json()["model_label"] == "all-MiniLM-L6-v2 (default)"


def test_only_researchers_start_runs(annotator_client, anonymous_client, dataset, bert):
    for client in (annotator_client, anonymous_client):
        response = client.post(
            "/api/evaluation/crows/", {"dataset": dataset.pk, "model": bert.pk}, format="json"
        )
        assert response.status_code in (401, 403)
    assert not EvaluationRun.objects.exists()
