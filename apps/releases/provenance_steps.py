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

from datetime import UTC
from typing import Any

from django.db import connection
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from apps.accounts.pseudonyms import person_pseudonym
from apps.catalog.models import (
    Adaptation,
    Category,
    Dataset,
    EvidenceReference,
    Instance,
    StereotypeConcept,
    Template,
    TemplateVersion,
    TransformationType,
    Vocabulary,
    VocabularyEntry,
    VocabularyRevision,
)

from .models import ContentMode, Release, ReleaseInstance
from .registry import ProvenanceStep, provenance_step_register

Data = dict[str, Any]


def _iso(value) -> str | None:
    if value is None or isinstance(value, str):  # SQLite's raw cursor answers text
        return value
    return value.isoformat()


def _datetime(value):
    """A timestamp read by a raw cursor: PostgreSQL answers an aware datetime, SQLite a naive
    one in UTC (or text)."""
    if isinstance(value, str):
        value = parse_datetime(value)
    if value is not None and timezone.is_naive(value):
        value = timezone.make_aware(value, UTC)
    return value


def _rows(sql: str, params: list[Any]) -> list[tuple]:
    """Run one of the steps' fixed statements. Plain SQL, not querysets: Django compiles a
    queryset anew on every call, a millisecond or two of CPU each on the development
    machine, which was most of a provenance call's time (bench/provenance.py); these
    statements never change. Each reads through an index (docs/releases/provenance.md)."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


_EVIDENCE = EvidenceReference._meta.db_table
_ADAPTATION = Adaptation._meta.db_table
_TEMPLATE = Template._meta.db_table
_DATASET = Dataset._meta.db_table
_CATEGORY = Category._meta.db_table
_VOCABULARY = Vocabulary._meta.db_table
_ENTRY = VocabularyEntry._meta.db_table
_REVISION = VocabularyRevision._meta.db_table
_MEMBERSHIP = ReleaseInstance._meta.db_table
_RELEASE = Release._meta.db_table


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
        # On the evidence's concept index; oldest first, as the concept page lists them.
        for pk, kind, url, note, quote, status, added_at, validated_at in _rows(
            f"SELECT id, kind, url, note, quote, validation_status, added_at, validated_at "
            f"FROM {_EVIDENCE} WHERE concept_id = %s ORDER BY added_at, id",
            [concept.pk],
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
    links = _rows(
        f"SELECT a.source_id, t.external_id, d.name, c.name, a.created_at "
        f"FROM {_ADAPTATION} a JOIN {_TEMPLATE} t ON t.id = a.source_id "
        f"JOIN {_DATASET} d ON d.id = t.dataset_id JOIN {_CATEGORY} c ON c.id = t.category_id "
        f"WHERE a.template_id = %s ORDER BY t.position, a.source_id",
        [version.template_id],
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
    wanted: set[tuple[str, str]] = set()
    for name, value in values.items():
        listed = (version.placeholders or {}).get(name) or []
        index = listed.index(value) if value in listed else None
        groups = copied_groups.get(name) or []
        ref = sources.get(name) if isinstance(sources.get(name), dict) else None
        vocabulary = None
        if ref is not None:
            vocabulary = (ref.get("vocabulary", ""), ref.get("language", version.language))
            wanted.add(vocabulary)
        rows.append(
            {
                "placeholder": name,
                "value": value,
                "index": index,
                "group": groups[index] if index is not None and index < len(groups) else "",
                "source": vocabulary,
            }
        )
    entries: dict[tuple[str, str], list[Data]] = {}
    if wanted:
        filled = sorted({row["value"] for row in rows if row["source"]})
        named = " OR ".join(["(v.name = %s AND v.language = %s)"] * len(wanted))
        for pk, vocabulary_id, name, language, value, group, position in _rows(
            f'SELECT e.id, e.vocabulary_id, v.name, v.language, e.value, e."group", e.position '
            f"FROM {_VOCABULARY} v JOIN {_ENTRY} e ON e.vocabulary_id = v.id "
            f"WHERE ({named}) AND e.value IN ({', '.join(['%s'] * len(filled))}) "
            f"ORDER BY e.position, e.id",
            [*(part for key in sorted(wanted) for part in key), *filled],
        ):
            entries.setdefault((name, language), []).append(
                {
                    "id": pk,
                    "vocabulary_id": vocabulary_id,
                    "value": value,
                    "group": group,
                    "position": position,
                }
            )
    vocabulary_ids = sorted({e["vocabulary_id"] for found in entries.values() for e in found})
    revisions: dict[int, list[Data]] = {}
    if vocabulary_ids:
        for vocabulary_id, number, saved_at in _rows(
            f"SELECT vocabulary_id, number, saved_at FROM {_REVISION} "
            f"WHERE vocabulary_id IN ({', '.join(['%s'] * len(vocabulary_ids))})",
            vocabulary_ids,
        ):
            revisions.setdefault(vocabulary_id, []).append(
                {"number": number, "saved_at": _datetime(saved_at)}
            )
    placeholders = []
    for row in rows:
        source = row.pop("source")
        row["vocabulary"] = None
        row["entry"] = None
        if source is not None:
            matches = [e for e in entries.get(source, []) if e["value"] == row["value"]]
            # The same value may stand in two groups: the one the template copied wins.
            entry = next((e for e in matches if e["group"] == row["group"]), None) or (
                matches[0] if matches else None
            )
            row["vocabulary"] = {"name": source[0], "language": source[1]}
            if entry is not None:
                # A copy: two placeholders may hold the same entry.
                entry = dict(entry)
                vocabulary_id = entry.pop("vocabulary_id")
                row["vocabulary"] |= {
                    "id": vocabulary_id,
                    "url": reverse("web:vocabulary", args=[vocabulary_id]),
                    # The list as it stood when the version copied its values.
                    "revision": _revision_at(revisions.get(vocabulary_id, []), version.created_at),
                }
                row["entry"] = entry
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
    memberships = _rows(
        f"SELECT r.id, r.number, r.created_at, r.content FROM {_MEMBERSHIP} m "
        f"JOIN {_RELEASE} r ON r.id = m.release_id WHERE m.instance_id = %s "
        f"ORDER BY r.created_at, r.id",
        [instance.pk],
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
