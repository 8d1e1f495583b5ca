"""The provenance steps the releases app knows itself (apps/releases/registry.py): the catalog's
part of an instance's chain and the releases that froze it.

  concepts   (10) the stereotype concept(s) the template version probes, with their evidence
                  and mention counts;
  template   (20) the template version, its author (pseudonymised) and its adaptation: class,
                  source template(s), the dataset adapted from;
  vocabulary (30) the vocabulary entries that filled the instance's placeholders, and the
                  vocabulary's revision current when the version copied them;
  releases   (90) the releases that contain the instance.

The translation (40) and validation (50) steps are registered by the apps that own those
facts. Each `collect` gets the instance loaded by apps.releases.provenance (its dataset,
category, template version, template, concept and source instance joined to it) and adds a
few indexed lookups; none reads more than the rows it shows.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.urls import reverse

from apps.catalog.models import (
    Adaptation,
    EvidenceReference,
    Instance,
    StereotypeConcept,
    TemplateVersion,
    TransformationType,
    VocabularyEntry,
    VocabularyRevision,
)

from .models import ContentMode, ReleaseInstance
from .provenance import person_pseudonym
from .registry import ProvenanceStep, provenance_step_register

Data = dict[str, Any]


def _iso(value) -> str | None:
    return value.isoformat() if value is not None else None


# --- concepts ------------------------------------------------------------------------------


def _concept_data(concept: StereotypeConcept) -> Data:
    kinds = dict(EvidenceReference.Kind.choices)
    evidence = [
        {
            "id": pk,
            "kind": kind,
            "kind_label": kinds.get(kind, kind),
            "url": url,
            "note": note,
            "quote": quote,
            "status": status,
            "added_at": _iso(added_at),
            "validated_at": _iso(validated_at),
        }
        # One query on the evidence's concept index; oldest first, as the concept page lists.
        for pk, kind, url, note, quote, status, added_at, validated_at in (
            EvidenceReference.objects.filter(concept_id=concept.pk)
            .order_by("added_at", "pk")
            .values_list(
                "pk",
                "kind",
                "url",
                "note",
                "quote",
                "validation_status",
                "added_at",
                "validated_at",
            )
        )
    ]
    # The count that judges the concept: the one derived from coded survey answers where any
    # is coded into it, else the number typed in (StereotypeConceptQuerySet.with_counts).
    counted_as = "survey" if concept.survey_mentions is not None else "reported"
    return {
        "id": concept.pk,
        "statement": concept.statement,
        "url": reverse("web:concept", args=[concept.pk]),
        "subcategory": concept.subcategory,
        "target_groups": concept.target_groups,
        "attribute": concept.attribute,
        "polarity": concept.polarity,
        "source": concept.source,
        "source_label": concept.get_source_display(),
        "validation_status": concept.validation_status,
        "mentions": {
            "counted_as": counted_as,
            "survey_mentions": concept.survey_mentions,
            "survey_affected": concept.survey_affected,
            "reported": concept.mentions,
        },
        "evidence": evidence,
    }


def concepts_collect(instance: Instance) -> Data | None:
    """The concept the instance's template version probes (a version names one; the list
    leaves room for more). Not applicable without a template version or a concept (imported
    published instances, templates not linked to a concept)."""
    version = instance.template_version
    if version is None or version.concept is None:
        return None
    return {"concepts": [_concept_data(version.concept)]}


# --- template ------------------------------------------------------------------------------


def _adaptation_data(instance: Instance, version: TemplateVersion) -> Data | None:
    """How the dataset's template came to be from its source benchmark: the Adaptation rows
    that point to it (indexed on the target template), or, in an adapted dataset, none:
    Newly-Created. Not applicable in a dataset adapted from nothing with no links."""
    links = list(
        Adaptation.objects.filter(template_id=version.template_id)
        .order_by("source__position", "source_id")
        .values_list(
            "source_id",
            "source__external_id",
            "source__dataset__name",
            "source__category__name",
            "created_at",
        )
    )
    adapted_from = instance.dataset.adapted_from
    if not links and adapted_from is None:
        return None
    code = version.transformation_type or ("" if links else TransformationType.NEWLY_CREATED)
    return {
        "adapted_from": (
            {
                "id": adapted_from.pk,
                "name": adapted_from.name,
                "url": reverse("web:dataset", args=[adapted_from.pk]),
            }
            if adapted_from is not None
            else None
        ),
        "class": code,
        "class_label": TransformationType(code).label if code else "",
        "reason": version.transformation_reason,
        "original_bbq_id": version.original_bbq_id,
        "sources": [
            {
                "template_id": source_id,
                "external_id": external_id,
                "dataset": dataset,
                "category": category,
                "url": reverse("web:template", args=[source_id]),
                "linked_at": _iso(linked_at),
            }
            for source_id, external_id, dataset, category, linked_at in links
        ],
    }


def template_collect(instance: Instance) -> Data | None:
    version = instance.template_version
    if version is None:
        return None  # imported from a published instance file: no template behind it
    template = version.template
    return {
        "template": {
            "id": template.pk,
            "external_id": template.external_id,
            "question_index": template.question_index,
            "variant": template.variant,
            "url": reverse("web:template", args=[template.pk]),
        },
        "version": {
            "id": version.pk,
            "number": version.number,
            "language": version.language,
            "status": version.status,
            "status_label": version.get_status_display(),
            "created_by": person_pseudonym(user_id=version.created_by_id, role="researcher"),
            "created_at": _iso(version.created_at),
            "origin": version.origin,
            "source": version.source,
            "generator": version.generator,
            "subcategory": version.subcategory,
            "texts": {name: getattr(version, name) for name in TemplateVersion.TEXT_FIELDS},
        },
        "adaptation": _adaptation_data(instance, version),
    }


# --- vocabulary ----------------------------------------------------------------------------


def _revision_at(revisions: list[Data], when) -> Data | None:
    """The revision current at `when` (the last saved no later), and how many came after."""
    before = [r for r in revisions if when is None or r["saved_at"] <= when]
    if not before:
        return None
    current = max(before, key=lambda r: r["number"])
    return {
        "number": current["number"],
        "saved_at": _iso(current["saved_at"]),
        "later": sum(1 for r in revisions if r["number"] > current["number"]),
    }


def vocabulary_collect(instance: Instance) -> Data | None:
    """Which value filled each placeholder and where the template version took it from.

    A translation is filled in the source's language: its values are looked up as its
    source instance's. A placeholder whose list the version copied from a vocabulary
    (`placeholder_sources`) is matched to that vocabulary's entry (one query for all of
    them, through the unique (name, language) index and the entries' vocabulary index); a
    list typed into the template has no entry. Two more facts come from the version's own
    copy: the value's position in its list and its group label as copied."""
    version = instance.template_version
    origin = instance.source_instance or instance
    values = origin.placeholder_values or {}
    if version is None or not values:
        return None
    sources = version.placeholder_sources or {}
    copied_groups = version.placeholder_groups or {}
    rows = []
    wanted = Q()
    for name, value in values.items():
        listed = (version.placeholders or {}).get(name) or []
        index = listed.index(value) if value in listed else None
        groups = copied_groups.get(name) or []
        ref = sources.get(name) if isinstance(sources.get(name), dict) else None
        vocabulary = None
        if ref is not None:
            vocabulary = (ref.get("vocabulary", ""), ref.get("language", version.language))
            wanted |= Q(vocabulary__name=vocabulary[0], vocabulary__language=vocabulary[1])
        rows.append(
            {
                "placeholder": name,
                "value": value,
                "index": index,
                "group": groups[index] if index is not None and index < len(groups) else "",
                "source": vocabulary,
            }
        )
    entries: dict[tuple[str, str], list[VocabularyEntry]] = {}
    if wanted:
        filled = {row["value"] for row in rows if row["source"]}
        for entry in (
            VocabularyEntry.objects.filter(wanted, value__in=filled)
            .select_related("vocabulary")
            .order_by("position", "pk")
        ):
            key = (entry.vocabulary.name, entry.vocabulary.language)
            entries.setdefault(key, []).append(entry)
    vocabulary_ids = {e.vocabulary_id for found in entries.values() for e in found}
    revisions: dict[int, list[Data]] = {}
    if vocabulary_ids:
        # No ORDER BY: the model's ordering would join the vocabulary to sort by its name.
        for revision in (
            VocabularyRevision.objects.filter(vocabulary_id__in=vocabulary_ids)
            .order_by()
            .values("vocabulary_id", "number", "saved_at")
        ):
            revisions.setdefault(revision["vocabulary_id"], []).append(revision)
    placeholders = []
    for row in rows:
        source = row.pop("source")
        row["vocabulary"] = None
        row["entry"] = None
        if source is not None:
            matches = [e for e in entries.get(source, []) if e.value == row["value"]]
            # The same value may stand in two groups: the one the template copied wins.
            entry = next((e for e in matches if e.group == row["group"]), None) or (
                matches[0] if matches else None
            )
            row["vocabulary"] = {"name": source[0], "language": source[1]}
            if entry is not None:
                row["vocabulary"] |= {
                    "id": entry.vocabulary_id,
                    "url": reverse("web:vocabulary", args=[entry.vocabulary_id]),
                    # The list as it stood when the version copied its values.
                    "revision": _revision_at(
                        revisions.get(entry.vocabulary_id, []), version.created_at
                    ),
                }
                row["entry"] = {
                    "id": entry.pk,
                    "value": entry.value,
                    "group": entry.group,
                    "position": entry.position,
                }
        placeholders.append(row)
    return {
        "language": origin.language,
        "from_source_instance": origin is not instance,
        "placeholders": placeholders,
    }


