"""Machine translation of a dataset into Indian languages (BharatBBQ §3.4, §3.8).

Reading order: TranslationJob (what to translate, its progress) -> TranslationChunk (the unit of
work a GPU worker runs; a crash loses at most one) -> TranslatedString (the cache and the result,
one row per source text x language x model versions) -> CorrectionItem / CorrectionRevision (the
human correction queue for what the automatic check flagged).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

# ISO code (what Instance.language stores) -> FLORES-200 tag (what IndicTrans2 expects).
LANGUAGE_TAGS: dict[str, str] = {
    "hi": "hin_Deva",
    "mr": "mar_Deva",
    "bn": "ben_Beng",
    "ta": "tam_Taml",
    "te": "tel_Telu",
    "or": "ory_Orya",
    "as": "asm_Beng",
}
ENGLISH_TAG = "eng_Latn"
DEFAULT_THRESHOLD = 0.75


class TranslationSource(models.TextChoices):
    INSTANCES = "instances", "Instances (BBQ templates)"
    SENTENCE_PAIRS = "sentence_pairs", "Sentence pairs"
    CONTEXT_SETS = "context_sets", "Context-set sentences"


class TranslationJob(models.Model):
    """What only a translation job has. Its state (status, progress done/total, rate, ETA,
    heartbeat, error, result, who and when) is its core Job's, the one record of every
    background job; the read-only properties below show it for convenience."""

    class Phase(models.TextChoices):
        PENDING = "pending", "Waiting for a worker"
        TRANSLATING = "translating", "Translating"
        ASSEMBLING = "assembling", "Assembling translated items"
        DONE = "done", "Done"

    core_job = models.OneToOneField(
        "core.Job", on_delete=models.CASCADE, related_name="translation"
    )
    dataset = models.ForeignKey(
        "catalog.Dataset", on_delete=models.CASCADE, related_name="translation_jobs"
    )
    # When set, only the instances frozen in this release are translated.
    release = models.ForeignKey(
        "releases.Release",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="translation_jobs",
    )
    languages = models.JSONField(help_text="Target ISO codes, e.g. ['hi', 'ta'].")
    threshold = models.FloatField(default=DEFAULT_THRESHOLD)
    source = models.CharField(
        max_length=20, choices=TranslationSource, default=TranslationSource.INSTANCES
    )
    # Filled when the job starts: the cache key part of every string it produces or reuses.
    forward_model_version = models.CharField(max_length=100, blank=True)
    backward_model_version = models.CharField(max_length=100, blank=True)
    embedder_version = models.CharField(max_length=100, blank=True)
    phase = models.CharField(max_length=12, choices=Phase, default=Phase.PENDING)
    # Strings (unique source text x language); the job's progress counts them. Cached strings
    # count as done.
    strings_in_items = models.PositiveIntegerField(default=0)
    unique_strings = models.PositiveIntegerField(default=0)
    cached_strings = models.PositiveIntegerField(default=0)
    # {"hi": {"total": 120, "done": 64, "cached": 10}, ...}
    progress_by_language = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"Translation #{self.pk} of {self.dataset_id} ({self.status})"

    # --- the core job's state, read-only ---
    @property
    def status(self) -> str:
        return self.core_job.status

    @property
    def is_finished(self) -> bool:
        return self.core_job.is_finished

    @property
    def error(self) -> str:
        return self.core_job.error

    @property
    def result(self) -> dict:
        return self.core_job.result

    @property
    def done_strings(self) -> int:
        return self.core_job.progress_done

    @property
    def total_strings(self) -> int:
        return self.core_job.progress_total

    @property
    def created_by(self):
        return self.core_job.created_by

    @property
    def uses_demo_models(self) -> bool:
        return is_demo_model(self.forward_model_version, self.backward_model_version)

    @property
    def model_version(self) -> str:
        """The cache key part: a string is reused only if all three models are the same."""
        return translation_model_version(
            self.forward_model_version, self.backward_model_version, self.embedder_version
        )


# The version `manage.py build_demo_models` pins on the random-weight demo models it writes:
# their output is gibberish, and every page showing it says so (translation/_demo_note.html).
DEMO_VERSION = "demo-random-weights"


def is_demo_model(*versions: str) -> bool:
    return any((version or "").startswith(DEMO_VERSION) for version in versions)


def translation_model_version(forward: str, backward: str, embedder: str) -> str:
    return f"{forward}|{backward}|{embedder}"


class TranslatedString(models.Model):
    """One source text translated into one language by one set of models: the cache and the
    result. The unique key is what makes a redelivered chunk harmless."""

    text_hash = models.CharField(max_length=64, help_text="SHA-256 of the source text.")
    language = models.CharField(max_length=16)
    model_version = models.CharField(max_length=255)
    source_text = models.TextField()
    translation = models.TextField()
    back_translation = models.TextField()
    similarity = models.FloatField()
    # Judged against the threshold of the job that produced the row (kept next to it); a job
    # reusing the row with another threshold judges it again with its own.
    threshold = models.FloatField()
    passed = models.BooleanField()
    forward_model_version = models.CharField(max_length=100)
    backward_model_version = models.CharField(max_length=100)
    embedder_version = models.CharField(max_length=100)
    # Wall time of the chunk that produced the row, divided by its strings.
    ms_per_string = models.FloatField(default=0)
    produced_by = models.ForeignKey(
        TranslationJob, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["language", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["text_hash", "language", "model_version"], name="translated_string_key"
            )
        ]

    def __str__(self) -> str:
        return f"{self.source_text[:40]} -> {self.language}"

    @property
    def from_demo_models(self) -> bool:
        return is_demo_model(self.forward_model_version, self.backward_model_version)


class TranslationJobString(models.Model):
    """Which strings a job used, produced or taken from the cache (the job's result table)."""

    job = models.ForeignKey(TranslationJob, on_delete=models.CASCADE, related_name="job_strings")
    string = models.ForeignKey(TranslatedString, on_delete=models.CASCADE, related_name="+")
    cached = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["job", "string"], name="translation_job_string")
        ]

    def __str__(self) -> str:
        return f"job {self.job_id} string {self.string_id}"


