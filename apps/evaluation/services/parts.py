"""A multiple-choice run over a large release, split into parts that several workers share.

`run_execute` (services/runs.py) hands a run with more than KASAUTI_EVAL_CHUNK_ITEMS items to
score to `run_parts_dispatch`: the run's items, in id order, are cut into parts of that many
items, and each part is a child core `Job` of the run's job (kind `evaluate_part`, on the `gpu`
queue), so N workers (N GPUs on N machines) score one run side by side. The plan (each part's
first and last instance id) is stored in the run job's params the first time, so a resumed run
cuts the same parts; the first part starts at id 0 and the last one has no end, so an item
added later to a live dataset still belongs to a part.

* A part is idempotent: it scores only its items without a prediction, and a prediction is
  keyed by run and instance (a unique constraint; rows written twice are kept once).
* Each part has its own heartbeat: the watchdog re-runs a part whose worker died (the other
  parts go on); the run's job waits without a heartbeat, and the watchdog leaves a parent
  alone while any of its parts is queued or running (apps/core/watchdog.py).
* Progress adds up: after each window a part writes the run job's progress as the number of
  the run's items that have a prediction, whichever part scored them.
* The metrics are computed once, by the last part to finish: each part marks itself succeeded
  under a lock on the run's job row, and the one that then finds every part succeeded and
  every item scored computes the metrics and finishes the run's job.
* Cancelling the run cancels its parts; cancelling a part cancels the run; a part that fails
  fails the run with the part's reason (and the others are cancelled). Resuming the run
  resumes the parts that still have items to score.
* Each part records the worker that took it up (`Job.worker`, Celery's node name), and the
  parts' workers, attempts and recoveries are listed in the run job's result.
"""

from __future__ import annotations

import logging
from bisect import bisect_left
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from apps.core.models import Job
from apps.core.services import (
    job_cancel,
    job_create,
    job_dispatch,
    job_fail,
    job_progress,
    job_resume,
    job_succeed,
)

from ..jobs import EVALUATE_PART
from ..models import EvaluationRun, Prediction

logger = logging.getLogger(__name__)

UNBOUNDED = 2**63 - 1  # the last part's end: any instance id added later


def run_parts_plan(*, ids: list[int], size: int) -> list[dict[str, int]]:
    """Parts of `size` items over the sorted ids: [{part, first_id, last_id, items}], the
    ranges touching each other and covering every id from 0 on."""
    if size < 1:
        raise ValueError(f"part size must be >= 1, got {size}")
    parts = []
    for index, start in enumerate(range(0, len(ids), size)):
        chunk = ids[start : start + size]
        parts.append(
            {
                "part": index,
                "first_id": 0 if index == 0 else chunk[0],
                "last_id": chunk[-1],
                "items": len(chunk),
            }
        )
    if parts:
        parts[-1]["last_id"] = UNBOUNDED
    return parts


def _part_ids(*, run: EvaluationRun, part: dict[str, int]) -> list[int]:
    from .runs import run_items

    items = run_items(dataset=run.dataset, release=run.release)
    return list(
        items.filter(id__gte=part["first_id"], id__lte=part["last_id"]).values_list("id", flat=True)
    )


def _has_items_in(missing: list[int], part: dict[str, int]) -> bool:
    """Whether the sorted ids `missing` hold one in the part's range."""
    index = bisect_left(missing, part["first_id"])
    return index < len(missing) and missing[index] <= part["last_id"]


def run_parts_dispatch(*, run: EvaluationRun, ids: list[int]) -> list[Job]:
    """Create (or resume) the child job of every part that has items left to score and queue
    it; the run's job stays running. Safe to call again (a resumed or recovered run job): a part
    queued or running is left alone, a part cancelled or failed is resumed."""
    with transaction.atomic():
        parent = Job.objects.select_for_update().get(pk=run.job_id)
        plan = parent.params.get("parts")
        if plan is None:
            plan = run_parts_plan(ids=ids, size=settings.KASAUTI_EVAL_CHUNK_ITEMS)
            parent.params = {**parent.params, "parts": plan}
            parent.save(update_fields=["params"])
        children = {child.params.get("part"): child for child in parent.children.all()}
        # The run's items without a prediction, read once for every part (`ids` is sorted).
        scored = set(Prediction.objects.filter(run=run).values_list("instance_id", flat=True))
        missing = [pk for pk in ids if pk not in scored]
        queued = []
        for part in plan:
            child = children.get(part["part"])
            if child is not None and not child.is_finished:
                continue  # alive, or the watchdog's to re-run
            if not _has_items_in(missing, part):
                continue
            if child is None:
                child = job_create(
                    kind=EVALUATE_PART,
                    params={"run_id": run.pk, **part},
                    title=f"{parent.title} — part {part['part'] + 1} of {len(plan)}",
                    unit="items",
                    created_by=parent.created_by,
                    parent=parent,
                )
                job_dispatch(job=child)
            elif child.status == Job.Status.SUCCEEDED:
                # Done once, yet items are missing (their predictions were removed): again.
                Job.objects.filter(pk=child.pk).update(
                    status=Job.Status.QUEUED, finished_at=None, error=""
                )
                job_dispatch(job=child)
            else:
                job_resume(job=child)
            queued.append(child)
    return queued


