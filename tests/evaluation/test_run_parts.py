"""A multiple-choice run split into parts (apps/evaluation/services/parts.py), each part's job
run here in the test's process on the tiny random GPT-2: the parts, their progress, the
metrics computed once, equality with the same run scored in one piece, and how cancel, fail,
resume and the watchdog treat a parent and its parts. The same with real, killed workers is
tests/evaluation/test_run_parts_workers.py."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.utils import timezone

pytest.importorskip("worker.engines.lm_scorer")

from apps.core.models import Job  # noqa: E402
from apps.core.services import job_cancel, job_fail, job_resume, job_run  # noqa: E402
from apps.core.watchdog import jobs_recover  # noqa: E402
from apps.evaluation.models import ModelEntry, ModelKind, Prediction  # noqa: E402
from apps.evaluation.services.parts import (  # noqa: E402
    UNBOUNDED,
    run_finish_if_complete,
    run_part_execute,
    run_parts_plan,
)
from apps.evaluation.services.runs import run_create  # noqa: E402
from tests.evaluation.bbq_data import bbq_release  # noqa: E402
from tests.evaluation.run_jobs import run_job_execute  # noqa: E402

pytestmark = pytest.mark.django_db


@pytest.fixture
def model(tiny_gpt2_dir):
    return ModelEntry.objects.create(
        name="tiny-gpt2", kind=ModelKind.CAUSAL_LM, path=str(tiny_gpt2_dir)
    )


def _part_run(child: Job, *, worker: str = "") -> None:
    """Run one part's job here, as its task does in a worker (named `worker`)."""
    request = SimpleNamespace(id="", hostname=worker, called_directly=True, is_eager=False)
    job_run(
        job_id=child.pk,
        task=SimpleNamespace(request=request),
        work=lambda job, report: run_part_execute(job=job, progress=report),
    )


def _split_run(model, settings, django_capture_on_commit_callbacks, *, copies=2, size=10):
    settings.KASAUTI_EVAL_CHUNK_ITEMS = size
    release = bbq_release(copies=copies)  # 16 items per copy
    with django_capture_on_commit_callbacks(execute=False):  # no broker: parts run here
        run = run_create(release=release, model=model, batch_size=4)
        result = run_job_execute(run=run, progress=lambda done, total=None: None)
    assert result == {}  # the run's job waits for its parts
    parent = Job.objects.get(pk=run.job_id)
    return run, parent, list(parent.children.order_by("id"))


def test_the_plan_cuts_touching_ranges_from_zero_to_no_end():
    ids = [3, 5, 8, 13, 21, 34, 55]
    assert run_parts_plan(ids=ids, size=3) == [
        {"part": 0, "first_id": 0, "last_id": 8, "items": 3},
        {"part": 1, "first_id": 13, "last_id": 34, "items": 3},
        {"part": 2, "first_id": 55, "last_id": UNBOUNDED, "items": 1},
    ]
    assert run_parts_plan(ids=ids, size=10) == [
        {"part": 0, "first_id": 0, "last_id": UNBOUNDED, "items": 7}
    ]
    assert run_parts_plan(ids=[], size=3) == []
    with pytest.raises(ValueError, match="part size"):
        run_parts_plan(ids=ids, size=0)


def test_parts_add_up_to_the_run_scored_in_one_piece(
    model, settings, django_capture_on_commit_callbacks
):
    run, parent, children = _split_run(model, settings, django_capture_on_commit_callbacks)
    assert parent.status == Job.Status.RUNNING
    assert [c.params["part"] for c in children] == [0, 1, 2, 3]
    assert [c.params["items"] for c in children] == [10, 10, 10, 2]
    assert all(c.kind == "evaluate_part" and c.parent_id == parent.pk for c in children)
    assert parent.params["parts"][-1]["last_id"] == UNBOUNDED

    for number, child in enumerate(children[:-1], start=1):
        _part_run(child)
        parent.refresh_from_db()
        # The run's progress counts every item scored, whichever part scored it.
        assert parent.progress_done == Prediction.objects.filter(run=run).count() == 10 * number
        assert parent.status == Job.Status.RUNNING and not run.results
        assert parent.progress_total == 32
    _part_run(children[-1])
    parent.refresh_from_db()
    assert parent.status == Job.Status.SUCCEEDED, parent.error
    assert parent.result["predictions"] == 32
    assert [p["part"] for p in parent.result["parts"]] == [0, 1, 2, 3]
    assert all(p["attempts"] == 1 for p in parent.result["parts"])
    # The last part succeeded with the run, in its transaction: no part is left running.
    assert all(p["status"] == "succeeded" for p in parent.result["parts"])
    child = Job.objects.get(pk=children[0].pk)
    assert child.status == Job.Status.SUCCEEDED and child.result["scored"] == 10

    # The same run in one piece: the same choices and the same figures.
    settings.KASAUTI_EVAL_CHUNK_ITEMS = 1000
    with django_capture_on_commit_callbacks(execute=False):
        whole = run_create(release=run.release, model=model, batch_size=4)
        run_job_execute(run=whole, progress=lambda done, total=None: None)
    run.refresh_from_db()
    whole.refresh_from_db()
    split = dict(Prediction.objects.filter(run=run).values_list("instance_id", "chosen"))
    single = dict(Prediction.objects.filter(run=whole).values_list("instance_id", "chosen"))
    assert split == single and len(split) == 32
    assert run.results["overall"] == whole.results["overall"]


