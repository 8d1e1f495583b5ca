"""Celery tasks of the survey app. Each takes a job id and calls one service through core's
run wrapper (heartbeat, progress, retry policy, outcome)."""

from __future__ import annotations

from celery import shared_task

from apps.core.errors import KasautiError
from apps.core.services import job_run

from .models import Survey
from .services.suggestions import suggestions_compute


@shared_task(bind=True, name="apps.surveys.tasks.compute_suggestions")
def compute_suggestions_task(self, job_id: int) -> None:
    def work(job, report):
        survey = Survey.objects.select_related("dataset").filter(pk=job.params["survey_id"]).first()
        if survey is None:
            raise KasautiError(f"survey #{job.params['survey_id']} no longer exists")
        return suggestions_compute(survey=survey, progress=report)

    job_run(job_id=job_id, task=self, work=work)
