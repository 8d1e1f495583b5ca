"""The adaptation record: what an adapted dataset did with each template of its source
(EsBBQ §3.2.2 after KoBBQ, Jin et al. 2024; BharatBBQ §3.1)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from .datasets import Dataset
from .templates import Template


class Adaptation(models.Model):
    """One source template's fate in an adapted dataset (`dataset.adapted_from` holds the
    source). Either it was adapted into `template` of the dataset, whose current version's
    `transformation_type` says how (Simply-Transferred, Target-Modified, Culturally
    Transformed); several rows link one source to several targets (a common-noun and a
    proper-noun version) and one target to several sources (BBQ's two twins). Or it was removed
    (`template` is null): Sample-Removed, with the reason. A source template with no row is
    still to do. A target template with no row is Newly-Created."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="adaptation_links")
    source = models.ForeignKey(Template, on_delete=models.CASCADE, related_name="adapted_into")
    template = models.ForeignKey(
        Template, null=True, blank=True, on_delete=models.CASCADE, related_name="adapted_from"
    )
    reason = models.TextField(blank=True, help_text="Why the source template was removed.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "source", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["dataset", "source", "template"], name="adaptation_link_once"
            ),
            models.UniqueConstraint(
                fields=["dataset", "source"],
                condition=Q(template__isnull=True),
                name="adaptation_removed_once",
            ),
        ]

    def __str__(self) -> str:
        target = self.template.external_id if self.template_id else "removed"
        return f"{self.source} -> {target}"

    @property
    def removed(self) -> bool:
        return self.template_id is None
