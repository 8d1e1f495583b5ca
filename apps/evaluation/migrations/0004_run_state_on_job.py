"""A run's state lives on its core Job: EvaluationRun.status, .error and .finished_at go, and
are read from the job (EvaluationRun.status: queued, running, complete; a failed or cancelled
job's run is partial when it has predictions, else failed).

Every existing run keeps its state: a run without a job (an import scored inline) gets a Job
row carrying its status, error and finished time; so does a run whose job says otherwise than
the run did (a job cancelled before it started left its run queued). The run's kind is no
longer a choices field: kinds are registered (apps/evaluation/registry.py), not migrated.
"""

from django.db import migrations, models

# The job kind each run kind runs under (apps/evaluation/kinds.py).
JOB_KIND = {
    "bbq_mc": "evaluate",
    "imported": "import_predictions",
    "crows": "evaluate_crows",
    "seat": "evaluate_seat",
    "indicasa_train": "indicasa_train",
    "indicasa_generate": "indicasa_generate",
}
# The job status that gives back each run status (a failed job's run with predictions is
# partial, without them failed).
JOB_STATUS = {
    "queued": "queued",
    "running": "running",
    "complete": "succeeded",
    "partial": "failed",
    "failed": "failed",
}
FINISHED = ("succeeded", "failed", "cancelled")


def _status_from_job(job, scored: bool) -> str:
    if job is None:
        return "queued"
    if job.status in ("failed", "cancelled"):
        return "partial" if scored else "failed"
    return {"queued": "queued", "running": "running", "succeeded": "complete"}[job.status]


def run_state_to_jobs(apps, schema_editor):
    EvaluationRun = apps.get_model("evaluation", "EvaluationRun")
    Prediction = apps.get_model("evaluation", "Prediction")
    Job = apps.get_model("core", "Job")
    for run in EvaluationRun.objects.select_related("job", "dataset").order_by("pk").iterator():
        scored = Prediction.objects.filter(run_id=run.pk).exists()
        if run.job is not None and _status_from_job(run.job, scored) == run.status:
            continue
        status = JOB_STATUS.get(run.status, "failed")
        result = {"run_id": run.pk}
        if run.kind == "imported":
            report = run.report or {}
            result.update({k: report.get(k) for k in ("rows", "matched", "unmatched", "unparseable")})
        job = Job.objects.create(
            kind=JOB_KIND.get(run.kind, "evaluate"),
            title=f"{run.model_label} on {run.dataset.name} (run {run.pk}, state before 0004)"[:200],
            status=status,
            params={"run_id": run.pk},
            result=result if status == "succeeded" else {},
            error=run.error if status == "failed" else "",
            created_by_id=run.created_by_id,
            started_at=None if status == "queued" else run.created_at,
            finished_at=(run.finished_at or run.created_at) if status in FINISHED else None,
        )
        # auto_now_add set the job's creation to now: it was made with the run.
        Job.objects.filter(pk=job.pk).update(created_at=run.created_at)
        EvaluationRun.objects.filter(pk=run.pk).update(job=job)
    if schema_editor.connection.vendor == "postgresql":
        # Check the new foreign keys now: PostgreSQL refuses to alter a table (the columns
        # dropped next, in the same transaction) while its deferred checks are pending.
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def run_state_from_jobs(apps, schema_editor):
    EvaluationRun = apps.get_model("evaluation", "EvaluationRun")
    Prediction = apps.get_model("evaluation", "Prediction")
    for run in EvaluationRun.objects.select_related("job").order_by("pk").iterator():
        job = run.job
        scored = Prediction.objects.filter(run_id=run.pk).exists()
        status = _status_from_job(job, scored)
        error = ""
        if job is not None and job.status in ("failed", "cancelled"):
            error = job.error or "cancelled"
        finished = job.finished_at if job is not None and job.status in FINISHED else None
        EvaluationRun.objects.filter(pk=run.pk).update(
            status=status, error=error[:2000], finished_at=finished
        )


class Migration(migrations.Migration):
    dependencies = [
        ("evaluation", "0003_model_demo"),
        ("core", "0004_job_progress_samples"),
    ]

    operations = [
        migrations.RunPython(run_state_to_jobs, run_state_from_jobs),
        migrations.RemoveField(model_name="evaluationrun", name="status"),
        migrations.RemoveField(model_name="evaluationrun", name="error"),
        migrations.RemoveField(model_name="evaluationrun", name="finished_at"),
        migrations.AlterField(
            model_name="evaluationrun",
            name="kind",
            field=models.CharField(max_length=20),
        ),
    ]
