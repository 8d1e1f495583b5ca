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


# --- the rate: one definition, over a time window (ISSUE18 2.5) -----------------------------


def _measure(samples, done, *, now, total=1000, previous_done=None, previous_total=1000):
    from apps.core.heartbeat import progress_measure

    return progress_measure(
        samples=samples,
        done=done,
        total=total,
        previous_done=samples[-1][1] if previous_done is None else previous_done,
        previous_total=previous_total,
        now=now,
        window=60,
    )


def test_rate_is_the_progress_over_the_last_window_by_hand():
    # 0 at t=0, 100 at t=30, 400 at t=90: at t=90 the window (30..90) holds 100 -> 400.
    measured = _measure([[0, 0], [30, 100]], 400, now=90)
    assert measured.rate == pytest.approx(300 / 60)
    assert measured.eta_seconds == pytest.approx(600 / 5)
    assert measured.samples == [[30, 100], [90, 400]]
    # Cached work counted at the start is a baseline, not a rate: 542 cached at t=0, 7 more
    # translated by t=1 is 7 strings/s, not 549.
    assert _measure([[0, 542]], 549, now=1).rate == pytest.approx(7)
    # A job reporting less often than the window keeps its latest earlier sample.
    assert _measure([[0, 0]], 50, now=100).rate == pytest.approx(0.5)
    # One report alone is no rate.
    assert _measure([], 10, now=5, previous_done=0).rate is None


def test_a_stale_report_does_not_move_progress_back_and_a_new_total_restarts_the_window():
    # A concurrent step's stale report (300 after 400 was recorded): progress stays at 400.
    measured = _measure([[0, 0], [30, 400]], 300, now=60)
    assert measured.done == 400 and measured.rate == pytest.approx(400 / 60)
    # The work was re-measured (another total): the window starts again.
    measured = _measure([[0, 0], [30, 400]], 10, now=60, total=50)
    assert measured.done == 10 and measured.rate is None and measured.samples == [[60, 10]]


@pytest.mark.django_db
def test_every_progress_write_uses_the_window_not_the_time_since_a_start(settings):
    """The heartbeat of a chunk that started a second ago used to divide everything done by
    that second (1,001 strings/s), the translation's own refresh by the time since the job
    started (7 strings/s): the page's time left jumped 21 min -> 53 s -> 3 min -> 3 s."""
    from apps.core.heartbeat import job_progress

    settings.KASAUTI_JOB_RATE_WINDOW_SECONDS = 60
    job = _job(unit="strings")
    now = timezone.now().timestamp()
    Job.objects.filter(pk=job.pk).update(
        status=Job.Status.RUNNING,
        started_at=timezone.now() - timedelta(hours=1),
        progress_total=2000,
        progress_done=600,
        progress_samples=[[now - 60, 0], [now - 30, 300], [now - 1, 600]],
    )
    job_progress(job_id=job.pk, done=610)
    job.refresh_from_db()
    assert job.rate == pytest.approx(610 / 60, rel=0.05)
    assert job.eta_seconds == pytest.approx((2000 - 610) / job.rate)
    # A new attempt (resumed, recovered) measures afresh.
    Job.objects.filter(pk=job.pk).update(status=Job.Status.QUEUED)
    services.job_start(job_id=job.pk)
    job.refresh_from_db()
    assert job.progress_samples == [] and job.progress_done == 610
