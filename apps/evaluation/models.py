"""Evaluation storage: the model registry, prompt templates (data, editable), runs and their
per-item rows.

A run keeps everything needed to audit and recompute it: the exact prompt template text, the
model's identity (name, revision, weights hash, dtype, device), the parameters, and one row per
evaluated item (`Prediction` for BBQ-style items with every option's log-probability, or a
generic `ItemResult` for CrowS-Pairs / SEAT / IndiCASA items). Metrics are recomputed from those
rows by `apps.evaluation.services.run_metrics`.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.db import models

from apps.catalog.models import Dataset, Instance
from apps.core.models import Job
from apps.releases.models import Release
from worker.engines.endpoint import endpoint_url_problem
from worker.engines.errors import README_ANCHOR


def endpoint_problem(*, url: str) -> str | None:
    """Why the server may not send requests to `url` (KASAUTI_EVAL_ENDPOINT_HOSTS); checked
    when a model is registered and again when a run starts."""
    return endpoint_url_problem(url, settings.KASAUTI_EVAL_ENDPOINT_HOSTS)


# How a demo model's figures are labelled wherever they are shown.
DEMO_LABEL = "random weights, demo"


class ModelKind(models.TextChoices):
    CAUSAL_LM = "causal_lm", "Causal language model"
    MASKED_LM = "masked_lm", "Masked language model"
    SENTENCE_ENCODER = "sentence_encoder", "Sentence encoder"
    ENDPOINT = "endpoint", "OpenAI-compatible completions endpoint"


class ModelEntry(models.Model):
    """A model Kasauti can evaluate: a local Hugging Face directory (never downloaded) or an
    OpenAI-compatible /v1/completions endpoint that returns prompt log-probabilities."""

    name = models.CharField(max_length=100, unique=True)
    kind = models.CharField(max_length=20, choices=ModelKind)
    # A local directory; a relative path is taken under settings.KASAUTI_MODEL_ROOT.
    path = models.CharField(max_length=500, blank=True)
    endpoint_url = models.URLField(max_length=500, blank=True)
    # The model name the endpoint serves (the "model" field of the completions request).
    endpoint_model = models.CharField(max_length=200, blank=True)
    dtype = models.CharField(max_length=10, default="float32")
    device = models.CharField(max_length=20, default="cpu")
    notes = models.TextField(blank=True)
    # Built by `manage.py build_demo_eval_models` with random weights so the evaluation pages
    # can be tried on `make run`: every page showing its figures says so (DEMO_LABEL).
    demo = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "model"

    def __str__(self) -> str:
        return self.name

    @property
    def is_endpoint(self) -> bool:
        return self.kind == ModelKind.ENDPOINT

    def resolved_path(self) -> Path:
        """The model directory: `path` itself if absolute, else under KASAUTI_MODEL_ROOT."""
        path = Path(self.path).expanduser()
        return path if path.is_absolute() else Path(settings.KASAUTI_MODEL_ROOT) / path

    def files_problem(self) -> str | None:
        """Why this entry cannot be loaded as it stands (None: it can). Runs refuse to start
        with this message; the models page shows it beside the entry."""
        if self.is_endpoint:
            if not self.endpoint_url:
                return f"model {self.name!r} is an endpoint without a URL"
            return endpoint_problem(url=self.endpoint_url)
        path = self.resolved_path()
        if not path.is_dir():
            return (
                f"model directory for {self.name!r} does not exist: {path} (set the model's path, "
                f"or KASAUTI_MODEL_ROOT for relative paths; see {README_ANCHOR})"
            )
        if not (path / "config.json").is_file():
            return (
                f"model directory for {self.name!r} has no config.json: {path} (a Hugging Face "
                f"model directory is expected; see {README_ANCHOR})"
            )
        return None


class InstructionLanguage(models.TextChoices):
    ENGLISH = "en", "English instruction"
    TARGET = "target", "Instruction in the item's language"


class PromptTemplate(models.Model):
    """A BBQ-style multiple-choice prompt (BharatBBQ Appendix C), as editable data.

    `text` is the whole prompt with named fields: {ctx}, {qn}, {a}, {b}, {c} (the three
    options in order) and, for two-shot templates, {examples} where the solved examples go.
    `example_text` is one solved example, with the same fields plus {answer}. The option being
    scored is appended to the rendered prompt as its continuation."""

    name = models.CharField(max_length=100, unique=True)
    # The language of the instruction text ("en", "hi", ...).
    instruction_language = models.CharField(max_length=16, default="en")
    # The items' language this template is for; blank: any language.
    language = models.CharField(max_length=16, blank=True)
    shots = models.PositiveSmallIntegerField(choices=[(0, "zero-shot"), (2, "two-shot")])
    text = models.TextField()
    example_text = models.TextField(blank=True)
    notes = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["instruction_language", "shots", "name"]

    def __str__(self) -> str:
        return self.name


class RunKind(models.TextChoices):
    """The names and labels of the built-in evaluation kinds (what each kind is and does:
    apps/evaluation/kinds.py). Not the field's choices: a new kind is registered, not migrated."""

    BBQ_MC = "bbq_mc", "BBQ multiple choice (log-likelihood)"
    IMPORTED = "imported", "Imported predictions"
    CROWS = "crows", "CrowS-Pairs bias percentage"
    SEAT = "seat", "SEAT effect sizes"
    INDICASA_TRAIN = "indicasa_train", "IndiCASA contrastive encoder"
    INDICASA_GENERATE = "indicasa_generate", "IndiCASA generation bias score"


