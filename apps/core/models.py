"""Jobs: every background piece of work (instantiation, release, translation, and whatever the
next apps add) is one row here, so its state survives the worker that runs it and every page,
API and poller reads the same record. What a kind of job is (its task, its links, how it is
resumed) is registered in apps/core/registry.py by the app that owns it."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Job(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    FINISHED = (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED)

    # A registered JobKind name (apps/core/registry.py); not choices, so that a new app adds
    # its kind without a core migration.
    kind = models.CharField(max_length=40, db_index=True)
    # What a person reads in lists and headings: "Instantiate dataset BBQ-Age".
    title = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=10, choices=Status, default=Status.QUEUED)
    params = models.JSONField(default=dict)
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    progress_done = models.PositiveBigIntegerField(default=0)
    progress_total = models.PositiveBigIntegerField(default=0)
    # What progress counts: "instances", "strings", "rows"...
    progress_unit = models.CharField(max_length=20, blank=True)
    rate = models.FloatField(null=True, blank=True, help_text="Units per second.")
    eta_seconds = models.FloatField(null=True, blank=True)
    # [[unix time, done], ...] over the last KASAUTI_JOB_RATE_WINDOW_SECONDS of this attempt:
    # what `rate` is measured on (apps/core/heartbeat.py, progress_measure).
    progress_samples = models.JSONField(default=list, blank=True)
    celery_task_id = models.CharField(max_length=64, blank=True)
    # The worker that last took the job up (Celery's node name, "celery@gpu-3"): which machine
    # ran which part of a sharded job.
    worker = models.CharField(max_length=200, blank=True)
    # A job split into parts (an evaluation run over a large release) is the parent of one job
    # per part; each part has its own heartbeat, so the watchdog re-runs a dead part alone, and
    # a parent whose parts are still queued or running is alive while it waits for them.
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children"
    )
    # Times a worker took the job up (starts, resumes and recoveries).
    attempts = models.PositiveIntegerField(default=0)
    # Times the watchdog found the job's heartbeat stopped and re-queued it.
    recoveries = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    # Written every few seconds by the worker running the job; how a dead worker is noticed.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "heartbeat_at"], name="job_status_heartbeat")]

    def __str__(self) -> str:
        return f"{self.title or self.kind} #{self.pk} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED

    @property
    def display_title(self) -> str:
        return self.title or f"{self.kind_label} #{self.pk}"

    @property
    def kind_label(self) -> str:
        from .registry import job_kind_get

        kind = job_kind_get(self.kind, default=None)
        return kind.label if kind else self.kind
