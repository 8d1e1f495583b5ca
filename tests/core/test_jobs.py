"""Job bookkeeping without a worker: dispatch after commit, broker failures, redelivery."""

from __future__ import annotations

import pytest
from django.db import transaction

from apps.core.models import Job
from apps.core.services import job_create, job_dispatch, job_run

pytestmark = pytest.mark.django_db


class BrokenTask:
    def delay(self, *args):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:1. Connection refused.")


def test_unreachable_broker_fails_the_job_with_the_reason(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        job = job_create(kind=Job.Kind.PING, params={})
        job_dispatch(job=job, task=BrokenTask())
    job.refresh_from_db()
    assert job.status == "failed"
    assert "could not reach the task broker" in job.error and "Connection refused" in job.error


def test_a_redelivered_finished_job_is_not_run_again():
    job = job_create(kind=Job.Kind.PING, params={})
    calls = []
    job_run(job_id=job.pk, celery_task_id="a", work=lambda j: calls.append(1) or {"ok": 1})
    job_run(job_id=job.pk, celery_task_id="b", work=lambda j: calls.append(2) or {"ok": 2})
    job.refresh_from_db()
    assert calls == [1] and job.result == {"ok": 1} and job.attempts == 1


def test_unexpected_errors_fail_the_job_and_propagate():
    job = job_create(kind=Job.Kind.PING, params={})

    def boom(_job):
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        job_run(job_id=job.pk, celery_task_id="x", work=boom)
    job.refresh_from_db()
    assert job.status == "failed" and job.error == "RuntimeError: disk full"