# --- releases ------------------------------------------------------------------------------


def releases_collect(instance: Instance) -> Data:
    """The releases that froze the instance, oldest first: one query on the membership's
    instance index. Applies to every instance (none yet is an answer too). Plain values,
    not Release rows: a release's `counts` JSON would be decoded for nothing."""
    labels = dict(ContentMode.choices)
    memberships = (
        ReleaseInstance.objects.filter(instance_id=instance.pk)
        .order_by("release__created_at", "release_id")
        .values_list("release_id", "release__number", "release__created_at", "release__content")
    )
    return {
        "releases": [
            {
                "id": release_id,
                "number": number,
                "created_at": _iso(created_at),
                "content": content,
                "content_label": labels.get(content, content),
                "url": reverse("releases:detail", args=[release_id]),
            }
            for release_id, number, created_at, content in memberships
        ]
    }


STEPS = (
    ProvenanceStep(
        name="concepts",
        title="Stereotype concept",
        order=10,
        collect=concepts_collect,
        template="releases/_provenance_concepts.html",
    ),
    ProvenanceStep(
        name="template",
        title="Template version",
        order=20,
        collect=template_collect,
        template="releases/_provenance_template.html",
    ),
    ProvenanceStep(
        name="vocabulary",
        title="Vocabulary entries",
        order=30,
        collect=vocabulary_collect,
        template="releases/_provenance_vocabulary.html",
    ),
    ProvenanceStep(
        name="releases",
        title="Releases",
        order=90,
        collect=releases_collect,
        template="releases/_provenance_releases.html",
    ),
)


def register() -> None:
    """Called from ReleasesConfig.ready()."""
    for step in STEPS:
        provenance_step_register(step)