def test_a_part_run_twice_writes_each_prediction_once_and_metrics_once(
    model, settings, django_capture_on_commit_callbacks
):
    run, parent, children = _split_run(model, settings, django_capture_on_commit_callbacks)
    _part_run(children[0])
    # A duplicate delivery of a part (its first worker was only slow): nothing new is scored.
    Job.objects.filter(pk=children[0].pk).update(status=Job.Status.RUNNING)
    _part_run(children[0])
    assert Job.objects.get(pk=children[0].pk).result["scored"] == 0
    assert Prediction.objects.filter(run=run).count() == 10
    for child in children[1:]:
        _part_run(child)
    parent.refresh_from_db()
    assert parent.status == Job.Status.SUCCEEDED
    finished_at = parent.finished_at
    # Whoever comes later finds the run finished and computes nothing.
    assert run_finish_if_complete(run=run) is False
    parent.refresh_from_db()
    assert parent.finished_at == finished_at


def test_cancelling_the_run_stops_its_parts_and_resume_runs_what_is_missing(
    model, settings, django_capture_on_commit_callbacks
):
    run, parent, children = _split_run(model, settings, django_capture_on_commit_callbacks)
    _part_run(children[0])
    job_cancel(job=parent)
    statuses = dict(Job.objects.filter(parent=parent).values_list("id", "status"))
    assert statuses[children[0].pk] == Job.Status.SUCCEEDED
    assert {statuses[c.pk] for c in children[1:]} == {Job.Status.CANCELLED}
    run.refresh_from_db()
    assert run.status == "partial"

    with django_capture_on_commit_callbacks(execute=False):
        job_resume(job=parent)
        run_job_execute(run=run, progress=lambda done, total=None: None)
    statuses = dict(Job.objects.filter(parent=parent).values_list("id", "status"))
    assert statuses[children[0].pk] == Job.Status.SUCCEEDED  # its items are all scored
    # Never started, so queued again (a started one would be running again).
    assert {statuses[c.pk] for c in children[1:]} == {Job.Status.QUEUED}
    assert Job.objects.filter(parent=parent).count() == 4  # the same parts, none added
    for child in children[1:]:
        _part_run(child)
    parent.refresh_from_db()
    assert parent.status == Job.Status.SUCCEEDED
    assert Prediction.objects.filter(run=run).count() == 32


def test_cancelling_a_part_cancels_the_run(model, settings, django_capture_on_commit_callbacks):
    run, parent, children = _split_run(model, settings, django_capture_on_commit_callbacks)
    job_cancel(job=children[2])
    parent.refresh_from_db()
    assert parent.status == Job.Status.CANCELLED
    assert set(Job.objects.filter(parent=parent).values_list("status", flat=True)) == {
        Job.Status.CANCELLED
    }


def test_a_failed_part_fails_the_run_with_its_reason(
    model, settings, django_capture_on_commit_callbacks
):
    run, parent, children = _split_run(model, settings, django_capture_on_commit_callbacks)
    job_fail(job_id=children[1].pk, error="CUDA error: device-side assert triggered")
    parent.refresh_from_db()
    assert parent.status == Job.Status.FAILED
    assert parent.error == (
        f"part 2 (job #{children[1].pk}) failed: CUDA error: device-side assert triggered"
    )
    others = Job.objects.filter(pk__in=[c.pk for c in children if c.pk != children[1].pk])
    assert set(others.values_list("status", flat=True)) == {Job.Status.CANCELLED}


def test_the_watchdog_reruns_a_dead_part_and_leaves_its_waiting_parent_alone(
    model, settings, django_capture_on_commit_callbacks
):
    run, parent, children = _split_run(model, settings, django_capture_on_commit_callbacks)
    long_ago = timezone.now() - timedelta(minutes=10)
    Job.objects.filter(pk=parent.pk).update(heartbeat_at=long_ago)
    Job.objects.filter(pk=children[0].pk).update(
        status=Job.Status.RUNNING, started_at=long_ago, heartbeat_at=long_ago
    )
    with django_capture_on_commit_callbacks(execute=False):
        outcome = jobs_recover(stale_after=timedelta(seconds=30))
    # The dead part is re-queued; its parent waits for parts that are queued or running.
    assert outcome == {"requeued": [children[0].pk], "failed": []}
    assert Job.objects.get(pk=children[0].pk).recoveries == 1
    assert Job.objects.get(pk=parent.pk).recoveries == 0

    # Once no part is left to run, a parent without a heartbeat is stale like any job: it is
    # re-queued, and its work finds every item scored and finishes the run.
    for child in children:
        _part_run(child)
    assert Job.objects.get(pk=parent.pk).status == Job.Status.SUCCEEDED


def test_the_run_page_lists_parts_with_their_workers(
    model, settings, django_capture_on_commit_callbacks, client, researcher, researcher_client
):
    run, parent, children = _split_run(model, settings, django_capture_on_commit_callbacks)
    _part_run(children[0], worker="celery@gpu-7")
    client.force_login(researcher)
    html = client.get(f"/evaluation/runs/{run.pk}/").content.decode()
    assert 'id="run-parts"' in html and html.count('class="run-part"') == 4
    assert "celery@gpu-7" in html
    api = researcher_client.get(f"/api/evaluation/runs/{run.pk}/").json()
    assert [part["part"] for part in api["parts"]] == [0, 1, 2, 3]
    assert api["parts"][0]["worker"] == "celery@gpu-7"
    assert api["parts"][0]["workers"] == ["celery@gpu-7"]
    assert api["parts"][0]["status"] == "succeeded" and api["parts"][1]["status"] == "queued"
