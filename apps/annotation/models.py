"""The annotation workbench: who annotates what, and every judgement they ever gave.

Reading order: AnnotatorProfile (an annotator's languages) -> Campaign (what is annotated, by
whom, how many annotators per item) -> CampaignItem (one thing to judge) -> Assignment (one
item given to one annotator; the next-item query reads only these rows, through a partial
index on the pending ones) -> Judgement (append-only: a submission, an edit or an undo is a
new row, keyed by the client's idempotency key) -> Decision (a researcher's adjudication).

The catalog never imports this app; the annotation app writes review outcomes back through the
catalog's and translation's own fields (TemplateVersion.status, StereotypeTuple.votes, ...).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class AnnotatorProfile(models.Model):
    """The languages an annotator covers (ISO codes, "en" included when they read English)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="annotator_profile"
    )
    languages = models.JSONField(default=list)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.user} ({', '.join(self.languages)})"


class CampaignKind(models.TextChoices):
    """The database's list of campaign kinds. What each kind does is its registered object in
    apps/annotation/kinds/ (one per value; AnnotationConfig.ready() checks)."""

    TEMPLATE_VALIDATION = "template_validation", "Template validation (BharatBBQ §3.7)"
    TRANSLATION_SCORING = "translation_scoring", "Translation adequacy/fluency (Table 3)"
    CALIBRATION = "calibration", "Threshold calibration (adequacy across the similarity range)"
    TUPLE_VOTE = "tuple_vote", "Stereotype tuple vote (IndiBias §4.1)"
    SENTENCE_REVIEW = "sentence_review", "Context-set sentence review (IndiCASA)"


class Campaign(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"

    name = models.CharField(max_length=200)
    dataset = models.ForeignKey(
        "catalog.Dataset", on_delete=models.CASCADE, related_name="annotation_campaigns"
    )
    kind = models.CharField(max_length=24, choices=CampaignKind)
    # Target language for translation scoring / calibration / sentence review; "" otherwise.
    language = models.CharField(max_length=16, blank=True)
    annotators_per_item = models.PositiveSmallIntegerField()
    annotators = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="annotation_campaigns"
    )
    # Sampling and tier parameters, kept so a campaign can be explained and reproduced.
    params = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=8, choices=Status, default=Status.OPEN)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name

    @property
    def kind_spec(self):
        """The registered kind object (apps/annotation/kinds/): what this campaign's kind
        asks, decides and shows."""
        from .kinds import campaign_kind_get  # the kinds import the models

        return campaign_kind_get(self.kind)


class ItemStatus(models.TextChoices):
    PENDING = "pending", "Waiting for annotators"
    ADJUDICATION = "adjudication", "Needs adjudication"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"
    SUPERSEDED = "superseded", "Superseded by an edited version"
    COMPLETE = "complete", "Complete"


class CampaignItem(models.Model):
    """One thing to judge. Exactly one of the target foreign keys is set, by campaign kind."""

    class Segment(models.TextChoices):
        CONTEXT = "ctx", "Context"
        QUESTION = "qn", "Question"
        NONE = "", "-"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveIntegerField()
    category = models.ForeignKey(
        "catalog.Category", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    segment = models.CharField(max_length=3, choices=Segment, blank=True, default="")
    template_version = models.ForeignKey(
        "catalog.TemplateVersion",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="annotation_items",
    )
    translated_string = models.ForeignKey(
        "translation.TranslatedString",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="annotation_items",
    )
    stereotype_tuple = models.ForeignKey(
        "catalog.StereotypeTuple",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="annotation_items",
    )
    context_sentence = models.ForeignKey(
        "catalog.ContextSentence",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="annotation_items",
    )
    status = models.CharField(max_length=12, choices=ItemStatus, default=ItemStatus.PENDING)
    # What the item's judgements add up to (approval, vote count, mean scores...).
    outcome = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "position"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "position"], name="item_position"),
        ]
        indexes = [models.Index(fields=["campaign", "status"], name="item_campaign_status")]

    def __str__(self) -> str:
        return f"item {self.position} of campaign {self.campaign_id}"


