"""Jobs: every long-running piece of work has a row here, so its state survives the worker
that runs it and the browser can show it without asking Celery."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Job(models.Model):
    class Kind(models.TextChoices):
        INSTANTIATE = "instantiate", "Instantiate dataset"
        RELEASE = "release", "Release dataset"
        TRANSLATE = "translate", "Translate"
        IMPORT = "import", "Import benchmark files"
        PING = "ping", "Ping"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    FINISHED = (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED)

    kind = models.CharField(max_length=20, choices=Kind)
    status = models.CharField(max_length=10, choices=Status, default=Status.QUEUED)
    params = models.JSONField(default=dict)
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    celery_task_id = models.CharField(max_length=64, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED
