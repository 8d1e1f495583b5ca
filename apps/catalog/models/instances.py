"""The benchmark catalog: what a bias benchmark is made of.

Reading order for a newcomer: Category -> StereotypeConcept -> Dataset -> Template /
TemplateVersion -> Instance. The other benchmark kinds (SentencePair, StereotypeTuple,
ContextSet) hang off a Dataset as well. Releases live in apps.releases.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

# Languages the product knows by name. Codes are ISO 639-1 where one exists; any other code is
# accepted too (EsBBQ's Catalan is "ca"), these are only labels for the UI.
LANGUAGE_NAMES = {
    "en": "English",
    "hi": "Hindi",
    "mr": "Marathi",
    "bn": "Bengali",
    "ta": "Tamil",
    "te": "Telugu",
    "or": "Odia",
    "as": "Assamese",
    "es": "Spanish",
    "ca": "Catalan",
}


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


class Dataset(models.Model):
    """What goes out together: templates (and their instances), sentence pairs, tuples and
    context sets. Only a Release of a dataset can be exported."""

    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    # EsBBQ Appendix E.1: also generate every NAME1/NAME2 order permutation.
    name_permutations = models.BooleanField(default=False)
    # The import format a published dataset came from (e.g. "bbq-instances"); blank if built here.
    source_format = models.CharField(max_length=30, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Vocabulary(models.Model):
    """A named list of values templates can reference, e.g. surnames associated with a caste
    or first names by religion and gender. Each entry carries its group label."""

    name = models.CharField(max_length=100)
    language = models.CharField(max_length=16, default="en")
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["name", "language"]
        constraints = [
            models.UniqueConstraint(fields=["name", "language"], name="vocabulary_name_lang")
        ]
        verbose_name_plural = "vocabularies"

    def __str__(self) -> str:
        return f"{self.name} ({self.language})"


class VocabularyEntry(models.Model):
    vocabulary = models.ForeignKey(Vocabulary, on_delete=models.CASCADE, related_name="entries")
    value = models.CharField(max_length=200)
    group = models.CharField(max_length=200, help_text="Group label, e.g. 'Baniya', 'Muslim F'.")
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["vocabulary", "position"]
        verbose_name_plural = "vocabulary entries"

    def __str__(self) -> str:
        return f"{self.value} [{self.group}]"


class UnknownExpression(models.Model):
    """Per-language expressions for the 'unknown' answer ("Cannot be determined", ...)."""

    language = models.CharField(max_length=16)
    text = models.CharField(max_length=200)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["language", "position", "text"]
        constraints = [
            models.UniqueConstraint(fields=["language", "text"], name="unknown_expr_lang_text")
        ]

    def __str__(self) -> str:
        return f"{self.text} ({self.language})"


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
        from .selectors import template_current_versions  # selectors import the models

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
    notes = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=ReviewStatus, default=ReviewStatus.DRAFT)
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


class SentencePair(models.Model):
    """CrowS-Pairs style pair (IndiBias §4.2)."""

    class Direction(models.TextChoices):
        STEREO = "stereo", "Stereotype"
        ANTISTEREO = "antistereo", "Anti-stereotype"

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="sentence_pairs")
    external_id = models.CharField(max_length=100)
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="pairs")
    language = models.CharField(max_length=16, default="en")
    # CrowS-Pairs convention (kept by IndiBias): sent_more is the sentence about the
    # historically disadvantaged group; for an "antistereo" pair it is the anti-stereotypical one.
    sent_more = models.TextField(help_text="Sentence about the disadvantaged group.")
    sent_less = models.TextField(help_text="The minimally edited counterpart.")
    direction = models.CharField(max_length=10, choices=Direction)
    target_group = models.CharField(max_length=200, blank=True)
    # The same pair in another language (e.g. IndiBias's Hindi side).
    parallel = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    origin = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["dataset", "external_id", "language"]
        constraints = [
            models.UniqueConstraint(
                fields=["dataset", "external_id", "language"], name="pair_identity"
            )
        ]

    def __str__(self) -> str:
        return f"{self.external_id} ({self.language})"


class StereotypeTuple(models.Model):
    """IndiBias §4.1: <identity term, attribute> with the annotators' votes."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="tuples")
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="tuples")
    language = models.CharField(max_length=16, default="en")
    identity_term = models.CharField(max_length=200)
    attribute = models.CharField(max_length=200)
    polarity = models.CharField(
        max_length=10, choices=StereotypeConcept.Polarity, default="negative"
    )
    # The paper's Score is sum(votes); whether the votes make the tuple stereotypical is
    # apps.catalog.review.tuple_verdict (a strict majority: >= 2 of 3). Empty: not voted.
    votes = models.JSONField(default=list, help_text="One vote per annotator, e.g. [1, 1, 0].")
    # Both kinds of votes are kept (issue 18, 4.5). `votes` above are the ones that decide
    # (releases and tuple_verdict read them): the imported ones until a tuple-vote campaign
    # decides the tuple, then that campaign's (the latest campaign's). `imported_votes` are the
    # votes of the imported file, never overwritten by a campaign; a re-import updates them,
    # and `votes` too only while no campaign has decided. None: not known (the tuple was
    # voted by a campaign before Kasauti kept both).
    imported_votes = models.JSONField(null=True, blank=True, default=list)

    class VotesSource(models.TextChoices):
        IMPORTED = "imported", "imported file"
        CAMPAIGN = "campaign", "tuple-vote campaign"

    votes_source = models.CharField(
        max_length=8, choices=VotesSource, default=VotesSource.IMPORTED, db_default="imported"
    )
    origin = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["dataset", "identity_term", "attribute"]
        constraints = [
            models.UniqueConstraint(
                fields=["dataset", "category", "language", "identity_term", "attribute"],
                name="tuple_identity",
            )
        ]

    def __str__(self) -> str:
        return f"<{self.identity_term}, {self.attribute}>"


