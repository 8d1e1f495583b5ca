"""Import findings (deviations from clean data in a published benchmark) and their reviews."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from .datasets import Dataset
from .items import ContextSentence, SentencePair
from .templates import TemplateVersion


class Finding(models.Model):
    """A deviation from clean data found while importing a published benchmark (a defect to
    review, not a rejection): where it is, what kind, and the original cell. Attached to the
    template version, sentence pair or context sentence it concerns; file-level findings
    belong to the dataset only. `--strict` imports turn every finding into a rejection."""

    class Status(models.TextChoices):
        OPEN = "open", "open"
        ACCEPTED = "accepted", "accepted"
        RESOLVED = "resolved", "resolved"

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="findings")
    template_version = models.ForeignKey(
        TemplateVersion, on_delete=models.CASCADE, null=True, blank=True, related_name="findings"
    )
    sentence_pair = models.ForeignKey(
        SentencePair, on_delete=models.CASCADE, null=True, blank=True, related_name="findings"
    )
    context_sentence = models.ForeignKey(
        ContextSentence, on_delete=models.CASCADE, null=True, blank=True, related_name="findings"
    )
    file = models.CharField(max_length=300, blank=True)
    line = models.PositiveIntegerField(null=True, blank=True)
    field = models.CharField(max_length=100, blank=True)
    kind = models.SlugField(max_length=50)
    message = models.TextField()
    original = models.TextField(blank=True, help_text="The cell as published.")
    status = models.CharField(max_length=10, choices=Status, default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "file", "line", "id"]
        indexes = [models.Index(fields=["dataset", "kind"], name="finding_dataset_kind")]

    def __str__(self) -> str:
        return f"{self.kind} at {self.file}:{self.line} ({self.field})"


class FindingReview(models.Model):
    """One review of a finding: the status it moved from and to, who decided it, when, and
    their note. The finding's status is the last review's; the rows are its history (a bulk
    review of a kind writes one row per finding it changed)."""

    finding = models.ForeignKey(Finding, on_delete=models.CASCADE, related_name="reviews")
    from_status = models.CharField(max_length=10, choices=Finding.Status)
    to_status = models.CharField(max_length=10, choices=Finding.Status)
    note = models.TextField(blank=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    reviewed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["finding", "reviewed_at", "id"]

    def __str__(self) -> str:
        return f"finding {self.finding_id}: {self.from_status} -> {self.to_status}"
