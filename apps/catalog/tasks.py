"""Celery tasks of the catalog. Each takes a job id and calls one service through core's run
wrapper (heartbeat, progress, retry policy, outcome)."""

from __future__ import annotations

from celery import shared_task

from apps.core.services import job_run

from .models import Dataset
from .services import dataset_instantiate


@shared_task(bind=True, name="apps.catalog.tasks.instantiate_dataset")
def instantiate_dataset_task(self, job_id: int) -> None:
    def work(job, report):
        dataset = Dataset.objects.get(pk=job.params["dataset_id"])
        return dataset_instantiate(dataset=dataset, progress=report)

    job_run(job_id=job_id, task=self, work=work)


@shared_task(bind=True, name="apps.catalog.tasks.import_benchmark")
def import_benchmark_task(self, job_id: int) -> None:
    from .import_jobs import benchmark_import_job_cleanup, benchmark_import_job_work

    try:
        job_run(
            job_id=job_id,
            task=self,
            work=lambda job, report: benchmark_import_job_work(job=job),
        )
    finally:
        benchmark_import_job_cleanup(job_id=job_id)
