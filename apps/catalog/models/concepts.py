"""Categories (bias dimensions) and the stereotype concepts a benchmark probes, with evidence."""

from __future__ import annotations

from django.db import models


class Category(models.Model):
    """A bias category. Intersectional categories (Religion x Gender) point to their parts."""

    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    components = models.ManyToManyField(
        "self", symmetrical=False, blank=True, related_name="intersections"
    )

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "categories"

    def __str__(self) -> str:
        return self.name

    @property
    def is_intersectional(self) -> bool:
        return self.components.exists()


class ConceptSource(models.TextChoices):
    SURVEY = "survey", "Survey"
    LITERATURE = "literature", "Literature"
    SEEGULL = "seegull", "SeeGULL"
    BBQ = "bbq", "Original BBQ"
    NEWS = "news", "News report"
    OTHER = "other", "Other"


class StereotypeConceptQuerySet(models.QuerySet):
    def usable(self) -> models.QuerySet:
        """Concepts that satisfy BharatBBQ's inclusion rule: at least MIN_MENTIONS independent
        mentions, a trusted source, validated, and at least one evidence reference."""
        return self.filter(
            mentions__gte=StereotypeConcept.MIN_MENTIONS,
            source__in=StereotypeConcept.TRUSTED_SOURCES,
            validation_status=StereotypeConcept.Validation.VALIDATED,
            evidence__isnull=False,
        ).distinct()


class StereotypeConcept(models.Model):
    """A stereotype the benchmark probes, with the evidence that it exists.

    BharatBBQ keeps a concept only if at least three people mentioned it and a trustworthy
    source attests it; `StereotypeConcept.objects.usable()` is that rule as a query.
    """

    MIN_MENTIONS = 3
    # Sources whose attestation counts as trustworthy for the usability rule.
    TRUSTED_SOURCES = (
        ConceptSource.SURVEY,
        ConceptSource.LITERATURE,
        ConceptSource.SEEGULL,
        ConceptSource.BBQ,
        ConceptSource.NEWS,
    )

    class Polarity(models.TextChoices):
        NEGATIVE = "negative", "Negative"
        POSITIVE = "positive", "Positive"
        NEUTRAL = "neutral", "Neutral"

    class Validation(models.TextChoices):
        PENDING = "pending", "Pending"
        VALIDATED = "validated", "Validated"
        REJECTED = "rejected", "Rejected"

    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="concepts")
    target_groups = models.JSONField(default=list, help_text="Groups the stereotype targets.")
    statement = models.TextField(help_text="The stereotype, e.g. 'Baniyas are business minded'.")
    attribute = models.CharField(max_length=200, blank=True)
    polarity = models.CharField(max_length=10, choices=Polarity, default=Polarity.NEGATIVE)
    mentions = models.PositiveIntegerField(
        default=0, help_text="Number of independent mentions (e.g. survey responses)."
    )
    source = models.CharField(max_length=20, choices=ConceptSource, default=ConceptSource.OTHER)
    validation_status = models.CharField(
        max_length=10, choices=Validation, default=Validation.PENDING
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = StereotypeConceptQuerySet.as_manager()

    class Meta:
        ordering = ["category__name", "statement"]

    def __str__(self) -> str:
        return self.statement

    @property
    def meets_inclusion_rule(self) -> bool:
        return (
            self.mentions >= self.MIN_MENTIONS
            and self.source in self.TRUSTED_SOURCES
            and self.validation_status == self.Validation.VALIDATED
            and self.evidence.exists()
        )


class EvidenceReference(models.Model):
    concept = models.ForeignKey(
        StereotypeConcept, on_delete=models.CASCADE, related_name="evidence"
    )
    url = models.URLField(max_length=500, blank=True)
    note = models.TextField(blank=True)

    def __str__(self) -> str:
        return self.url or self.note[:60]