class ContextSet(models.Model):
    """IndiCASA: one context with its stereotype and anti-stereotype sentences."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="context_sets")
    external_id = models.CharField(max_length=100)
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="context_sets")
    language = models.CharField(max_length=16, default="en")
    # IndiCASA files carry no context text of their own (the sentences are the set).
    context = models.TextField(blank=True)
    target_group = models.CharField(max_length=200, blank=True)
    origin = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["dataset", "external_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["dataset", "external_id", "language"], name="context_set_identity"
            )
        ]

    def __str__(self) -> str:
        return self.context[:80]


class ContextSentence(models.Model):
    class Kind(models.TextChoices):
        STEREOTYPE = "stereotype", "Stereotype"
        ANTI_STEREOTYPE = "anti_stereotype", "Anti-stereotype"

    class ReviewTier(models.TextChoices):
        """IndiCASA's two tiers, in order: language experts, then social scientists."""

        NONE = "", "not reviewed"
        LANGUAGE = "language", "language review"
        SOCIAL_SCIENCE = "social_science", "social-science review"

    class ReviewDecision(models.TextChoices):
        NONE = "", "-"
        KEEP = "keep", "kept"
        FIX = "fix", "fixed"
        DROP = "drop", "dropped"

    context_set = models.ForeignKey(ContextSet, on_delete=models.CASCADE, related_name="sentences")
    kind = models.CharField(max_length=16, choices=Kind)
    text = models.TextField()
    position = models.PositiveIntegerField(default=0)
    # Annotators' quality ratings of the sentence (IndiCASA: 1..5 per annotator).
    scores = models.JSONField(default=list, blank=True)
    # The last review decision on the sentence and the tier that made it, written by the
    # annotation app when a sentence-review item is decided (a fix has already rewritten
    # `text`). Releases read these through apps.catalog.review; empty: never reviewed.
    review_tier = models.CharField(
        max_length=14, choices=ReviewTier, blank=True, default="", db_default=""
    )
    review_decision = models.CharField(
        max_length=4, choices=ReviewDecision, blank=True, default="", db_default=""
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["context_set", "kind", "position"]

    def __str__(self) -> str:
        return self.text[:80]


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
