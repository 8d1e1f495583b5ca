"""Celery tasks of the evaluation app: each takes a job id and runs the job's run through the
one lifecycle (services/lifecycle.py, which calls the run's kind's work) inside core's run
wrapper. `evaluation_run` serves any kind (the run's kind decides the work): a new kind's
JobKind names it. The built-in kinds keep their own task names, so that messages already
queued keep their meaning. Routed to the `gpu` queue (kasauti/settings/base.py
CELERY_TASK_ROUTES)."""

from __future__ import annotations

from celery import shared_task

from apps.core.services import job_run

from .models import EvaluationRun


def _run_job(task, job_id: int) -> None:
    from .services.lifecycle import evaluation_run_execute

    def work(job, report):
        run = EvaluationRun.objects.select_related("dataset", "model").get(pk=job.params["run_id"])
        return evaluation_run_execute(run=run, progress=report)

    job_run(job_id=job_id, task=task, work=work)


@shared_task(bind=True, name="apps.evaluation.tasks.evaluation_run")
def evaluation_run_task(self, job_id: int) -> None:
    _run_job(self, job_id)


@shared_task(bind=True, name="apps.evaluation.tasks.evaluate_run")
def evaluate_run_task(self, job_id: int) -> None:
    """A BBQ-style multiple-choice run (services/runs.py); resumable: scored items stay."""
    _run_job(self, job_id)


@shared_task(bind=True, name="apps.evaluation.tasks.evaluate_part")
def evaluate_part_task(self, job_id: int) -> None:
    """One part of a run split across workers (services/parts.py); idempotent."""
    from .services.parts import run_part_execute

    job_run(
        job_id=job_id,
        task=self,
        work=lambda job, report: run_part_execute(job=job, progress=report),
    )


@shared_task(bind=True, name="apps.evaluation.tasks.crows_run")
def crows_run_task(self, job_id: int) -> None:
    _run_job(self, job_id)


@shared_task(bind=True, name="apps.evaluation.tasks.seat_run")
def seat_run_task(self, job_id: int) -> None:
    _run_job(self, job_id)


@shared_task(bind=True, name="apps.evaluation.tasks.indicasa_train_run")
def indicasa_train_run_task(self, job_id: int) -> None:
    _run_job(self, job_id)


@shared_task(bind=True, name="apps.evaluation.tasks.indicasa_generate_run")
def indicasa_generate_run_task(self, job_id: int) -> None:
    _run_job(self, job_id)


@shared_task(bind=True, name="apps.evaluation.tasks.import_predictions")
def import_predictions_task(self, job_id: int) -> None:
    """A predictions file too large to import inside the request (services/imports.py)."""
    from .services.imports import predictions_import_job_cleanup, predictions_import_job_work

    try:
        job_run(
            job_id=job_id,
            task=self,
            work=lambda job, report: predictions_import_job_work(job=job),
        )
    finally:
        predictions_import_job_cleanup(job_id=job_id)
