"""BBQ-style runs as core jobs on a real Celery worker (gpu queue), real PostgreSQL and Redis,
a tiny random GPT-2: a run completes with its metrics; cancel and resume go through core;
an endpoint that does not answer fails the job with the reason and shows no results."""

from __future__ import annotations

import http.server
import threading
import time

import pytest
from django.db import transaction

pytest.importorskip("worker.engines.lm_scorer")
pytest.importorskip("apps.evaluation.metrics.bbq")

from apps.core.models import Job  # noqa: E402
from apps.core.registry import job_kind_get  # noqa: E402
from apps.core.services import job_cancel, job_resume  # noqa: E402
from apps.evaluation.models import ModelEntry, ModelKind, Prediction  # noqa: E402
from apps.evaluation.services.runs import run_create  # noqa: E402
from tests.evaluation.bbq_data import bbq_release  # noqa: E402

pytestmark = pytest.mark.celery_worker


def wait_for_job(job_id: int, timeout: float = 120.0) -> Job:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = Job.objects.get(pk=job_id)
        if job.is_finished:
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not finish in {timeout}s: {job.status}")


@pytest.fixture
def model(tiny_gpt2_dir):
    return ModelEntry.objects.create(
        name="tiny-gpt2", kind=ModelKind.CAUSAL_LM, path=str(tiny_gpt2_dir)
    )


def test_a_run_completes_on_a_real_worker(celery_worker_process, model):
    release = bbq_release()  # 16 items, English and Hindi
    with transaction.atomic():
        run = run_create(release=release, model=model, batch_size=4)
    job = wait_for_job(run.job_id)
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert job.progress_done == job.progress_total == 16 and job.progress_unit == "items"
    run.refresh_from_db()
    assert run.status == "complete"
    assert Prediction.objects.filter(run=run).count() == release.memberships.count() == 16
    assert run.results["overall"]["n_amb"] == 8 and run.results["overall"]["n_dis"] == 8
    assert job.result["run_id"] == run.pk and job.result["predictions"] == 16
    summary = job_kind_get("evaluate").summary(job)
    assert summary[0].startswith("16 predictions (8 ambiguous, 8 disambiguated)")
    assert summary[1].startswith("Acc_A ")
    assert run.model_info


def test_cancel_and_resume_go_through_core(celery_worker_process, model):
    release = bbq_release(languages=("en",))
    with transaction.atomic():
        run = run_create(release=release, model=model)
        # Cancelled before a worker takes it: the queued message finds it finished.
        job_cancel(job=Job.objects.get(pk=run.job_id))
    job = Job.objects.get(pk=run.job_id)
    assert job.status == Job.Status.CANCELLED
    with transaction.atomic():
        job_resume(job=job)
    job = wait_for_job(run.job_id)
    assert job.status == Job.Status.SUCCEEDED, job.error
    run.refresh_from_db()
    assert run.status == "complete" and Prediction.objects.filter(run=run).count() == 8


class _SlowHandler(http.server.BaseHTTPRequestHandler):
    delay = 5.0
    requests = 0

    def do_POST(self):  # noqa: N802 - http.server's naming
        type(self).requests += 1
        time.sleep(self.delay)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b"{}")
        except OSError:
            pass

    def log_message(self, *args):
        pass


@pytest.fixture
def slow_endpoint(monkeypatch, settings):
    pytest.importorskip("worker.engines.endpoint")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SlowHandler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    # Read by the worker process (started after this fixture): give up quickly.
    monkeypatch.setenv("KASAUTI_EVAL_ENDPOINT_TIMEOUT", "0.5")
    monkeypatch.setenv("KASAUTI_EVAL_ENDPOINT_RETRIES", "1")
    monkeypatch.setenv("KASAUTI_EVAL_ENDPOINT_HOSTS", "127.0.0.1")
    settings.KASAUTI_EVAL_ENDPOINT_HOSTS = ["127.0.0.1"]
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_an_endpoint_that_times_out_fails_the_job_with_the_reason(
    slow_endpoint, celery_worker_process
):
    entry = ModelEntry.objects.create(
        name="remote", kind=ModelKind.ENDPOINT, endpoint_url=slow_endpoint, endpoint_model="m"
    )
    with transaction.atomic():
        run = run_create(release=bbq_release(languages=("en",)), model=entry)
    job = wait_for_job(run.job_id, timeout=90)
    assert job.status == Job.Status.FAILED
    assert "127.0.0.1" in job.error or "timed out" in job.error.lower(), job.error
    run.refresh_from_db()
    assert run.status == "failed" and run.results == {}
    assert run.error
    assert not Prediction.objects.filter(run=run).exists()
