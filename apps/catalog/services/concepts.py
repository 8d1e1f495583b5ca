"""Categories (bias dimensions) and the stereotype concepts filed under them, with evidence."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from apps.core.errors import ConflictError

from ..models import Category, EvidenceReference, StereotypeConcept


# One transaction: a failure on a later row must not leave the first one behind.
@transaction.atomic
def category_create(
    *, name: str, description: str = "", components: list[Category] | None = None
) -> Category:
    if Category.objects.filter(name=name).exists():
        raise ConflictError(f"a category named {name!r} already exists")
    category = Category.objects.create(name=name, description=description)
    category.components.set(components or [])
    return category


def category_get_or_create(*, name: str) -> Category:
    category, _ = Category.objects.get_or_create(name=name.strip())
    return category


def concept_create(
    *, category: Category, statement: str, evidence: list[dict[str, str]], **fields: Any
) -> StereotypeConcept:
    with transaction.atomic():
        concept = StereotypeConcept.objects.create(category=category, statement=statement, **fields)
        EvidenceReference.objects.bulk_create(
            EvidenceReference(concept=concept, url=item.get("url", ""), note=item.get("note", ""))
            for item in evidence
        )
    return concept