class TranslationChunk(models.Model):
    """A batch of source texts for one language, run by one translate_chunk task. The texts
    live here rather than in the Celery message, so a resume re-sends only the chunk id."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DONE = "done", "Done"

    job = models.ForeignKey(TranslationJob, on_delete=models.CASCADE, related_name="chunks")
    language = models.CharField(max_length=16)
    index = models.PositiveIntegerField()
    texts = models.JSONField(help_text="Source texts, sorted by length.")
    size = models.PositiveIntegerField()
    status = models.CharField(max_length=8, choices=Status, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    # Strings this chunk actually sent to the models (0 when all were cached meanwhile).
    translated = models.PositiveIntegerField(default=0)
    duration_ms = models.FloatField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["job", "language", "index"]
        constraints = [
            models.UniqueConstraint(
                fields=["job", "language", "index"], name="translation_chunk_identity"
            )
        ]
        indexes = [models.Index(fields=["job", "status"], name="translation_chunk_status")]

    def __str__(self) -> str:
        return f"job {self.job_id} {self.language} #{self.index} ({self.status})"


class CorrectionItem(models.Model):
    """Something a human should check: a string below the similarity threshold, or a translated
    instance whose answer options do not appear in its context. Never edited silently: every
    correction is a CorrectionRevision."""

    class Kind(models.TextChoices):
        LOW_SIMILARITY = "low_similarity", "Low back-translation similarity"
        OPTION_MISMATCH = "option_mismatch", "Answer option not found in context"

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        RESOLVED = "resolved", "Resolved"

    job = models.ForeignKey(
        TranslationJob, null=True, blank=True, on_delete=models.SET_NULL, related_name="corrections"
    )
    kind = models.CharField(max_length=20, choices=Kind)
    language = models.CharField(max_length=16)
    translated_string = models.ForeignKey(
        TranslatedString,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="corrections",
    )
    instance = models.ForeignKey(
        "catalog.Instance",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="corrections",
    )
    reason = models.TextField()
    status = models.CharField(max_length=10, choices=Status, default=Status.OPEN)
    corrected_text = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["status", "language", "id"]
        constraints = [
            # One queue entry per flagged string / instance, however many jobs flag it again.
            models.UniqueConstraint(
                fields=["translated_string"],
                condition=Q(translated_string__isnull=False),
                name="correction_per_string",
            ),
            models.UniqueConstraint(
                fields=["instance"],
                condition=Q(instance__isnull=False),
                name="correction_per_instance",
            ),
        ]
        indexes = [models.Index(fields=["status", "language"], name="correction_status_lang")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} ({self.language}, {self.status})"


class CorrectionRevision(models.Model):
    """Append-only history of a correction item."""

    item = models.ForeignKey(CorrectionItem, on_delete=models.CASCADE, related_name="revisions")
    previous_text = models.TextField(blank=True)
    text = models.TextField()
    status = models.CharField(max_length=10, choices=CorrectionItem.Status)
    note = models.TextField(blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "created_at", "id"]

    def __str__(self) -> str:
        return f"revision of item {self.item_id} ({self.status})"
