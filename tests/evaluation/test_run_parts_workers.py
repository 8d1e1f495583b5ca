"""A run split into parts, shared by two real Celery workers on the `gpu` queue; one worker is
killed (SIGKILL, the whole process group) in the middle of a part. The other worker's watchdog
finds the dead part's heartbeat stopped and re-runs it: the run completes with exactly one
prediction per item, the metrics computed once, and every part's worker recorded.

No timing is guessed: the worker is frozen (SIGSTOP) while the test looks at the database, and
killed only when it is provably in the middle of a part (some of the part's predictions stored,
not all); otherwise it is thawed (SIGCONT) and looked at again a moment later."""

from __future__ import annotations

import os
import signal
import time

import pytest
from django.db import transaction

pytest.importorskip("worker.engines.lm_scorer")

from apps.core.models import Job  # noqa: E402
from apps.evaluation.models import ModelEntry, ModelKind, Prediction  # noqa: E402
from apps.evaluation.services.runs import run_create  # noqa: E402
from tests.evaluation.bbq_data import bbq_release  # noqa: E402
from tests.workers import WorkerProcess, purge_test_broker  # noqa: E402

pytestmark = pytest.mark.celery_worker

PART_ITEMS = 48
WORKER_ENV = {
    "KASAUTI_EVAL_CHUNK_ITEMS": str(PART_ITEMS),
    # A part whose heartbeat (every second) stopped 6 s ago has lost its worker.
    "KASAUTI_JOB_STALE_SECONDS": "6",
    "KASAUTI_JOB_WATCHDOG_SECONDS": "1",
    # Two CPU workers on a small machine: one torch thread each, not two threads per worker
    # fighting over the same cores (which made a part several times slower).
    "OMP_NUM_THREADS": "1",
}


@pytest.fixture
def two_workers(django_db_serialized_rollback, transactional_db, tmp_path):
    purge_test_broker()
    workers = [
        WorkerProcess(log=tmp_path / f"worker-{name}.log", extra_env=WORKER_ENV)
        for name in ("a", "b")
    ]
    try:
        for worker in workers:
            worker.start()
        yield workers
    finally:
        for worker in workers:
            if worker.process and worker.process.poll() is None:
                os.killpg(worker.process.pid, signal.SIGCONT)
            worker.stop()


@pytest.fixture
def slower_gpt2(tmp_path_factory):
    """Wider than the suite's tiny GPT-2, so that a part takes about a second, not a few ms."""
    from worker.engines.tiny_lm import build_tiny_gpt2

    return build_tiny_gpt2(
        tmp_path_factory.mktemp("gpt2_4x256"), n_layer=4, n_embd=256, n_head=4, seed=0
    )


def _part_scored(run, part: Job) -> int:
    return Prediction.objects.filter(
        run=run,
        instance_id__gte=part.params["first_id"],
        instance_id__lte=part.params["last_id"],
    ).count()


def _kill_in_the_middle_of_a_part(run, worker: WorkerProcess, patience: float = 30.0) -> Job:
    """Freeze `worker`; if it is running a part of `run` with some but not all of the part's
    predictions stored, kill it and return that part; else thaw it and look again. After
    `patience` seconds without such a moment (a starved machine), any part it is running will
    do: the part is unfinished either way, and must be run again by the other worker."""
    pgid = worker.process.pid
    started = time.monotonic()
    while not Job.objects.get(pk=run.job_id).is_finished:
        os.killpg(pgid, signal.SIGSTOP)
        running = Job.objects.filter(
            parent_id=run.job_id, status=Job.Status.RUNNING, worker=worker.name
        ).first()
        if running is not None and (
            0 < _part_scored(run, running) < running.params["items"]
            or time.monotonic() - started > patience
        ):
            worker.kill()
            return running
        os.killpg(pgid, signal.SIGCONT)
        time.sleep(0.05)
    raise AssertionError("the run finished before the worker could be killed in a part")


def test_a_part_whose_worker_is_killed_is_rerun_by_the_other_worker(two_workers, slower_gpt2):
    killed_worker, survivor = two_workers
    model = ModelEntry.objects.create(
        name="gpt2-4x256", kind=ModelKind.CAUSAL_LM, path=str(slower_gpt2)
    )
    release = bbq_release(copies=24)  # 384 items: 8 parts of 48
    items = release.memberships.count()
    assert items == 384
    with transaction.atomic():
        # One item per batch, so a part stores its predictions in three windows of 16.
        run = run_create(release=release, model=model, batch_size=1)

    killed_part = _kill_in_the_middle_of_a_part(run, killed_worker)
    stored_at_kill = _part_scored(run, killed_part)

    deadline = time.monotonic() + 600
    parent = Job.objects.get(pk=run.job_id)
    while not parent.is_finished and time.monotonic() < deadline:
        time.sleep(0.25)
        parent.refresh_from_db()
    logs = survivor.log.read_text() + killed_worker.log.read_text()
    assert parent.status == Job.Status.SUCCEEDED, (parent.status, parent.error, logs[-4000:])

    # Exactly one prediction per item (nothing lost with the killed worker, nothing twice).
    predictions = Prediction.objects.filter(run=run)
    assert predictions.count() == items
    assert predictions.values("instance_id").distinct().count() == items
    assert set(predictions.values_list("instance_id", flat=True)) == set(
        release.memberships.values_list("instance_id", flat=True)
    )
    # The killed part was re-run by the watchdog on the survivor, which kept what was stored.
    rerun = Job.objects.get(pk=killed_part.pk)
    assert rerun.status == Job.Status.SUCCEEDED
    assert rerun.recoveries >= 1 and rerun.attempts >= 2
    assert rerun.worker == survivor.name
    assert rerun.result["scored"] <= PART_ITEMS - stored_at_kill
    assert rerun.result["workers"][0] == killed_worker.name
    assert rerun.result["workers"][-1] == survivor.name

    # The run's job: progress adds up, the metrics were computed once, every part's worker.
    assert parent.progress_done == parent.progress_total == items
    assert logs.count(f"run {run.pk}: every item scored; metrics computed") == 1
    run.refresh_from_db()
    assert run.status == "complete" and run.results["predictions"] == items
    parts = parent.result["parts"]
    assert [p["part"] for p in parts] == list(range(8))
    assert all(p["status"] == "succeeded" for p in parts)  # as the run finished, not later
    assert {p["worker"] for p in parts} <= {killed_worker.name, survivor.name}
    assert sum(p["items"] for p in parts) == items
