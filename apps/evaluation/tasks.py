"""Celery tasks of the evaluation app: each takes a job id and runs one service through core's
run wrapper. Routed to the `gpu` queue (kasauti/settings/base.py CELERY_TASK_ROUTES)."""

from __future__ import annotations

from celery import shared_task

from apps.core.services import job_run

from .models import EvaluationRun


def _run_service(task, job_id: int, execute) -> None:
    def work(job, report):
        run = EvaluationRun.objects.select_related("dataset", "model").get(pk=job.params["run_id"])
        return execute(run=run, progress=report)

    job_run(job_id=job_id, task=task, work=work)


@shared_task(bind=True, name="apps.evaluation.tasks.crows_run")
def crows_run_task(self, job_id: int) -> None:
    from .services.crows import crows_run_execute

    _run_service(self, job_id, crows_run_execute)


@shared_task(bind=True, name="apps.evaluation.tasks.seat_run")
def seat_run_task(self, job_id: int) -> None:
    from .services.seat import seat_run_execute

    _run_service(self, job_id, seat_run_execute)


@shared_task(bind=True, name="apps.evaluation.tasks.indicasa_train_run")
def indicasa_train_run_task(self, job_id: int) -> None:
    from .services.indicasa import indicasa_train_run_execute

    _run_service(self, job_id, indicasa_train_run_execute)


@shared_task(bind=True, name="apps.evaluation.tasks.indicasa_generate_run")
def indicasa_generate_run_task(self, job_id: int) -> None:
    from .services.indicasa import indicasa_generate_run_execute

    _run_service(self, job_id, indicasa_generate_run_execute)


@shared_task(bind=True, name="apps.evaluation.tasks.evaluate_run")
def evaluate_run_task(self, job_id: int) -> None:
    """A BBQ-style multiple-choice run (services/runs.py); resumable: scored items stay."""
    from .services.runs import run_execute

    _run_service(self, job_id, run_execute)


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