class RunStatus(models.TextChoices):
    """A run's status as pages and the API show it, read from its job (EvaluationRun.status)."""

    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    # Some items scored, then the job stopped (cancelled, failed, or waiting to resume):
    # the stored predictions are real but the results are not those of the whole release.
    PARTIAL = "partial", "Partial"
    COMPLETE = "complete", "Complete"
    FAILED = "failed", "Failed"


# A run's status while its job is unfinished or has succeeded; a failed or cancelled job's run
# is partial or failed (EvaluationRun.status).
STATUS_OF_JOB = {
    Job.Status.QUEUED: RunStatus.QUEUED,
    Job.Status.RUNNING: RunStatus.RUNNING,
    Job.Status.SUCCEEDED: RunStatus.COMPLETE,
}


class EvaluationRun(models.Model):
    # A registered evaluation kind's name (apps/evaluation/registry.py).
    kind = models.CharField(max_length=20)
    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="evaluation_runs")
    release = models.ForeignKey(
        Release, null=True, blank=True, on_delete=models.PROTECT, related_name="evaluation_runs"
    )
    model = models.ForeignKey(
        ModelEntry, null=True, blank=True, on_delete=models.PROTECT, related_name="runs"
    )
    # What the results are labelled with: the model entry's name, or the --model LABEL of an
    # import (predictions made elsewhere have no entry).
    model_label = models.CharField(max_length=200)
    prompt_template = models.ForeignKey(
        PromptTemplate, null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )
    shots = models.PositiveSmallIntegerField(default=0)
    instruction_language = models.CharField(
        max_length=16, choices=InstructionLanguage, default=InstructionLanguage.ENGLISH
    )
    # The exact template text(s) used, by item language ({"hi": "...", "en": "..."}), copied
    # when the run starts: editing a template later does not change what a run says it used.
    prompt_text = models.JSONField(default=dict, blank=True)
    # One fully rendered prompt (the first item's), for reading.
    prompt_example = models.TextField(blank=True)
    params = models.JSONField(default=dict, blank=True)
    # name, revision, sha256 of the weights, dtype, device (from the engine).
    model_info = models.JSONField(default=dict, blank=True)
    # The job the run is computed by (imports: the one that scored them): where its state
    # (status, error, finished time) lives. Null only while the run is being created.
    job = models.ForeignKey(
        Job, null=True, blank=True, on_delete=models.SET_NULL, related_name="evaluation_runs"
    )
    # {"overall": {...}, "by_category": {...}, "by_category_language_condition": [...], ...}
    results = models.JSONField(default=dict, blank=True)
    # Imports: {"matched": n, "unmatched": n, "unparseable": n, "unmatched_ids": [...], ...}
    report = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Run {self.pk}: {self.model_label} on {self.dataset.name}"

    @property
    def evaluation_kind(self):
        """What this kind of run is and does (raises for an unregistered kind)."""
        from .registry import evaluation_kind_get

        return evaluation_kind_get(self.kind)

    @property
    def kind_label(self) -> str:
        from .registry import evaluation_kind_get

        try:
            return evaluation_kind_get(self.kind).label
        except LookupError:
            return self.kind

    @property
    def has_predictions(self) -> bool:
        """Some items were scored (selectors.run_list annotates it; else one query)."""
        if hasattr(self, "scored"):
            return bool(self.scored)
        return self.predictions.exists()

    @property
    def status(self) -> str:
        """Read from the job: queued, running, complete; a stopped job (failed, cancelled) is
        `partial` when some items were scored, else `failed`."""
        if self.job is None:
            return RunStatus.QUEUED
        if self.job.status in STATUS_OF_JOB:
            return STATUS_OF_JOB[self.job.status]
        return RunStatus.PARTIAL if self.has_predictions else RunStatus.FAILED

    @property
    def error(self) -> str:
        """Why the run stopped: its job's error, or for a cancelled job its kind's message."""
        job = self.job
        if job is None or job.status not in (Job.Status.FAILED, Job.Status.CANCELLED):
            return ""
        if job.error or job.status == Job.Status.FAILED:
            return job.error
        from .registry import evaluation_kind_get

        try:
            return evaluation_kind_get(self.kind).cancelled_error
        except LookupError:
            return "cancelled"

    @property
    def finished_at(self):
        return self.job.finished_at if self.job is not None and self.job.is_finished else None

    @property
    def is_complete(self) -> bool:
        return self.status == RunStatus.COMPLETE

    @property
    def is_demo(self) -> bool:
        """Scored by a random-weight demo model: its figures mean nothing."""
        return self.model is not None and self.model.demo


