"""Categories (bias dimensions) and the stereotype concepts a benchmark probes, with evidence."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef, Q, Value
from django.db.models.functions import Coalesce


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
    def with_counts(self) -> models.QuerySet:
        """Annotate `_mentions` / `_affected`: the derived survey counts where a survey answer is
        coded into the concept, else the typed (reported) mentions and no affected count."""
        return self.annotate(
            _mentions=Coalesce("survey_mentions", "mentions"),
            _affected=Coalesce("survey_affected", Value(0)),
        )

    def usable(self) -> models.QuerySet:
        """Concepts that pass their dataset's inclusion rule (apps/catalog/inclusion.py; the
        default rule for concepts with no dataset), come from a trusted source, are validated
        and, where the dataset requires evidence, have a reference that is not rejected.
        `inclusion.concept_verdict` is the same test for one concept, with reasons."""
        from ..inclusion import DEFAULT_RULE, inclusion_rules

        by_rule = Q()
        for rule in inclusion_rules():
            owner = Q(dataset__inclusion_rule=rule.name)
            if rule.name == DEFAULT_RULE:
                owner |= Q(dataset__isnull=True)
            by_rule |= owner & rule.q()
        live_evidence = EvidenceReference.objects.filter(concept=OuterRef("pk")).exclude(
            validation_status=EvidenceReference.Validation.REJECTED
        )
        return (
            self.with_counts()
            .filter(by_rule)
            .filter(
                source__in=StereotypeConcept.TRUSTED_SOURCES,
                validation_status=StereotypeConcept.Validation.VALIDATED,
            )
            .filter(Q(dataset__evidence_required=False) | Exists(live_evidence))
        )


class StereotypeConcept(models.Model):
    """A stereotype the benchmark probes, with the evidence that it exists.

    BharatBBQ keeps a concept only if at least three people mentioned it and a trustworthy
    source attests it; EsBBQ also keeps one mentioned twice by someone affected. Each dataset
    names its rule (apps/catalog/inclusion.py); `StereotypeConcept.objects.usable()` is the
    test as a query, `concept.verdict` the same for one concept with its reasons.
    """

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
    # The dataset whose inclusion rule judges this concept (apps/catalog/inclusion.py); blank
    # for concepts shared by several datasets, which the default rule judges.
    dataset = models.ForeignKey(
        "catalog.Dataset", null=True, blank=True, on_delete=models.PROTECT, related_name="concepts"
    )
    subcategory = models.CharField(max_length=100, blank=True)
    target_groups = models.JSONField(default=list, help_text="Groups the stereotype targets.")
    statement = models.TextField(help_text="The stereotype, e.g. 'Baniyas are business minded'.")
    attribute = models.CharField(max_length=200, blank=True)
    polarity = models.CharField(max_length=10, choices=Polarity, default=Polarity.NEGATIVE)
    # Typed by hand: mentions reported elsewhere (a paper, a spreadsheet). Shown as "reported".
    mentions = models.PositiveIntegerField(
        default=0, help_text="Mentions reported outside Kasauti (typed, not derived)."
    )
    # Derived from coded survey answers (apps.surveys writes them through
    # concept_survey_counts_set): distinct respondents, and how many of them were affected.
    # NULL while no survey answer is coded into the concept; then `mentions` is what counts.
    survey_mentions = models.PositiveIntegerField(null=True, blank=True, editable=False)
    survey_affected = models.PositiveIntegerField(null=True, blank=True, editable=False)
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
        return self.verdict.passes

    @property
    def verdict(self):
        """Whether the concept passes its dataset's rule, and why not (inclusion.Verdict)."""
        from ..inclusion import concept_verdict

        return concept_verdict(self)


class EvidenceReference(models.Model):
    """A reference attesting that a stereotype exists where the benchmark is set (EsBBQ §3.2.2:
    research and news articles, statistical reports, encyclopaedia entries, posts by members of
    the affected group, the survey itself). Feeds a template's source field (`esbbq_source`)."""

    class Kind(models.TextChoices):
        RESEARCH_ARTICLE = "research_article", "Research article"
        NEWS_REPORT = "news_report", "News report"
        STATISTICAL_REPORT = "statistical_report", "Statistical report"
        ENCYCLOPAEDIA = "encyclopaedia", "Encyclopaedia entry"
        AFFECTED_GROUP_POST = "affected_group_post", "Post by a member of the affected group"
        SURVEY = "survey", "The survey"
        OTHER = "other", "Other"

    class Validation(models.TextChoices):
        PENDING = "pending", "Pending"
        VALIDATED = "validated", "Validated"
        REJECTED = "rejected", "Rejected"

    concept = models.ForeignKey(
        StereotypeConcept, on_delete=models.CASCADE, related_name="evidence"
    )
    kind = models.CharField(max_length=24, choices=Kind, default=Kind.OTHER)
    url = models.URLField(max_length=500, blank=True)
    note = models.TextField(blank=True)
    quote = models.TextField(blank=True, help_text="The passage that attests the stereotype.")
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    added_at = models.DateTimeField(auto_now_add=True, null=True)
    validation_status = models.CharField(
        max_length=10, choices=Validation, default=Validation.PENDING
    )
    validated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    validated_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return self.url or self.note[:60]
