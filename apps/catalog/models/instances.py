"""Instances: the generated (or imported) examples, written in bulk and never edited."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from .concepts import Category
from .datasets import Dataset
from .templates import NounForm, Pairing, TemplateVersion


class ContextCondition(models.TextChoices):
    AMBIGUOUS = "ambig", "Ambiguous"
    DISAMBIGUATED = "disambig", "Disambiguated"


class QuestionPolarity(models.TextChoices):
    NEGATIVE = "neg", "Negative"
    NON_NEGATIVE = "nonneg", "Non-negative"


class OptionRole(models.TextChoices):
    STEREOTYPED = "stereotyped", "Stereotyped group"
    NON_STEREOTYPED = "non_stereotyped", "Non-stereotyped group"
    UNKNOWN = "unknown", "Unknown"


class Instance(models.Model):
    """One generated example. Written in bulk (COPY on PostgreSQL), never edited except for
    retirement, so that a release's snapshot stays true."""

    # Indexes and constraints are few on purpose: each is paid for on every one of the hundreds
    # of thousands of rows written per dataset. The composite and unique indexes below lead
    # with dataset and template_version, so those foreign keys need no index of their own.
    # dataset and category are copies of the template's (kept for filtering without joins);
    # the database checks only template_version, the ORM enforces CASCADE/PROTECT for the
    # other two (no per-row trigger at commit).
    dataset = models.ForeignKey(
        Dataset,
        on_delete=models.CASCADE,
        related_name="instances",
        db_index=False,
        db_constraint=False,
    )
    # Null for instances imported from a published instance file (no template behind them).
    template_version = models.ForeignKey(
        TemplateVersion,
        on_delete=models.PROTECT,
        related_name="instances",
        db_index=False,
        null=True,
        blank=True,
    )
    category = models.ForeignKey(
        Category,
        on_delete=models.PROTECT,
        related_name="instances",
        db_index=False,
        db_constraint=False,
    )
    language = models.CharField(max_length=16)
    example_id = models.PositiveIntegerField(help_text="Sequential per dataset and category.")
    question_index = models.CharField(max_length=100, help_text="The template's external id.")
    # Index of the placeholder-value combination within the template's cross product.
    combination = models.PositiveIntegerField()
    # "12" or "21": order of NAME1/NAME2 in the ambiguous context (EsBBQ permutations).
    name_order = models.CharField(max_length=2, default="12")
    context_condition = models.CharField(max_length=8, choices=ContextCondition)
    question_polarity = models.CharField(max_length=6, choices=QuestionPolarity)
    pairing = models.CharField(max_length=20, choices=Pairing)
    proper_noun = models.BooleanField(default=False)
    # db_default: the COPY writers name their columns, so new columns need database defaults.
    noun_form = models.CharField(max_length=12, choices=NounForm, blank=True, db_default="")
    # The id the instance carries in a published file it was imported from (BBQ example_id,
    # EsBBQ instance id, ...), kept so exports and predictions can refer to it.
    source_id = models.CharField(max_length=100, blank=True, db_default="")
    # Fields of a published instance that Kasauti has no column for, kept as they were.
    additional_metadata = models.JSONField(default=dict, blank=True, db_default={})
    placeholder_values = models.JSONField()
    context = models.TextField()
    question = models.TextField()
    ans0 = models.TextField()
    ans1 = models.TextField()
    ans2 = models.TextField()
    # Role of each option, in option order: e.g. ["unknown", "stereotyped", "non_stereotyped"].
    option_roles = models.JSONField()
    # BBQ's answer_info: {"ans0": [text, group label], ...}
    answer_info = models.JSONField()
    label = models.PositiveSmallIntegerField()
    source_instance = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="translations",
        db_index=False,
    )
    retired_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # A translation's review facts, written by the translation app when it assembles the row
    # or replaces it after an accepted correction: {"status": "passed" | "flagged" |
    # "corrected", "similarity" (lowest of its strings), "threshold", "flagged" / "corrected"
    # (source strings), model versions, "revision", "replaces"}. Empty for original rows,
    # whose review status is their template version's. Releases filter on "status" only.
    review = models.JSONField(default=dict, blank=True, db_default={})

    class Meta:
        ordering = ["dataset", "category", "example_id"]
        constraints = [
            # Makes instantiation idempotent: the same version never yields a row twice.
            models.UniqueConstraint(
                fields=[
                    "template_version",
                    "language",
                    "combination",
                    "name_order",
                    "context_condition",
                    "question_polarity",
                    "pairing",
                ],
                # Live rows only: a corrected translation replaces its row with a new revision
                # and retires the old one (kept for history and the releases that froze it).
                condition=Q(retired_at__isnull=True),
                name="instance_identity",
            ),
        ]
        indexes = [
            models.Index(fields=["dataset", "language", "category"], name="instance_ds_lang_cat"),
            # The instance API lists a dataset in id order (keyset pages: WHERE id > last
            # ORDER BY id): without this the planner walks the primary key through every
            # other dataset's rows or sorts the whole dataset on every page (P9).
            models.Index(fields=["dataset", "id"], name="instance_dataset_id"),
            # Only translations have a source; original rows do not pay for this index.
            models.Index(
                fields=["source_instance"],
                condition=Q(source_instance__isnull=False),
                name="instance_source",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.question_index}#{self.example_id} ({self.language})"

    @property
    def answers(self) -> list[str]:
        return [self.ans0, self.ans1, self.ans2]
