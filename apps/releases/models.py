"""Releases: frozen, numbered snapshots of a dataset, the only thing that can be exported.

A Release row, its ReleaseInstance membership and its ReleaseFile rows are written once, by
apps.releases.services.release_create, and never change: save() on an existing row, delete()
and queryset update()/delete() all raise ReleaseImmutableError. ReleaseInstance points to
Instance with PROTECT, so an instance that is part of a release can never be deleted: Django
refuses it (ProtectedError) and, for SQL that bypasses Django, so do the database triggers of
migration 0005 (see ReleaseInstance).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from apps.catalog.models import Dataset, Instance
from apps.core.errors import KasautiError


class ReleaseImmutableError(KasautiError):
    status_code = 409


class ImmutableQuerySet(models.QuerySet):
    """Bulk writes would bypass Model.save()/delete(); refuse them as well."""

    def update(self, **kwargs: Any) -> int:
        raise ReleaseImmutableError(
            f"{self.model._meta.verbose_name} rows are immutable and cannot be updated"
        )

    def delete(self) -> tuple[int, dict[str, int]]:
        raise ReleaseImmutableError(
            f"{self.model._meta.verbose_name} rows are immutable and cannot be deleted"
        )

    delete.queryset_only = True  # type: ignore[attr-defined]


class ImmutableModel(models.Model):
    """A row that can be inserted once and then only read."""

    objects = ImmutableQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise ReleaseImmutableError(
                f"{self._meta.verbose_name} {self.pk} is immutable: a release never changes; "
                "create a new release instead"
            )
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise ReleaseImmutableError(
            f"{self._meta.verbose_name} {self.pk} is immutable and cannot be deleted"
        )


class ContentMode(models.TextChoices):
    """What a release takes of its dataset's live instances."""

    REVIEWED = "reviewed", "Reviewed only"
    AS_PUBLISHED = "as_published", "Everything, as published"


class Release(ImmutableModel):
    # PROTECT: a dataset with releases cannot be deleted (its files would lose their owner).
    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="releases")
    number = models.PositiveIntegerField(help_text="1, 2, ... per dataset.")
    notes = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # {"total": N, "by_category_language": {cat: {lang: n}}, "sentence_pairs": n,
    #  "tuples": n, "context_sets": n}
    counts = models.JSONField(default=dict)
    # What the release froze, in short (see services._live_fingerprint): a request for a release
    # identical to the latest one returns the latest instead of making a copy.
    fingerprint = models.CharField(max_length=64, blank=True)
    # "reviewed": instances of approved template versions whose translation (if any) passed
    # the similarity check or was corrected by a human; "as_published": every live instance.
    content = models.CharField(
        max_length=12, choices=ContentMode, default=ContentMode.REVIEWED, db_default="as_published"
    )

    class Meta:
        ordering = ["dataset", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "number"], name="release_dataset_number")
        ]

    def __str__(self) -> str:
        return f"{self.dataset.name} r{self.number}"


class ReleaseInstance(ImmutableModel):
    """One instance frozen into one release.

    Releases write these rows by the hundred thousand (one INSERT ... SELECT from the live
    instances, under the dataset's row lock), and the two foreign-key checks cost more than the
    rows themselves (PostgreSQL runs a lookup and takes a row lock per row and per key). So the
    keys carry no database constraint (db_constraint=False): an inserted row is valid by
    construction, and what the constraints also guaranteed, that a released instance or a
    release with members is never deleted, is kept by on_delete=PROTECT (Django's collector
    raises ProtectedError) and by the triggers of migration 0005, which refuse such a delete
    (or a change of id) done in plain SQL on PostgreSQL and SQLite. The primary key is the pair
    (migration 0006): no id column and one index fewer to write per row.
    """

    # The natural key: an instance is in a release once; its index serves lookups by release.
    pk = models.CompositePrimaryKey("release", "instance")
    release = models.ForeignKey(
        Release,
        on_delete=models.PROTECT,
        related_name="memberships",
        db_constraint=False,
        db_index=False,  # the primary key's index leads with it
    )
    instance = models.ForeignKey(
        Instance, on_delete=models.PROTECT, related_name="memberships", db_constraint=False
    )

    def __str__(self) -> str:
        return f"{self.release_id}:{self.instance_id}"


class FileKind(models.TextChoices):
    INSTANCES = "instances", "Instances"
    SENTENCE_PAIRS = "sentence_pairs", "Sentence pairs"
    TUPLES = "tuples", "Stereotype tuples"
    CONTEXT_SETS = "context_sets", "Context sets"
    # A dataset imported from published instance files, in the source's own layout.
    PUBLISHED = "published", "Published layout"
    # The documents written from the database at release time (issue 22): the dataset card
    # (README.md in the Hub's format, and card.json, the figures it was written from), its
    # CITATION.cff, and the changelog against the previous release (changelog.json).
    CARD = "card", "Dataset card"
    CITATION = "citation", "Citation"
    CHANGELOG = "changelog", "Changelog"


# The kinds written as tables in every format (jsonl, csv, parquet).
TABLE_KINDS: tuple[str, ...] = tuple(
    kind.value
    for kind in (
        FileKind.INSTANCES,
        FileKind.SENTENCE_PAIRS,
        FileKind.TUPLES,
        FileKind.CONTEXT_SETS,
    )
)
# The documents about a release, one file each: (kind, format) -> the file's name.
DOCUMENT_FILES = {
    ("card", "md"): "README.md",
    ("card", "json"): "card.json",
    ("citation", "cff"): "CITATION.cff",
    ("changelog", "json"): "changelog.json",
}


class FileFormat(models.TextChoices):
    JSONL = "jsonl", "JSON Lines"
    CSV = "csv", "CSV"
    PARQUET = "parquet", "Parquet"
    ZIP = "zip", "Zip of the source files"
    MARKDOWN = "md", "Markdown"
    JSON = "json", "JSON"
    CFF = "cff", "Citation File Format"


class ReleaseFile(ImmutableModel):
    release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="files")
    kind = models.CharField(max_length=20, choices=FileKind)
    format = models.CharField(max_length=10, choices=FileFormat)
    path = models.CharField(max_length=500, help_text="Relative to MEDIA_ROOT.")
    sha256 = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField()
    rows = models.PositiveIntegerField()

    class Meta:
        ordering = ["release", "kind", "format"]
        constraints = [
            models.UniqueConstraint(fields=["release", "kind", "format"], name="release_file_once")
        ]

    def __str__(self) -> str:
        return self.path
