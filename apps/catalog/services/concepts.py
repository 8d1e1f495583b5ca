"""Categories (bias dimensions) and the stereotype concepts filed under them, with evidence."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.core.errors import ConflictError, KasautiError
from apps.core.text import nfc

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


def evidence_add(
    *,
    concept: StereotypeConcept,
    kind: str,
    url: str = "",
    note: str = "",
    quote: str = "",
    added_by: Any = None,
) -> EvidenceReference:
    """File a typed reference for `concept`. It starts pending; evidence_validate decides it."""
    if kind not in EvidenceReference.Kind.values:
        raise KasautiError(
            f"evidence kind {kind!r} is not one of {', '.join(EvidenceReference.Kind.values)}"
        )
    if not (url or note or quote):
        raise KasautiError("evidence needs a URL, a note or a quoted passage")
    return EvidenceReference.objects.create(
        concept=concept,
        kind=kind,
        url=nfc(url),
        note=nfc(note),
        quote=nfc(quote),
        added_by=added_by,
    )


def evidence_validate(
    *, evidence: EvidenceReference, status: str, validated_by: Any
) -> EvidenceReference:
    """Mark a reference validated or rejected (or back to pending), recording who and when."""
    if status not in EvidenceReference.Validation.values:
        raise KasautiError(f"evidence status {status!r} is not one of validated, rejected, pending")
    evidence.validation_status = status
    pending = status == EvidenceReference.Validation.PENDING
    evidence.validated_by = None if pending else validated_by
    evidence.validated_at = None if pending else timezone.now()
    evidence.save(update_fields=["validation_status", "validated_by", "validated_at"])
    return evidence


def concept_survey_counts_set(*, counts: dict[int, tuple[int, int]], clear: list[int]) -> int:
    """Write derived survey counts: `counts` maps concept id -> (distinct respondents, of them
    affected); concepts in `clear` no longer have any coded answer and go back to their typed,
    reported count (NULL). The survey app owns the derivation; the catalog only stores it, so
    that its inclusion test reads one field. Returns the number of concepts written."""
    with transaction.atomic():
        concepts = list(
            StereotypeConcept.objects.select_for_update()
            .filter(pk__in=[*counts, *clear])
            .order_by("pk")
        )
        for concept in concepts:
            if concept.pk in counts:
                concept.survey_mentions, concept.survey_affected = counts[concept.pk]
            else:
                concept.survey_mentions = concept.survey_affected = None
        StereotypeConcept.objects.bulk_update(concepts, ["survey_mentions", "survey_affected"])
    return len(concepts)
