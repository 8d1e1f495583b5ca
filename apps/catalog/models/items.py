"""The benchmark items not generated from templates: sentence pairs (IndiBias, CrowS-Pairs
style), stereotype tuples (IndiBias) and context sets with their sentences (IndiCASA)."""

from __future__ import annotations

from django.db import models

from .concepts import Category, StereotypeConcept
from .datasets import Dataset


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
