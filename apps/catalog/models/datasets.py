"""Datasets, and the vocabularies and unknown-answer expressions their templates draw on."""

from __future__ import annotations

from django.conf import settings
from django.db import models

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

# Each language named in itself: the survey's language switcher and the leaderboard's rows.
AUTONYMS = {
    "as": "অসমীয়া",
    "bn": "বাংলা",
    "ca": "Català",
    "en": "English",
    "es": "Español",
    "eu": "Euskara",
    "gl": "Galego",
    "gu": "ગુજરાતી",
    "hi": "हिन्दी",
    "kn": "ಕನ್ನಡ",
    "ml": "മലയാളം",
    "mr": "मराठी",
    "ne": "नेपाली",
    "or": "ଓଡ଼ିଆ",
    "pa": "ਪੰਜਾਬੀ",
    "ta": "தமிழ்",
    "te": "తెలుగు",
    "ur": "اردو",
}


class Dataset(models.Model):
    """What goes out together: templates (and their instances), sentence pairs, tuples and
    context sets. Only a Release of a dataset can be exported."""

    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    # EsBBQ Appendix E.1: also generate every NAME1/NAME2 order permutation.
    name_permutations = models.BooleanField(default=False)
    # The import format a published dataset came from (e.g. "bbq-instances"); blank if built here.
    source_format = models.CharField(max_length=30, blank=True)
    # Which concepts are kept: a registered rule's name (apps/catalog/inclusion.py), and whether
    # a concept also needs an evidence reference that is not rejected.
    inclusion_rule = models.CharField(max_length=30, default="bharatbbq")
    evidence_required = models.BooleanField(default=True)
    # The benchmark this one adapts to another culture (EsBBQ §3.2, BharatBBQ §3.1): each of
    # its source templates is adapted (Adaptation rows) or removed, with a reason.
    adapted_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="adaptations"
    )
    # What the generated dataset card says that no figure can (issue 22): the licence (a Hub
    # licence identifier, "unknown" until the researcher chooses one) and the researcher's own
    # sections, kept with the dataset and copied into every release's card.
    license = models.CharField(max_length=64, default="unknown", db_default="unknown")
    pretty_name = models.CharField(max_length=200, blank=True, db_default="")
    # One author per line, "Family, Given" or a team's name (CITATION.cff's authors).
    card_authors = models.TextField(blank=True, db_default="")
    card_uses = models.TextField(blank=True, db_default="")
    card_limitations = models.TextField(blank=True, db_default="")
    card_ethics = models.TextField(blank=True, db_default="")
    card_citation = models.TextField(blank=True, db_default="")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    # The free-text sections of the card, in the order the card shows them.
    CARD_TEXT_FIELDS = ("card_uses", "card_limitations", "card_ethics", "card_citation")

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


class VocabularyRevision(models.Model):
    """One saved state of a vocabulary's entries: every save of the vocabulary editor adds one
    (the first records the list as it was before the first edit), so an earlier list is never
    lost; the vocabulary page lists them with what each changed."""

    vocabulary = models.ForeignKey(Vocabulary, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    # The entries as saved, in order: [{"value": ..., "group": ..., "definite": ...}].
    entries = models.JSONField(default=list)
    saved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    saved_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["vocabulary", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["vocabulary", "number"], name="vocabulary_revision")
        ]

    def __str__(self) -> str:
        return f"{self.vocabulary} r{self.number}"


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
