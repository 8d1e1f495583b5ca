"""Participatory stereotype surveys (BharatBBQ §3.5, EsBBQ §3.2.1 and Appendix A).

Reading order: Survey -> SurveyVersion (the questionnaire, versioned) -> Respondent -> Answer
-> AnswerConcept (an answer coded into catalog concepts) and CodingEvent (the history of every
coding decision) -> AnswerSuggestion (closest concepts by embedding similarity).

Only the survey app writes these tables. It writes concepts, evidence and the derived mention
counts through catalog services; the catalog never imports this app.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Survey(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"  # visible to researchers only
        OPEN = "open", "Open"  # answers accepted between opens_at and closes_at
        CLOSED = "closed", "Closed"  # closed by hand

    dataset = models.ForeignKey("catalog.Dataset", on_delete=models.PROTECT, related_name="surveys")
    # The public link is /s/<slug>/.
    slug = models.SlugField(max_length=80, unique=True)
    status = models.CharField(max_length=10, choices=Status, default=Status.DRAFT)
    opens_at = models.DateTimeField(null=True, blank=True)
    closes_at = models.DateTimeField(null=True, blank=True)
    # The most answers the survey takes; blank for no cap.
    response_cap = models.PositiveIntegerField(null=True, blank=True)
    # The version respondents see now; older versions stay for the answers given under them.
    current_version = models.ForeignKey(
        "SurveyVersion", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.slug


class SurveyVersion(models.Model):
    """The questionnaire as respondents saw it: every string per language, the categories and
    groups on offer, the answer shape, the demographic questions. Frozen once an answer points
    to it; editing a survey that has answers makes a new version (apps/surveys/questionnaire.py
    defines and validates `content`)."""

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    content = models.JSONField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["survey", "number"]
        constraints = [
            models.UniqueConstraint(fields=["survey", "number"], name="survey_version_number")
        ]

    def __str__(self) -> str:
        return f"{self.survey.slug} v{self.number}"


class Respondent(models.Model):
    """A pseudonymous respondent: no account, no address. The web respondent is recognised by
    a random cookie token (stored hashed) so demographics are asked once and many answers can be
    given; the deletion code (stored hashed) lets them erase everything later. Imported
    respondents carry the export's row/respondent id instead."""

    class Source(models.TextChoices):
        WEB = "web", "Web"
        GOOGLE_FORMS = "google-forms", "Google Forms import"
        TYPEFORM = "typeform", "Typeform import"

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="respondents")
    source = models.CharField(max_length=20, choices=Source, default=Source.WEB)
    # sha256 hex of the cookie token (web) or of the export's respondent key (imports).
    token_hash = models.CharField(max_length=64)
    deletion_code_hash = models.CharField(max_length=64, blank=True)
    language = models.CharField(max_length=16, blank=True)
    # {question key: option key} for the optional demographic questions answered, under
    # `demographics_version`; {} when skipped. Reports show only counts, small cells suppressed.
    demographics = models.JSONField(default=dict, blank=True)
    demographics_version = models.ForeignKey(
        SurveyVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    demographics_asked = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["survey", "token_hash"], name="respondent_token"),
        ]
        indexes = [models.Index(fields=["survey", "deletion_code_hash"], name="respondent_code")]

    def __str__(self) -> str:
        return f"respondent #{self.pk} of {self.survey_id}"


