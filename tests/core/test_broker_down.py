"""With the task broker down, a request that queues a job fails fast (<= 2 s) with a 503 that
names the broker, and leaves nothing behind: the job failed with the reason, the evaluation
run failed, the stored upload removed; /healthz reports broker and database (issue 18, 3.6).

The broker is real and unreachable: the project's Celery settings with the broker (and the
result store, as the test settings have it) pointed at a loopback port nobody listens on."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from celery import Celery
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client

from apps.core.models import Job
from apps.evaluation.models import EvaluationRun, ModelEntry, ModelKind, RunStatus
from tests.catalog.test_import_support import BHARAT_HEADER, bharat_row, csv_bytes
from tests.evaluation.bbq_data import bbq_release
from tests.factories import DatasetFactory

# transaction=True: jobs are sent when the service's transaction commits, as in production
# (serialized_rollback: the rows the migrations seed, prompt templates, stay for the others).
pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

FAST = 2.0  # seconds a request may take with the broker down


def closed_port() -> int:
    """A loopback port with no listener (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def broker_down(monkeypatch):
    """The project's Celery app configuration, its broker unreachable, made the app the
    services send with (in every thread: a live server's too) for the test."""
    from celery import current_app

    # Load the URLconf and every API module first: a cold process's first request is slow for
    # reasons of its own, and the timings below are about the broker.
    Client().get("/api/jobs/")
    previous = current_app._get_current_object()
    url = f"redis://127.0.0.1:{closed_port()}/0"
    app = Celery("kasauti-broker-down", set_as_current=False)
    app.config_from_object("django.conf:settings", namespace="CELERY")
    app.conf.broker_url = url
    app.conf.result_backend = url
    app.set_current()
    monkeypatch.setattr("apps.core.services.celery_app", lambda: app)
    try:
        yield url
    finally:
        previous.set_current()
        app.close()


@pytest.fixture
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return Path(settings.MEDIA_ROOT)


def timed(call):
    started = time.monotonic()
    response = call()
    return response, time.monotonic() - started


def assert_503_naming_the_broker(response, seconds, url):
    assert seconds <= FAST, f"took {seconds:.1f} s"
    assert response.status_code == 503, (response.status_code, response.content[:400])
    detail = response.json()["detail"]
    assert "task broker" in detail and url in detail, detail
    assert "result" not in detail.lower(), detail  # the broker, not the result store


def assert_job_failed(job: Job, url: str) -> None:
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED, job.status
    assert "task broker" in job.error and url in job.error
    assert job.finished_at is not None


def test_instantiate_fails_fast_with_503_and_a_failed_job(researcher_client, broker_down):
    dataset = DatasetFactory()
    response, seconds = timed(
        lambda: researcher_client.post(f"/api/datasets/{dataset.pk}/instantiate/")
    )
    assert_503_naming_the_broker(response, seconds, broker_down)
    assert_job_failed(Job.objects.get(kind="instantiate"), broker_down)


def test_an_evaluation_run_is_failed_not_left_queued(researcher_client, broker_down, tmp_path):
    (tmp_path / "config.json").write_text('{"model_type": "gpt2"}')
    release = bbq_release()
    model = ModelEntry.objects.create(name="tiny", kind=ModelKind.CAUSAL_LM, path=str(tmp_path))
    response, seconds = timed(
        lambda: researcher_client.post(
            "/api/evaluation/runs/",
            {
                "release": release.pk,
                "model": model.pk,
                "shots": 2,
                "instruction_language": "target",
            },
            format="json",
        )
    )
    assert_503_naming_the_broker(response, seconds, broker_down)
    run = EvaluationRun.objects.get()
    assert run.status == RunStatus.FAILED and "task broker" in run.error
    assert run.finished_at is not None
    assert_job_failed(run.job, broker_down)


def test_an_async_import_removes_its_stored_upload(researcher_client, broker_down, media_root):
    data = csv_bytes(BHARAT_HEADER, [bharat_row(Q_id="1")])
    response, seconds = timed(
        lambda: researcher_client.post(
            "/api/imports/?async=1",
            {
                "format": "bharatbbq",
                "dataset": "Broker",
                "files": [SimpleUploadedFile("Age.csv", data)],
            },
            format="multipart",
        )
    )
    assert_503_naming_the_broker(response, seconds, broker_down)
    assert_job_failed(Job.objects.get(kind="import"), broker_down)
    imports = media_root / "imports"
    assert not imports.exists() or not any(imports.iterdir()), list(imports.iterdir())


def test_an_async_release_and_a_resume_fail_fast(researcher_client, broker_down):
    dataset = DatasetFactory()
    response, seconds = timed(
        lambda: researcher_client.post(
            f"/api/datasets/{dataset.pk}/releases/?async=1", {}, format="json"
        )
    )
    assert_503_naming_the_broker(response, seconds, broker_down)
    job = Job.objects.get(kind="release")
    assert_job_failed(job, broker_down)
    response, seconds = timed(lambda: researcher_client.post(f"/api/jobs/{job.pk}/resume/"))
    assert_503_naming_the_broker(response, seconds, broker_down)
    assert_job_failed(job, broker_down)


def test_healthz_reports_the_broker(broker_down):
    response, seconds = timed(lambda: Client().get("/healthz"))
    assert seconds <= FAST
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable" and body["database"] == "ok"
    assert broker_down in body["broker"]


def test_healthz_is_ok_with_both_up():
    response = Client().get("/healthz")
    assert response.status_code == 200, response.content
    assert response.json() == {"status": "ok", "database": "ok", "broker": "ok"}


def test_healthz_reports_the_database():
    """The database server unreachable: its port changed to a closed one for the request."""
    settings_dict = connection.settings_dict
    port = settings_dict["PORT"]
    connection.close()
    settings_dict["PORT"] = str(closed_port())
    try:
        response = Client().get("/healthz")
    finally:
        connection.close()
        settings_dict["PORT"] = port
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable" and body["broker"] == "ok"
    assert body["database"].startswith("unreachable")


def test_a_page_that_queues_a_job_answers_503_with_the_reason(researcher, broker_down):
    from django.urls import reverse

    dataset = DatasetFactory()
    client = Client()
    client.force_login(researcher)
    response, seconds = timed(
        lambda: client.post(reverse("web:dataset-instantiate", args=[dataset.pk]))
    )
    assert seconds <= FAST
    assert response.status_code == 503
    page = response.content.decode()
    assert "task broker" in page and broker_down in page
    assert_job_failed(Job.objects.get(kind="instantiate"), broker_down)


def test_the_watchdog_fails_what_it_cannot_requeue_and_goes_on(broker_down):
    """A pass with the broker down fails each stale job with the broker's reason instead of
    stopping at the first one."""
    from datetime import timedelta

    from django.utils import timezone

    from apps.core.watchdog import jobs_recover

    old = timezone.now() - timedelta(minutes=5)
    jobs = []
    for _ in range(2):
        job = Job.objects.create(
            kind="instantiate", params={}, status=Job.Status.RUNNING, started_at=old
        )
        Job.objects.filter(pk=job.pk).update(heartbeat_at=old)
        jobs.append(job)
    outcome, seconds = timed(jobs_recover)
    assert seconds <= 2 * FAST
    assert outcome["requeued"] == []
    assert sorted(outcome["failed"]) == [job.pk for job in jobs]
    for job in jobs:
        assert_job_failed(job, broker_down)


@pytest.mark.django_db(transaction=False)
def test_every_operation_that_queues_a_job_documents_the_503():
    from drf_spectacular.generators import SchemaGenerator

    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    queuing = {
        (path, method): operation["responses"]
        for path, item in paths.items()
        for method, operation in item.items()
        if "202" in operation.get("responses", {})
    }
    assert ("/api/datasets/{id}/instantiate/", "post") in queuing
    assert ("/api/jobs/{id}/resume/", "post") in queuing
    assert ("/api/evaluation/runs/", "post") in queuing
    missing = [key for key, responses in queuing.items() if "503" not in responses]
    assert not missing, missing
