from __future__ import annotations

from celery import shared_task

from apps.core.services import job_progress, job_run

from .models import Dataset
from .services import dataset_instantiate


@shared_task(bind=True, name="apps.catalog.tasks.instantiate_dataset")
def instantiate_dataset_task(self, job_id: int) -> None:
    def work(job):
        dataset = Dataset.objects.get(pk=job.params["dataset_id"])
        return dataset_instantiate(
            dataset=dataset,
            progress=lambda done, total: job_progress(job_id=job_id, done=done, total=total),
        )

    job_run(job_id=job_id, celery_task_id=self.request.id or "", work=work)


@shared_task(bind=True, name="apps.catalog.tasks.import_benchmark")
def import_benchmark_task(self, job_id: int) -> None:
    from .import_jobs import benchmark_import_job_cleanup, benchmark_import_job_work

    try:
        job_run(
            job_id=job_id,
            celery_task_id=self.request.id or "",
            work=lambda job: benchmark_import_job_work(job=job),
        )
    finally:
        benchmark_import_job_cleanup(job_id=job_id)
