"""The job system without a worker: dispatch after commit, broker failures, redelivery, the
retry policy, progress, cancel, resume, the heartbeat thread and the watchdog."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from celery import Celery
from django.db import transaction
from django.utils import timezone

from apps.core import services
from apps.core.errors import BrokerUnavailable, ConflictError, KasautiError
from apps.core.heartbeat import Heartbeat, JobCancelled
from apps.core.models import Job
from apps.core.registry import JobKind, job_kind_get, job_kind_register, job_kinds
from apps.core.services import (
    job_cancel,
    job_create,
    job_dispatch,
    job_resume,
    job_run,
)
from apps.core.watchdog import jobs_recover

# A kind registered by the tests alone: how a new app plugs in, without editing core.
TEST_KIND = job_kind_register(
    JobKind(name="test-echo", label="Echo (tests)", task="tests.core.echo")
)


def _job(**kwargs) -> Job:
    return job_create(kind=TEST_KIND.name, params={}, title="Echo for the tests", **kwargs)


@pytest.mark.django_db
def test_unreachable_broker_fails_the_job_with_the_reason(
    django_capture_on_commit_callbacks, monkeypatch
):
    # A real Celery app whose broker does not listen: kombu's own connection error.
    unreachable = Celery("unreachable", broker="redis://127.0.0.1:1/0", set_as_current=False)
    unreachable.conf.broker_connection_retry = False
    unreachable.conf.broker_connection_max_retries = 0
    unreachable.conf.broker_transport_options = {"max_retries": 0}
    monkeypatch.setattr(services, "celery_app", lambda: unreachable)
    # The request that queued it is told (BrokerUnavailable: a 503 from the API).
    with (
        pytest.raises(BrokerUnavailable, match="could not reach the task broker"),
        django_capture_on_commit_callbacks(execute=True),
        transaction.atomic(),
    ):
        job = _job()
        job_dispatch(job=job)
        assert Job.objects.get(pk=job.pk).status == "queued"  # nothing sent before commit
    job.refresh_from_db()
    assert job.status == "failed"
    assert "could not reach the task broker" in job.error
    assert "111" in job.error or "refused" in job.error.lower()


@pytest.mark.django_db
def test_unknown_kinds_are_refused_and_a_registered_kind_is_found():
    with pytest.raises(LookupError, match="unknown job kind 'nope'"):
        job_create(kind="nope", params={})
    assert job_kind_get("test-echo") is TEST_KIND
    # Each app registered its own kind from its AppConfig.
    assert {"instantiate", "release", "translate", "test-echo"} <= {k.name for k in job_kinds()}


@pytest.mark.django_db
def test_a_redelivered_finished_job_is_not_run_again():
    job = _job()
    calls = []
    job_run(job_id=job.pk, work=lambda j, report: calls.append(1) or {"ok": 1})
    job_run(job_id=job.pk, work=lambda j, report: calls.append(2) or {"ok": 2})
    job.refresh_from_db()
    assert calls == [1] and job.result == {"ok": 1} and job.attempts == 1


@pytest.mark.django_db
def test_domain_errors_fail_the_job_with_their_message():
    job = _job()

    def refuse(_job, report):
        raise KasautiError("dataset 'x' has no templates")

    job_run(job_id=job.pk, work=refuse)
    job.refresh_from_db()
    assert job.status == "failed" and job.error == "dataset 'x' has no templates"


@pytest.mark.django_db
def test_unexpected_errors_fail_the_job_and_propagate():
    job = _job()

    def boom(_job, report):
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        job_run(job_id=job.pk, work=boom)
    job.refresh_from_db()
    assert job.status == "failed" and job.error == "RuntimeError: disk full"


@pytest.mark.django_db
def test_progress_rate_and_result():
    job = _job(unit="rows")

    def work(_job, report):
        report(0, 40)
        report(30, 40)
        return {"rows": 40}

    job_run(job_id=job.pk, work=work)
    job.refresh_from_db()
    assert job.status == "succeeded" and job.result == {"rows": 40}
    assert (job.progress_done, job.progress_total, job.progress_unit) == (40, 40, "rows")
    assert job.started_at and job.finished_at and job.heartbeat_at


@pytest.mark.django_db
def test_cancel_and_resume():
    job = _job()
    job_cancel(job=job)
    job.refresh_from_db()
    assert job.status == "cancelled" and job.finished_at is not None
    with pytest.raises(ConflictError):
        job_cancel(job=job)
    # A cancelled job's message does nothing.
    job_run(job_id=job.pk, work=lambda j, report: pytest.fail("ran a cancelled job"))
    job_resume(job=job)
    job.refresh_from_db()
    assert job.status == "queued" and job.finished_at is None
    job_run(job_id=job.pk, work=lambda j, report: {"done": True})
    job.refresh_from_db()
    assert job.status == "succeeded"
    with pytest.raises(ConflictError, match="nothing to resume"):
        job_resume(job=job)


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_heartbeat_thread_writes_progress_and_sees_a_cancel():
    """The thread has its own connection: progress the work reports is visible to others
    while the work's own transaction is still open."""
    job = _job(unit="rows")
    services.job_start(job_id=job.pk)
    Job.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(minutes=5))
    with Heartbeat(job_id=job.pk, interval=0.05) as beat:
        with transaction.atomic():
            beat.report(3, 10)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                # Read on another connection (the thread's writes are committed ones).
                if Job.objects.filter(pk=job.pk, progress_done=3).exists():
                    break
                time.sleep(0.05)
        row = Job.objects.get(pk=job.pk)
        assert (row.progress_done, row.progress_total) == (3, 10)
        assert timezone.now() - row.heartbeat_at < timedelta(seconds=5)
        job_cancel(job=row)
        deadline = time.monotonic() + 10
        while not beat.cancelled and time.monotonic() < deadline:
            time.sleep(0.05)
        with pytest.raises(JobCancelled):
            beat.report(4, 10)


@pytest.mark.django_db
def test_the_watchdog_requeues_a_job_whose_heartbeat_stopped_then_gives_up(settings):
    settings.KASAUTI_JOB_MAX_RECOVERIES = 2
    job = _job()
    services.job_start(job_id=job.pk)
    assert jobs_recover() == {"requeued": [], "failed": []}  # alive

    def stop_heartbeat():
        Job.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=31))

    for attempt in (1, 2):
        stop_heartbeat()
        assert jobs_recover() == {"requeued": [job.pk], "failed": []}
        job.refresh_from_db()
        assert job.status == "running" and job.recoveries == attempt
        # A recovered job is fresh again: a second watchdog pass leaves it alone.
        assert jobs_recover() == {"requeued": [], "failed": []}
    stop_heartbeat()
    assert jobs_recover() == {"requeued": [], "failed": [job.pk]}
    job.refresh_from_db()
    assert job.status == "failed"
    assert "no heartbeat for 30 s" in job.error and "gave up" in job.error


@pytest.mark.django_db
def test_queued_jobs_are_requeued_only_when_asked(settings):
    job = _job()
    Job.objects.filter(pk=job.pk).update(created_at=timezone.now() - timedelta(minutes=5))
    assert jobs_recover() == {"requeued": [], "failed": []}
    assert jobs_recover(include_queued=True) == {"requeued": [job.pk], "failed": []}
    assert jobs_recover(include_queued=True) == {"requeued": [], "failed": []}