class Answer(models.Model):
    """One reported stereotype: free text, or a (group, attribute) tuple (BharatBBQ allowed
    both), with how the respondent knows it (EsBBQ: heard, witnessed, affected) and an optional
    description of the experience."""

    class Status(models.TextChoices):
        PENDING = "pending", "To code"
        CODED = "coded", "Coded"
        INVALID = "invalid", "Invalid"

    class InvalidReason(models.TextChoices):
        NOT_STEREOTYPE = "not_stereotype", "Not a stereotype"
        SPAM = "spam", "Spam"
        DUPLICATE = "duplicate", "Duplicate of the respondent's own answer"

    survey = models.ForeignKey(Survey, on_delete=models.CASCADE, related_name="answers")
    version = models.ForeignKey(SurveyVersion, on_delete=models.PROTECT, related_name="answers")
    respondent = models.ForeignKey(Respondent, on_delete=models.CASCADE, related_name="answers")
    source = models.CharField(
        max_length=20, choices=Respondent.Source, default=Respondent.Source.WEB
    )
    language = models.CharField(max_length=16)
    # The category picked (a key of the version's categories) and the group(s) picked (keys of
    # that category's groups), or a group typed in as free text.
    category_key = models.CharField(max_length=80, blank=True)
    group_keys = models.JSONField(default=list, blank=True)
    group_text = models.CharField(max_length=300, blank=True)
    # Free-text shape: the stereotype in the respondent's words. Tuple shape: the attribute
    # (the group is group_keys/group_text).
    text = models.TextField(blank=True)
    attribute = models.CharField(max_length=500, blank=True)
    heard = models.BooleanField(default=False)
    witnessed = models.BooleanField(default=False)
    affected = models.BooleanField(default=False)
    experience = models.TextField(blank=True)
    submitted_at = models.DateTimeField()
    # Imports: sha256 of (survey, format, row content), so re-importing a file adds nothing.
    import_key = models.CharField(max_length=64, null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status, default=Status.PENDING)
    invalid_reason = models.CharField(max_length=20, choices=InvalidReason, blank=True)
    coded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    coded_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["submitted_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["survey", "import_key"],
                name="answer_import_key",
                condition=models.Q(import_key__isnull=False),
            )
        ]
        indexes = [
            models.Index(fields=["survey", "status", "submitted_at"], name="answer_queue"),
        ]

    def __str__(self) -> str:
        return (self.text or f"{self.group_text} — {self.attribute}")[:80]

    @property
    def display_text(self) -> str:
        """What the coder reads: the free text, or "group: attribute" for a tuple."""
        if self.text:
            return self.text
        return ": ".join(part for part in (self.group_text, self.attribute) if part)


class AnswerConcept(models.Model):
    """An answer coded into a concept. An answer may name several stereotypes, so it may be
    coded into several concepts (EsBBQ: 705 answers gave 752 valid stereotypes)."""

    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="codings")
    concept = models.ForeignKey(
        "catalog.StereotypeConcept", on_delete=models.CASCADE, related_name="survey_codings"
    )
    coded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    coded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["answer", "concept"], name="answer_concept_once")
        ]

    def __str__(self) -> str:
        return f"answer {self.answer_id} -> concept {self.concept_id}"


class CodingEvent(models.Model):
    """Every coding decision, in order: nothing a coder did is overwritten silently."""

    class Action(models.TextChoices):
        CODE = "code", "Coded into concepts"
        UNCODE = "uncode", "Concept link removed"
        INVALID = "invalid", "Marked invalid"
        REOPEN = "reopen", "Reopened"

    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="events")
    action = models.CharField(max_length=10, choices=Action)
    concept_ids = models.JSONField(default=list, blank=True)
    reason = models.CharField(max_length=20, blank=True)
    # Marked invalid as a duplicate: the same respondent's answer it repeats.
    duplicate_of = models.ForeignKey(
        Answer, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["answer", "at", "id"]

    def __str__(self) -> str:
        return f"{self.action} answer {self.answer_id}"


class AnswerSuggestion(models.Model):
    """The concepts closest to an answer by embedding cosine similarity (the configured
    sentence-transformers model, the one translation filtering uses), best first. Written by
    the suggestion job; replaced when it runs again."""

    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="suggestions")
    concept = models.ForeignKey(
        "catalog.StereotypeConcept", on_delete=models.CASCADE, related_name="+"
    )
    rank = models.PositiveSmallIntegerField()
    score = models.FloatField()

    class Meta:
        ordering = ["answer", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["answer", "rank"], name="suggestion_rank"),
        ]

    def __str__(self) -> str:
        return f"answer {self.answer_id} ~ concept {self.concept_id} ({self.score:.2f})"