class Prediction(models.Model):
    """One BBQ-style item of a run: what the model chose and every option's score."""

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="predictions")
    # PROTECT: an instance a run was scored on cannot disappear from under its results.
    instance = models.ForeignKey(
        Instance, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    # The id the prediction was matched by (source id or Kasauti example id) for imports.
    item_key = models.CharField(max_length=100, blank=True)
    # 0, 1 or 2; null when an imported answer could not be parsed (counted, not dropped).
    chosen = models.PositiveSmallIntegerField(null=True, blank=True)
    # The answer as it was given in an imported file.
    raw = models.TextField(blank=True)
    # Per option, in option order; empty when not known (an import without log-probs).
    sum_logprobs = models.JSONField(default=list, blank=True)
    mean_logprobs = models.JSONField(default=list, blank=True)
    n_tokens = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["run", "id"]
        constraints = [
            # Makes writing idempotent: a resumed run never stores an item twice.
            models.UniqueConstraint(fields=["run", "instance"], name="prediction_once_per_run")
        ]

    def __str__(self) -> str:
        return f"run {self.run_id} instance {self.instance_id}: {self.chosen}"


class ItemResult(models.Model):
    """One item of a CrowS-Pairs, SEAT or IndiCASA run; what it holds depends on the kind."""

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="item_results")
    item_key = models.CharField(max_length=200)
    category = models.CharField(max_length=100, blank=True)
    language = models.CharField(max_length=16, blank=True)
    payload = models.JSONField(default=dict)

    class Meta:
        ordering = ["run", "id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "item_key"], name="item_result_once_per_run")
        ]

    def __str__(self) -> str:
        return f"run {self.run_id} {self.item_key}"
