"""Templates (a stable identity in a dataset) and their immutable versions (the content)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from .concepts import Category, StereotypeConcept
from .datasets import Dataset


class Pairing(models.TextChoices):
    """Whether the disambiguating context confirms the stereotype (BharatBBQ's NP) or assigns
    it to the non-stereotyped group (NNP)."""

    STEREOTYPICAL = "stereotypical", "Stereotypical (NP)"
    ANTI_STEREOTYPICAL = "anti-stereotypical", "Anti-stereotypical (NNP)"


class TransformationType(models.TextChoices):
    SAMPLE_REMOVED = "SR", "Sample Removed"
    TARGET_MODIFIED = "TM", "Target Modified"
    CULTURALLY_TRANSFORMED = "CT", "Culturally Transformed"
    SIMPLY_TRANSFERRED = "ST", "Simply Transferred"
    NEWLY_CREATED = "NC", "Newly Created"


class NounForm(models.TextChoices):
    PROPER_NAME = "proper_name", "proper name"
    COMMON_NOUN = "common_noun", "common noun"
    GROUP_LABEL = "group_label", "group label"


class ReviewStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    IN_REVIEW = "in_review", "In review"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"


class Template(models.Model):
    """The stable identity of a BBQ-style template inside a dataset. Its content lives in
    TemplateVersion rows: an edit never changes a version, it adds one."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="templates")
    external_id = models.CharField(
        max_length=100, help_text="Id in the source file (e.g. BBQ's Q_id), unique per dataset."
    )
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="templates")
    # BBQ's Q_id and its `version` letter (a, b, ...): several templates may share a Q_id.
    question_index = models.CharField(max_length=50, blank=True)
    variant = models.CharField(max_length=20, blank=True)
    # Position in the import, so that instantiation order (and example ids) is reproducible.
    position = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "external_id"], name="template_ext_id")
        ]

    def __str__(self) -> str:
        return f"{self.dataset.name}:{self.external_id}"

    @property
    def current_version(self) -> TemplateVersion | None:
        from ..selectors import template_current_versions  # selectors import the models

        return template_current_versions(templates=[self]).first()


class TemplateVersion(models.Model):
    """One immutable version of a template's content (BBQ structure).

    Placeholders are a dict {"NAME1": [...], "NAME2": [...], "WORD1": [...],
    "NAME1-def": [...], "NAME1-indef": [...]}. A -def/-indef list is aligned index by index
    with its bare list. `target_placeholder` names which of NAME1/NAME2 carries the
    stereotyped group.
    """

    # The one list of a template's texts (the BBQ template's six sentences, with placeholders):
    # importers, validation, the admin and the review form all read it from here.
    TEXT_FIELDS = (
        "ambiguous_context",
        "disambiguating_context",
        "question_negative",
        "question_non_negative",
        "answer_negative",
        "answer_non_negative",
    )

    template = models.ForeignKey(Template, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    language = models.CharField(max_length=16, default="en")
    ambiguous_context = models.TextField()
    disambiguating_context = models.TextField()
    question_negative = models.TextField()
    question_non_negative = models.TextField()
    # Answer templates, e.g. "The {{NAME1}}": as written, answer_negative answers the negative
    # question in the disambiguated context (BBQ's Answer_negative column).
    answer_negative = models.TextField(default="{{NAME1}}")
    answer_non_negative = models.TextField(default="{{NAME2}}")
    placeholders = models.JSONField(default=dict)
    # Group label for each NAME value (e.g. a surname's caste), parallel to placeholders.
    placeholder_groups = models.JSONField(default=dict, blank=True)
    # For lists taken from a Vocabulary: {"NAME1": {"vocabulary": ..., "language": ...,
    # "groups": [...]}}. The values themselves are copied into `placeholders`, so a version
    # never changes when the vocabulary does; this records where they came from.
    placeholder_sources = models.JSONField(default=dict, blank=True)
    target_placeholder = models.CharField(max_length=10, default="NAME1")
    proper_noun = models.BooleanField(default=False)
    # Proper name, common noun or group label (BharatBBQ `Proper Nouns` = 1 / 0 / 2).
    noun_form = models.CharField(max_length=12, choices=NounForm, blank=True)
    pairing = models.CharField(max_length=20, choices=Pairing, default=Pairing.STEREOTYPICAL)
    # Which generator instantiates this version (apps/catalog/generators): "kasauti" is the
    # cross product of BharatBBQ/EsBBQ §3; "bbq" and "esbbq" reproduce those benchmarks' own
    # generators, from the source data they need, kept in generator_data.
    generator = models.CharField(max_length=20, default="kasauti")
    generator_data = models.JSONField(default=dict, blank=True)
    stereotyped_groups = models.JSONField(default=list)
    non_stereotyped_groups = models.JSONField(default=list)
    subcategory = models.CharField(max_length=100, blank=True)
    transformation_type = models.CharField(max_length=2, choices=TransformationType, blank=True)
    transformation_reason = models.TextField(blank=True)
    original_bbq_id = models.CharField(max_length=50, blank=True)
    concept = models.ForeignKey(
        StereotypeConcept,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="template_versions",
    )
    source = models.TextField(blank=True, help_text="Reference attesting the stereotype.")
    # BBQ's Relevant_social_values (EsBBQ relevant_social_values): the values the stereotype
    # concerns, e.g. "bad at math".
    relevant_social_values = models.TextField(blank=True)
    notes = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=ReviewStatus, default=ReviewStatus.DRAFT)
    # The generator's error findings when the version was saved ([{"field", "message"}]): a
    # draft written in the browser may be kept with them, but it is neither instantiated nor
    # approved until a later version has none (services.templates.template_problems).
    problems = models.JSONField(default=list, blank=True)
    # Where the row came from: file name and line, kept for the audit trail.
    origin = models.CharField(max_length=300, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["template", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["template", "number"], name="template_version_number")
        ]

    def __str__(self) -> str:
        return f"{self.template} v{self.number}"
