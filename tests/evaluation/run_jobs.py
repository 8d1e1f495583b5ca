"""Run an evaluation run's job in the test's process, as its task does in a worker: core's
job_run around the run's work (services.lifecycle.evaluation_run_execute), so the job records
the outcome and the run's status (read from its job) is what a worker would leave."""

from __future__ import annotations

from typing import Any

from apps.core.models import Job
from apps.core.services import JobCancelled, job_cancel, job_run
from apps.evaluation.services.lifecycle import evaluation_run_execute


def run_job_execute(*, run, progress, **options: Any) -> dict[str, Any]:
    """Execute `run`'s job here, the work reporting to `progress`. What the work raised is
    raised again after core has recorded it (failed or cancelled job). A `progress` that
    raises JobCancelled stands for a cancel: the job is cancelled first, as core's progress
    report does before it raises. Returns the job's result."""
    raised: list[BaseException] = []

    def work(job, report):
        try:
            return evaluation_run_execute(run=run, progress=progress, **options)
        except JobCancelled as exc:
            job = Job.objects.get(pk=job.pk)
            if not job.is_finished:
                job_cancel(job=job)
            raised.append(exc)
            raise
        except Exception as exc:
            raised.append(exc)
            raise

    try:
        job_run(job_id=run.job_id, work=work)
    except Exception as exc:  # job_run re-raises what is not a domain error, once recorded
        if not raised or raised[0] is not exc:
            raise
    if raised:
        raise raised[0]
    return Job.objects.get(pk=run.job_id).result