def run_part_execute(*, job: Job, progress) -> dict[str, Any]:
    """The work of one part's job: score its items that have no prediction, then finish the
    run if every item now has one. Returns the part's result."""
    from .runs import model_check, run_items, run_items_score, run_scored_count

    run = EvaluationRun.objects.select_related("dataset", "release", "model").get(
        pk=job.params["run_id"]
    )
    part = {key: job.params[key] for key in ("part", "first_id", "last_id", "items")}
    workers = [*job.params.get("workers", []), job.worker]
    Job.objects.filter(pk=job.pk).update(params={**job.params, "workers": workers})
    model_check(model=run.model)
    ids = _part_ids(run=run, part=part)
    total = run_items(dataset=run.dataset, release=run.release).count()
    already = Prediction.objects.filter(run=run, instance_id__in=ids).count()
    progress(already, len(ids))

    def report(scored: int) -> None:
        progress(already + scored, len(ids))
        # The run's progress: its items with a prediction, whichever part scored them.
        job_progress(job_id=run.job_id, done=run_scored_count(run=run), total=total)

    scored = run_items_score(run=run, ids=ids, progress=report)
    result = {
        "run_id": run.pk,
        "part": part["part"],
        "items": len(ids),
        "scored": scored,
        "workers": workers,
    }
    run_finish_if_complete(run=run, part_job=job, part_result=result)
    return result


def run_finish_if_complete(
    *,
    run: EvaluationRun,
    part_job: Job | None = None,
    part_result: dict[str, Any] | None = None,
) -> bool:
    """Finish the part `part_job` (with `part_result`), then, if every part has succeeded and
    every item has a prediction, compute the run's metrics and finish the run's job. Both under
    a lock on the run's job row: parts finishing at the same moment take turns, and the last
    one sees the others succeeded, so the metrics are computed exactly once and a finished run
    never lists a part still running. Returns whether this call finished the run."""
    from .runs import run_items, run_result

    scored = Prediction.objects.filter(run=run, instance=OuterRef("pk"))
    with transaction.atomic():
        parent = Job.objects.select_for_update().get(pk=run.job_id)
        if part_job is not None:
            job_succeed(job_id=part_job.pk, result=part_result or {})
        if parent.status != Job.Status.RUNNING:
            return False
        if parent.children.exclude(status=Job.Status.SUCCEEDED).exists():
            return False  # the last part to finish finishes the run
        items = run_items(dataset=run.dataset, release=run.release)
        if items.filter(~Exists(scored)).exists():
            return False
        result = run_result(run=run)
        result["parts"] = run_parts_summary(run_job=parent)
        logger.info("run %s: every item scored; metrics computed", run.pk)
        return job_succeed(job_id=parent.pk, result=result)


def run_parts_summary(*, run_job: Job) -> list[dict[str, Any]]:
    """Each part's items, status, workers, attempts and recoveries (in part order)."""
    rows = []
    for child in run_job.children.order_by("id"):
        workers = [w for w in child.params.get("workers", []) if w]
        rows.append(
            {
                "part": child.params.get("part"),
                "items": child.params.get("items"),
                "job_id": child.pk,
                "status": child.status,
                "worker": child.worker,
                "workers": workers,
                "attempts": child.attempts,
                "recoveries": child.recoveries,
            }
        )
    return sorted(rows, key=lambda row: row["part"])


# --- hooks of the two job kinds (apps/evaluation/jobs.py) -----------------------------------


def run_job_stopped(*, job: Job) -> None:
    """The run's job was cancelled or failed: stop its parts that are still to run (each sees
    it at its next progress report). Plain updates: no part's own hook runs again."""
    job.children.filter(status__in=(Job.Status.QUEUED, Job.Status.RUNNING)).update(
        status=Job.Status.CANCELLED, eta_seconds=None, finished_at=timezone.now()
    )


def part_job_cancelled(*, job: Job) -> None:
    """Cancelling a part cancels the run (a run with a hole in it is not what was asked)."""
    parent = job.parent
    if parent is not None and not parent.is_finished:
        job_cancel(job=parent)


def part_job_failed(*, job: Job) -> None:
    """A part that failed fails the run with the part's reason."""
    parent = job.parent
    if parent is not None:
        number = (job.params.get("part") or 0) + 1
        job_fail(job_id=parent.pk, error=f"part {number} (job #{job.pk}) failed: {job.error}")
