"""Evaluate every model with the task broker down: each run commits and is sent on its own, so
an unreachable broker fails the run it was sending and stops the batch there; nothing is left
queued that was never sent. The broker is real: the project's Celery settings pointed at a
loopback port nobody listens on (tests/core/test_broker_down.py's fixture)."""

from __future__ import annotations

import pytest

from apps.core.models import Job
from apps.evaluation.models import EvaluationRun, ModelEntry, ModelKind, RunStatus
from tests.core.test_broker_down import broker_down  # noqa: F401 (a fixture)
from tests.evaluation.bbq_data import bbq_release

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

URL = "/api/evaluation/leaderboard/evaluate-all/"


@pytest.fixture
def three_models(tmp_path):
    (tmp_path / "config.json").write_text('{"model_type": "gpt2"}')
    return [
        ModelEntry.objects.create(name=name, kind=ModelKind.CAUSAL_LM, path=str(tmp_path))
        for name in ("a-model", "b-model", "c-model")
    ]


def test_a_broker_down_at_the_first_run_is_a_503_and_that_run_failed(
    researcher_client,
    three_models,
    broker_down,  # noqa: F811
):
    release = bbq_release()
    response = researcher_client.post(URL, {"release": release.pk}, format="json")
    assert response.status_code == 503
    assert "task broker" in response.json()["detail"]
    run = EvaluationRun.objects.get()  # the first model's; the others were not attempted
    assert run.model == three_models[0] and run.status == RunStatus.FAILED
    assert run.job.status == Job.Status.FAILED and broker_down in run.job.error


def test_a_broker_lost_midway_reports_what_was_started_and_skips_the_rest(
    researcher_client, three_models, monkeypatch
):
    """The first run reaches the test broker; then the broker is gone (the fixture's
    unreachable app for every later send)."""
    from celery import Celery, current_app

    from tests.core.test_broker_down import closed_port
    from tests.workers import purge_test_broker

    working = current_app._get_current_object()
    url = f"redis://127.0.0.1:{closed_port()}/0"
    down = Celery("kasauti-broker-lost", set_as_current=False)
    down.config_from_object("django.conf:settings", namespace="CELERY")
    down.conf.broker_url = down.conf.result_backend = url
    sends = []

    def app():
        sends.append(1)
        return working if len(sends) == 1 else down

    monkeypatch.setattr("apps.core.services.celery_app", app)
    release = bbq_release()
    try:
        response = researcher_client.post(URL, {"release": release.pk}, format="json")
    finally:
        down.close()
        purge_test_broker()
    assert response.status_code == 202, response.content[:300]
    body = response.json()
    assert [(r["model_label"], r["status"]) for r in body["created"]] == [
        ("a-model", "queued"),
        ("b-model", "failed"),
    ]
    assert [s["model_name"] for s in body["skipped"]] == ["c-model"]
    assert url in body["skipped"][0]["reason"]
    assert EvaluationRun.objects.count() == 2  # nothing made for c-model
    assert Job.objects.filter(status=Job.Status.QUEUED).count() == 1  # a-model's, sent
