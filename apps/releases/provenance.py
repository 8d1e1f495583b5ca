"""An instance's provenance (issue 22): where one instance came from, step by step.

The chain is whatever provenance steps are registered (apps/releases/registry.py), in their
order: the releases app's own (concepts, template, vocabulary, releases; provenance_steps.py)
and those the apps above it register (translation, validation). This module knows none of
them by name: it loads the instance once, with the rows every step reads joined to it, and
asks each step for its data; a step that does not apply answers None and is left out of the
API's answer (the page shows it as not applicable).

Speed (bench/provenance.py, P95 <= 50 ms at 1M instances): the instance is one primary-key
lookup joined to its dataset, category, template version, template, concept and source
instance; each step adds a few indexed lookups of its own, none of them scans.

People are never named: provenance is read by anyone with a role and is about released,
published data. Whoever appears (a template's author, an annotator) is a pseudonym:
`apps.accounts.pseudonyms.person_pseudonym` (a keyed hash of the user id, stable across the
site), the one rule of every release output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from apps.catalog.instance_hash import instance_text_hash
from apps.catalog.models import Instance, TemplateVersion
from apps.core.errors import KasautiError

from .registry import ProvenanceStep, provenance_steps


class InstanceNotFound(KasautiError):
    status_code = 404


@dataclass(frozen=True)
class StepResult:
    """One registered step and what it said about the instance (None: not applicable)."""

    step: ProvenanceStep
    data: dict[str, Any] | None

    @property
    def applies(self) -> bool:
        return self.data is not None


def instance_provenance_get(*, instance_id: int) -> Instance:
    """The instance with what the steps read attached to it: its category, dataset and the
    dataset that one was adapted from (one query), its template version with template and
    concept (one query) and, for a translation, its source instance (one more). Retired
    rows too.

    Small joins, not one of eight relations: PostgreSQL plans a join of eight tables by
    trying its join orders, which took 14 ms of planning for 0.4 ms of execution
    (bench/provenance.py); joins of three or four plan in a fraction of a millisecond. The
    source instance is read only for a translation (a few percent of the rows): joining it
    for every row doubled the columns every call decodes."""
    found = list(
        Instance.objects.select_related("category", "dataset__adapted_from")
        .filter(pk=instance_id)
        # No ORDER BY: the model's ordering (dataset name, category, ...) would only add
        # work to a primary-key lookup.
        .order_by()[:1]
    )
    if not found:
        raise InstanceNotFound(f"No instance with id {instance_id}.")
    instance = found[0]
    # Assigning the rows fills the relation caches: steps read instance.template_version and
    # instance.source_instance without a query of their own.
    if instance.template_version_id is not None:
        instance.template_version = (
            TemplateVersion.objects.select_related("template", "concept")
            .order_by()
            .get(pk=instance.template_version_id)
        )
    if instance.source_instance_id is not None:
        instance.source_instance = (
            Instance.objects.select_related("category")
            .order_by()
            .get(pk=instance.source_instance_id)
        )
    return instance


def _replaced_by(instance: Instance) -> dict[str, Any] | None:
    """The row that replaced a retired translation (its `review.replaces` points here).

    A correction keeps the source instance (apps/translation/services/review.py), so the
    replacement is one of the source's translations: found through the partial index on
    source_instance (a handful of rows: the source's languages and revisions), never by
    searching the JSON of every row."""
    if instance.retired_at is None or instance.source_instance_id is None:
        return None
    for pk, review in Instance.objects.filter(
        source_instance_id=instance.source_instance_id, language=instance.language
    ).values_list("pk", "review"):
        if (review or {}).get("replaces") == instance.pk:
            return {
                "id": pk,
                "revision": (review or {}).get("revision"),
                "url": reverse("releases:provenance", args=[pk]),
            }
    return None


def instance_facts(*, instance: Instance) -> dict[str, Any]:
    """The facts at the top of the chain: what the instance is, its text hash (the one a
    release file's provenance column carries) and, for a translation, its source."""
    review = instance.review or {}
    source = instance.source_instance
    facts: dict[str, Any] = {
        "id": instance.pk,
        "dataset": {
            "id": instance.dataset_id,
            "name": instance.dataset.name,
            "url": reverse("web:dataset", args=[instance.dataset_id]),
        },
        "category": instance.category.name,
        "language": instance.language,
        "example_id": instance.example_id,
        "question_index": instance.question_index,
        "context_condition": instance.context_condition,
        "question_polarity": instance.question_polarity,
        "pairing": instance.pairing,
        "context": instance.context,
        "question": instance.question,
        "answers": instance.answers,
        "option_roles": instance.option_roles,
        "label": instance.label,
        "text_hash": instance_text_hash(
            context=instance.context,
            question=instance.question,
            ans0=instance.ans0,
            ans1=instance.ans1,
            ans2=instance.ans2,
            label=instance.label,
        ),
        "source_id": instance.source_id,
        "created_at": instance.created_at.isoformat() if instance.created_at else None,
        "source_instance": None,
        "retired": instance.retired_at is not None,
        "retired_at": instance.retired_at.isoformat() if instance.retired_at else None,
        "replaced_by": _replaced_by(instance),
        "revision": review.get("revision"),
        "replaces": None,
    }
    if source is not None:
        facts["source_instance"] = {
            "id": source.pk,
            "language": source.language,
            "context": source.context,
            "question": source.question,
            "text_hash": instance_text_hash(
                context=source.context,
                question=source.question,
                ans0=source.ans0,
                ans1=source.ans1,
                ans2=source.ans2,
                label=source.label,
            ),
            "url": reverse("releases:provenance", args=[source.pk]),
        }
    if review.get("replaces"):
        facts["replaces"] = {
            "id": review["replaces"],
            "url": reverse("releases:provenance", args=[review["replaces"]]),
        }
    return facts


def provenance_steps_collect(*, instance: Instance) -> list[StepResult]:
    """Every registered step, in order, with its data for `instance` (None: not applicable)."""
    return [StepResult(step=step, data=step.collect(instance)) for step in provenance_steps()]


def instance_provenance(*, instance_id: int) -> dict[str, Any]:
    """The API's answer: {"instance": facts, "steps": [{"name", "title", "data"}, ...]} with
    the steps that apply, in chain order. Raises InstanceNotFound (404) for an unknown id."""
    instance = instance_provenance_get(instance_id=instance_id)
    return {
        "instance": instance_facts(instance=instance),
        "steps": [
            {"name": result.step.name, "title": result.step.title, "data": result.data}
            for result in provenance_steps_collect(instance=instance)
            if result.applies
        ],
    }
