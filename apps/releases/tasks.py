"""Celery tasks of the releases app: take a job id, call one service through core's run
wrapper."""

from __future__ import annotations

from celery import shared_task

from apps.catalog.models import Dataset
from apps.core.services import job_run

from .services import release_create, release_summary


@shared_task(bind=True, name="apps.releases.tasks.release_dataset_task")
def release_dataset_task(self, job_id: int) -> None:
    """Create a release for the job's dataset; the job's result is the release summary."""

    def work(job, report):
        dataset = Dataset.objects.get(pk=job.params["dataset_id"])
        release = release_create(
            dataset=dataset,
            created_by=job.created_by,
            notes=job.params.get("notes", ""),
            content=job.params.get("content", "reviewed"),
            progress=report,
        )
        return release_summary(release=release)

    job_run(job_id=job_id, task=self, work=work)
