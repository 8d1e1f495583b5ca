from __future__ import annotations

from celery import shared_task

from .services import job_run


@shared_task(bind=True, name="apps.core.tasks.ping")
def ping(self, job_id: int) -> dict[str, str]:
    """A trivial job: proves that web, broker, worker and database are wired together."""
    job_run(job_id=job_id, celery_task_id=self.request.id or "", work=lambda job: {"pong": True})
    return {"pong": "ok"}