class Assignment(models.Model):
    """One item given to one annotator. `slot` is the annotator's rank on the item (0, 1, ...):
    Table 3's "annotator 1" and "annotator 2" are slots 0 and 1."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assignments")
    item = models.ForeignKey(CampaignItem, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="annotation_assignments"
    )
    slot = models.PositiveSmallIntegerField()
    # Copy of the item's position: the next-item query orders by it without a join.
    position = models.PositiveIntegerField()
    # Set when the annotator's current judgement is a submission; cleared by an undo.
    done_at = models.DateTimeField(null=True, blank=True)
    current = models.ForeignKey(
        "Judgement", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # First time the item was shown, for seconds-per-item.
    opened_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["campaign", "position", "slot"]
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="assignment_once"),
            models.UniqueConstraint(fields=["item", "slot"], name="assignment_slot"),
        ]
        indexes = [
            # The next-item query: an annotator's pending rows in position order. Partial, so
            # it stays as small as the remaining work however many judgements exist.
            models.Index(
                fields=["annotator", "campaign", "position"],
                condition=Q(done_at__isnull=True),
                name="assignment_pending",
            ),
            models.Index(fields=["annotator", "campaign"], name="assignment_annotator"),
        ]

    def __str__(self) -> str:
        return f"{self.annotator} on {self.item}"


class Judgement(models.Model):
    """Append-only. A submission, an edit (a later submission on the same assignment) and an
    undo are each one row; nothing is ever updated or deleted. The idempotency key comes from
    the client (one per form render): a double-click or a resubmission after a network error
    sends the same key and finds the row already there."""

    class Action(models.TextChoices):
        SUBMIT = "submit", "Submitted"
        EDIT = "edit", "Edited"
        UNDO = "undo", "Undone"

    assignment = models.ForeignKey(Assignment, on_delete=models.PROTECT, related_name="judgements")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="annotation_judgements"
    )
    idempotency_key = models.CharField(max_length=64, unique=True)
    action = models.CharField(max_length=6, choices=Action)
    answers = models.JSONField(default=dict, blank=True)
    previous = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    seconds = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["assignment", "created_at", "id"]

    def __str__(self) -> str:
        return f"{self.action} by {self.annotator_id} on assignment {self.assignment_id}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError("judgements are append-only: record a new one instead")
        super().save(*args, **kwargs)


class Decision(models.Model):
    """A researcher's adjudication of an item (append-only)."""

    class Verdict(models.TextChoices):
        APPROVE = "approve", "Approve"
        REJECT = "reject", "Reject"
        EDIT = "edit", "Edit (new version back to review)"

    item = models.ForeignKey(CampaignItem, on_delete=models.PROTECT, related_name="decisions")
    verdict = models.CharField(max_length=8, choices=Verdict)
    note = models.TextField(blank=True)
    # What the adjudicator did with each import finding: {"<finding id>": "resolved"/"accepted"}.
    findings = models.JSONField(default=dict, blank=True)
    new_version = models.ForeignKey(
        "catalog.TemplateVersion",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="annotation_decisions"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item", "created_at", "id"]

    def __str__(self) -> str:
        return f"{self.verdict} on {self.item}"


class SentenceRevision(models.Model):
    """A change of a context-set sentence's text by sentence review (append-only): the text
    before and after, the review item that decided it, and the researcher when it came from
    adjudication (None when the annotators agreed on the same fix). The catalog row holds the
    current text; the first revision's `text_before` is the imported original."""

    context_sentence = models.ForeignKey(
        "catalog.ContextSentence", on_delete=models.CASCADE, related_name="+"
    )
    item = models.ForeignKey(CampaignItem, on_delete=models.PROTECT, related_name="revisions")
    text_before = models.TextField()
    text_after = models.TextField()
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["context_sentence", "created_at", "id"]

    def __str__(self) -> str:
        return f"sentence {self.context_sentence_id}: {self.text_after[:60]}"
