"""Migration 0004: a run's status, error and finished time move onto its job, and every
existing run reads back the state it had."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.evaluation.bbq_data import bbq_dataset

BEFORE = [("evaluation", "0003_model_demo"), ("core", "0004_job_progress_samples")]
# After: every app at its latest migration (evaluation 0004 and what came later, e.g. core's
# Job.worker, which the live models below read), as the rest of the suite expects the schema.
AFTER = None


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    if targets is None:
        targets = executor.loader.graph.leaf_nodes()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


# serialized_rollback as the worker tests: its flush must leave the base rows as they expect.
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_every_run_keeps_its_state():
    dataset = bbq_dataset(languages=("en",))  # catalog rows, untouched by the migration
    instance_id = dataset.instances.order_by("id").values_list("id", flat=True)[0]
    old = _migrate(BEFORE)
    Run = old.get_model("evaluation", "EvaluationRun")
    Prediction = old.get_model("evaluation", "Prediction")
    Job = old.get_model("core", "Job")
    dataset_id = dataset.pk
    finished = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    created = {}

    def run(name, status, *, job=None, error="", predictions=False, kind="bbq_mc"):
        created[name] = Run.objects.create(
            kind=kind,
            status=status,
            dataset_id=dataset_id,
            model_label=name,
            job=job,
            error=error,
            finished_at=finished if status in ("complete", "partial", "failed") else None,
        )
        if predictions:
            Prediction.objects.create(run=created[name], instance_id=instance_id, chosen=0)

    # An inline import (no job), and runs whose job agrees or disagrees with them.
    run("imported", "complete", kind="imported")
    succeeded = Job.objects.create(kind="evaluate", status="succeeded", finished_at=finished)
    run("agrees", "complete", job=succeeded, predictions=True)
    # Cancelled before a worker took it: the run stayed queued.
    cancelled = Job.objects.create(kind="evaluate", status="cancelled", finished_at=finished)
    run("queued", "queued", job=cancelled)
    stopped = Job.objects.create(kind="evaluate", status="running")
    run("partial", "partial", job=stopped, error="cancelled", predictions=True)
    run("failed", "failed", error="no such directory", kind="crows")
    jobs_before = Job.objects.count()

    _migrate(AFTER)
    from apps.core.models import Job as LiveJob
    from apps.evaluation.models import EvaluationRun

    runs = {r.model_label: r for r in EvaluationRun.objects.select_related("job")}
    assert {name: r.status for name, r in runs.items()} == {
        "imported": "complete",
        "agrees": "complete",
        "queued": "queued",
        "partial": "partial",
        "failed": "failed",
    }
    assert runs["agrees"].job_id == succeeded.pk  # a job that agrees is kept
    assert runs["partial"].error == "cancelled" and runs["failed"].error == "no such directory"
    assert runs["imported"].job.kind == "import_predictions"
    assert runs["failed"].job.kind == "evaluate_crows"
    for name in ("imported", "partial", "failed"):
        assert runs[name].finished_at == finished
    assert runs["queued"].finished_at is None
    assert LiveJob.objects.count() == jobs_before + 4  # imported, queued, partial, failed

    # And back: the columns return with the same state.
    reverted = _migrate(BEFORE)
    Run = reverted.get_model("evaluation", "EvaluationRun")
    states = {r.model_label: (r.status, r.error) for r in Run.objects.all()}
    assert states["partial"] == ("partial", "cancelled")
    assert states["failed"] == ("failed", "no such directory")
    assert states["queued"][0] == "queued" and states["imported"][0] == "complete"
    _migrate(AFTER)
