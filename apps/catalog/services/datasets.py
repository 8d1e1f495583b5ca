"""Datasets: creating one, or finding it by name (imports); which concepts it keeps."""

from __future__ import annotations

from apps.core.errors import ConflictError, KasautiError

from ..inclusion import inclusion_rule_get
from ..models import Dataset


def dataset_create(
    *, name: str, description: str = "", name_permutations: bool = False, created_by=None
) -> Dataset:
    if Dataset.objects.filter(name=name).exists():
        raise ConflictError(f"a dataset named {name!r} already exists")
    return Dataset.objects.create(
        name=name,
        description=description,
        name_permutations=name_permutations,
        created_by=created_by,
    )


def dataset_get_or_create(*, name: str, created_by=None) -> tuple[Dataset, bool]:
    """The dataset of that name, and whether this call created it. Of parallel calls for a new
    name exactly one creates it: the unique name makes the others' INSERT wait for it and fail,
    and they read its row (get_or_create's savepoint), so only one is told it created it."""
    return Dataset.objects.get_or_create(name=name, defaults={"created_by": created_by})


def dataset_inclusion_set(*, dataset: Dataset, rule: str, evidence_required: bool) -> Dataset:
    """Set which concepts the dataset keeps: a registered inclusion rule's name
    (apps/catalog/inclusion.py) and whether a concept also needs evidence that is not rejected.
    An unknown rule is refused with the known names, and nothing changes."""
    try:
        inclusion_rule_get(rule)
    except KeyError as exc:
        raise KasautiError(f"inclusion rule: {exc.args[0]}") from None
    if not rule:
        raise KasautiError("inclusion rule: choose a rule")
    dataset.inclusion_rule = rule
    dataset.evidence_required = bool(evidence_required)
    dataset.save(update_fields=["inclusion_rule", "evidence_required"])
    return dataset
