"""Jobs through a real Celery worker process, real Redis broker and real PostgreSQL."""

from __future__ import annotations

import time

import pytest
from django.db import transaction

from apps.catalog.models import Instance
from apps.catalog.services import dataset_instantiate_async, instantiation_plan
from apps.core.models import Job
from tests.factories import DatasetFactory, TemplateVersionFactory

pytestmark = pytest.mark.celery_worker


def wait_for_job(job_id: int, timeout: float = 60.0) -> Job:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = Job.objects.get(pk=job_id)
        if job.is_finished:
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not finish in {timeout}s: {job.status}")


def test_instantiation_job_runs_on_a_real_worker(celery_worker_process):
    dataset = DatasetFactory()
    TemplateVersionFactory(template__dataset=dataset)
    TemplateVersionFactory(template__dataset=dataset)
    expected = instantiation_plan(dataset=dataset).total
    with transaction.atomic():
        job = dataset_instantiate_async(dataset=dataset)
    job = wait_for_job(job.pk)
    assert job.status == "succeeded", job.error
    assert job.result["created"] == expected == 32
    assert job.progress_done == job.progress_total == expected  # instances, per version
    assert Instance.objects.filter(dataset=dataset).count() == expected

    # A second job is a no-op: instantiation is idempotent.
    with transaction.atomic():
        again = dataset_instantiate_async(dataset=dataset)
    again = wait_for_job(again.pk)
    assert again.status == "succeeded" and again.result["created"] == 0
    assert Instance.objects.filter(dataset=dataset).count() == expected


def test_failed_job_records_the_reason(celery_worker_process):
    dataset = DatasetFactory()
    TemplateVersionFactory(template__dataset=dataset, language="zz")  # no unknown expressions
    with transaction.atomic():
        job = dataset_instantiate_async(dataset=dataset)
    job = wait_for_job(job.pk)
    assert job.status == "failed"
    assert "no unknown expressions" in job.error and "'zz'" in job.error
    assert not Instance.objects.filter(dataset=dataset).exists()


def test_a_job_whose_worker_died_is_recovered_by_a_workers_watchdog(
    django_db_serialized_rollback, transactional_db, tmp_path, monkeypatch
):
    """A job left running by a worker that died (its heartbeat stopped a minute ago, its
    message gone) is re-queued by the watchdog of a live worker and completes; no broker
    visibility timeout is involved (it is an hour here)."""
    from datetime import timedelta

    from django.utils import timezone

    from tests.workers import WorkerProcess, purge_test_broker

    dataset = DatasetFactory()
    TemplateVersionFactory(template__dataset=dataset)
    with transaction.atomic():
        job = dataset_instantiate_async(dataset=dataset)
    purge_test_broker()  # the message died with the worker
    Job.objects.filter(pk=job.pk).update(
        status="running",
        attempts=1,
        started_at=timezone.now() - timedelta(minutes=2),
        heartbeat_at=timezone.now() - timedelta(minutes=1),
    )
    monkeypatch.setenv("KASAUTI_JOB_STALE_SECONDS", "5")
    monkeypatch.setenv("KASAUTI_JOB_WATCHDOG_SECONDS", "1")
    monkeypatch.setenv("KASAUTI_BROKER_VISIBILITY_TIMEOUT", "3600")
    worker = WorkerProcess(log=tmp_path / "worker.log").start()
    try:
        job = wait_for_job(job.pk, timeout=60)
    finally:
        worker.stop()
    assert job.status == "succeeded", job.error
    assert job.recoveries == 1 and job.attempts == 2
    assert job.result["created"] == Instance.objects.filter(dataset=dataset).count() == 16


def test_a_large_import_runs_on_a_real_worker(celery_worker_process, researcher_client):
    """POST /api/imports/ over the inline limit answers 202 at once; the worker imports."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from apps.catalog.models import Dataset, Template
    from tests.catalog.test_import_uploads import bharat_csv_of_size

    data = bharat_csv_of_size(3 * 1024 * 1024)
    response = researcher_client.post(
        "/api/imports/",
        {
            "format": "bharatbbq",
            "dataset": "Worker import",
            "files": [SimpleUploadedFile("Age.csv", data)],
        },
        format="multipart",
    )
    assert response.status_code == 202, response.content[:300]
    job = wait_for_job(response.json()["id"], timeout=120)
    assert job.status == "succeeded", job.error
    assert job.result["templates"]["created"] == data.count(b"\n") - 1
    assert Template.objects.filter(dataset=Dataset.objects.get(name="Worker import")).count() == (
        data.count(b"\n") - 1
    )
    # And the job is what the API shows.
    shown = researcher_client.get(f"/api/jobs/{job.pk}/").json()
    assert shown["status"] == "succeeded" and shown["kind"] == "import"
