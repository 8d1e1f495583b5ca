"""Loading the demo catalog (fixtures/demo/) into the database.

`demo_load` is idempotent: every object is looked up by its natural key first and only created
when missing, so a second run adds nothing. Templates go through `services.template_create`
(and `template_edit` for the scripted revisions), so the demo obeys the same validation as any
import. Base data (categories, unknown expressions) is ensured too, because a fresh database
has none and the demo cannot be instantiated without it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from apps.core.errors import KasautiError

from .models import (
    Category,
    ContextSentence,
    ContextSet,
    Dataset,
    EvidenceReference,
    SentencePair,
    StereotypeConcept,
    StereotypeTuple,
    UnknownExpression,
    Vocabulary,
    VocabularyEntry,
)
from .services import template_create, template_edit

BASE_DIR: Path = Path(settings.BASE_DIR) / "fixtures" / "base"
DEMO_DIR: Path = Path(settings.BASE_DIR) / "fixtures" / "demo"
DEMO_DATASET = "demo"

# Keys of a template entry in templates.json that are not TemplateVersion content.
_TEMPLATE_META_KEYS = {
    "external_id",
    "category",
    "variant",
    "question_index",
    "concept",
    "revisions",
}


@dataclass
class DemoLoadReport:
    """What one run created; all zeros (but `templates_existing`) on a repeated run."""

    dataset: str = DEMO_DATASET
    categories: int = 0
    unknown_expressions: int = 0
    concepts: int = 0
    evidence: int = 0
    vocabularies: int = 0
    vocabulary_entries: int = 0
    templates: int = 0
    template_versions: int = 0
    templates_existing: int = 0
    sentence_pairs: int = 0
    stereotype_tuples: int = 0
    context_sets: int = 0
    context_sentences: int = 0
    templates_by_category: dict[str, int] = field(default_factory=dict)

    @property
    def created_anything(self) -> bool:
        counts = vars(self).copy()
        counts.pop("dataset")
        counts.pop("templates_existing")
        counts.pop("templates_by_category")
        return any(counts.values())


def _read(directory: Path, name: str) -> dict[str, Any]:
    with open(directory / name, encoding="utf-8") as handle:
        return json.load(handle)


def _base_ensure(report: DemoLoadReport, base_dir: Path) -> None:
    categories = _read(base_dir, "categories.json")["categories"]
    for entry in categories:
        _, created = Category.objects.get_or_create(
            name=entry["name"], defaults={"description": entry.get("description", "")}
        )
        report.categories += created
    # Components in a second pass: an intersection may be listed before its parts.
    for entry in categories:
        if entry.get("components"):
            category = Category.objects.get(name=entry["name"])
            if not category.components.exists():
                category.components.set(Category.objects.filter(name__in=entry["components"]))
    _unknowns_ensure(report, _read(base_dir, "unknown_expressions.json"))


def _unknowns_ensure(report: DemoLoadReport, data: dict[str, Any]) -> None:
    for language, texts in data.items():
        if language.startswith("_"):
            continue
        for position, text in enumerate(texts):
            _, created = UnknownExpression.objects.get_or_create(
                language=language, text=text, defaults={"position": position}
            )
            report.unknown_expressions += created


def _category(name: str) -> Category:
    try:
        return Category.objects.get(name=name)
    except Category.DoesNotExist as exc:
        raise KasautiError(f"demo fixture names an unknown category {name!r}") from exc


def _concepts_load(report: DemoLoadReport, data: dict[str, Any]) -> dict[str, StereotypeConcept]:
    by_key: dict[str, StereotypeConcept] = {}
    for entry in data["concepts"]:
        concept, created = StereotypeConcept.objects.get_or_create(
            category=_category(entry["category"]),
            statement=entry["statement"],
            defaults={
                "target_groups": entry.get("target_groups", []),
                "attribute": entry.get("attribute", ""),
                "polarity": entry.get("polarity", StereotypeConcept.Polarity.NEGATIVE),
                "mentions": entry.get("mentions", 0),
                "source": entry.get("source", "other"),
                "validation_status": entry.get("validation_status", "pending"),
            },
        )
        if created:
            report.concepts += 1
            for evidence in entry.get("evidence", []):
                EvidenceReference.objects.create(
                    concept=concept, url=evidence.get("url", ""), note=evidence.get("note", "")
                )
                report.evidence += 1
        by_key[entry["key"]] = concept
    return by_key


def _vocabularies_load(report: DemoLoadReport, data: dict[str, Any]) -> None:
    """Create missing vocabularies; templates then reference them by name."""
    for entry in data["vocabularies"]:
        vocabulary, created = Vocabulary.objects.get_or_create(
            name=entry["name"],
            language=entry["language"],
            defaults={"description": entry.get("description", "")},
        )
        if created:
            report.vocabularies += 1
            VocabularyEntry.objects.bulk_create(
                VocabularyEntry(vocabulary=vocabulary, value=value, group=group, position=i)
                for i, (value, group) in enumerate(entry["entries"])
            )
            report.vocabulary_entries += len(entry["entries"])


def _question_index(entry: dict[str, Any]) -> str:
    """Variants a/b/c of one scenario share a question index, as BBQ's Q_id does."""
    external_id, variant = entry["external_id"], entry.get("variant", "")
    if variant and external_id.endswith(variant):
        return external_id[: -len(variant)]
    return external_id


def _templates_load(
    report: DemoLoadReport,
    data: dict[str, Any],
    dataset: Dataset,
    concepts: dict[str, StereotypeConcept],
    created_by,
) -> None:
    existing = set(dataset.templates.values_list("external_id", flat=True))
    for position, entry in enumerate(data["templates"], start=1):
        category = entry["category"]
        report.templates_by_category[category] = report.templates_by_category.get(category, 0) + 1
        if entry["external_id"] in existing:
            report.templates_existing += 1
            continue
        content = {k: v for k, v in entry.items() if k not in _TEMPLATE_META_KEYS}
        # Vocabulary references ({"vocabulary": ..., "groups": [...]}) are resolved by
        # template_create, which also records them in placeholder_sources.
        concept = concepts.get(entry["concept"]) if entry.get("concept") else None
        if concept is not None:
            content["concept_id"] = concept.pk
            if "source" not in content:
                # The version records where the stereotype is attested, as BharatBBQ does.
                urls = [e.url for e in concept.evidence.all() if e.url]
                content["source"] = "; ".join(urls)
        content["origin"] = f"fixtures/demo/templates.json#{entry['external_id']}"
        version = template_create(
            dataset=dataset,
            external_id=entry["external_id"],
            category=_category(category),
            content=content,
            question_index=entry.get("question_index") or _question_index(entry),
            variant=entry.get("variant", ""),
            position=position,
            created_by=created_by,
        )
        report.templates += 1
        report.template_versions += 1
        for changes in entry.get("revisions", []):
            changed = dict(changes)
            if "placeholders" in changed:
                # New value lists: the old group labels no longer align with them.
                changed.setdefault("placeholder_groups", {})
                changed.setdefault("placeholder_sources", {})
            new = template_edit(template=version.template, changes=changed, edited_by=created_by)
            report.template_versions += new.pk != version.pk
            version = new


def _pairs_load(report: DemoLoadReport, data: dict[str, Any], dataset: Dataset) -> None:
    for entry in data["pairs"]:
        sides: dict[str, SentencePair] = {}
        for language in ("en", "hi"):
            if language not in entry:
                continue
            pair, created = SentencePair.objects.get_or_create(
                dataset=dataset,
                external_id=entry["external_id"],
                language=language,
                defaults={
                    "category": _category(entry["category"]),
                    "sent_more": entry[language]["sent_more"],
                    "sent_less": entry[language]["sent_less"],
                    "direction": entry["direction"],
                    "target_group": entry.get("target_group", ""),
                    "origin": f"fixtures/demo/sentence_pairs.json#{entry['external_id']}",
                },
            )
            report.sentence_pairs += created
            sides[language] = pair
        if len(sides) == 2 and sides["en"].parallel_id is None:
            SentencePair.objects.filter(pk=sides["en"].pk).update(parallel=sides["hi"])
            SentencePair.objects.filter(pk=sides["hi"].pk).update(parallel=sides["en"])


def _tuples_load(report: DemoLoadReport, data: dict[str, Any], dataset: Dataset) -> None:
    for entry in data["tuples"]:
        _, created = StereotypeTuple.objects.get_or_create(
            dataset=dataset,
            language=entry["language"],
            identity_term=entry["identity_term"],
            attribute=entry["attribute"],
            defaults={
                "category": _category(entry["category"]),
                "polarity": entry.get("polarity", "negative"),
                "votes": entry.get("votes", []),
                "imported_votes": entry.get("votes", []),
                "origin": "fixtures/demo/stereotype_tuples.json",
            },
        )
        report.stereotype_tuples += created


def _context_sets_load(report: DemoLoadReport, data: dict[str, Any], dataset: Dataset) -> None:
    kinds = (
        ("stereotype", ContextSentence.Kind.STEREOTYPE),
        ("anti_stereotype", ContextSentence.Kind.ANTI_STEREOTYPE),
    )
    for entry in data["context_sets"]:
        context_set, created = ContextSet.objects.get_or_create(
            dataset=dataset,
            external_id=entry["external_id"],
            language=entry["language"],
            defaults={
                "category": _category(entry["category"]),
                "context": entry["context"],
                "target_group": entry.get("target_group", ""),
                "origin": f"fixtures/demo/context_sets.json#{entry['external_id']}",
            },
        )
        if not created:
            continue
        report.context_sets += 1
        for key, kind in kinds:
            for position, text in enumerate(entry.get(key, [])):
                ContextSentence.objects.create(
                    context_set=context_set, kind=kind, text=text, position=position
                )
                report.context_sentences += 1


def demo_load(
    *, demo_dir: Path = DEMO_DIR, base_dir: Path = BASE_DIR, created_by=None
) -> DemoLoadReport:
    """Load the demo catalog. All-or-nothing: a bad fixture leaves the database untouched."""
    report = DemoLoadReport()
    templates = _read(demo_dir, "templates.json")
    with transaction.atomic():
        _base_ensure(report, base_dir)
        _unknowns_ensure(report, _read(demo_dir, "unknown_expressions.json"))
        concepts = _concepts_load(report, _read(demo_dir, "concepts.json"))
        _vocabularies_load(report, _read(demo_dir, "vocabularies.json"))
        spec = templates["dataset"]
        dataset, _ = Dataset.objects.get_or_create(
            name=spec["name"],
            defaults={
                "description": spec.get("description", ""),
                "name_permutations": spec.get("name_permutations", False),
                "created_by": created_by,
            },
        )
        report.dataset = dataset.name
        _templates_load(report, templates, dataset, concepts, created_by)
        _pairs_load(report, _read(demo_dir, "sentence_pairs.json"), dataset)
        _tuples_load(report, _read(demo_dir, "stereotype_tuples.json"), dataset)
        _context_sets_load(report, _read(demo_dir, "context_sets.json"), dataset)
    return report


def demo_dataset() -> Dataset | None:
    return Dataset.objects.filter(name=DEMO_DATASET).first()


def demo_template_ids(*, demo_dir: Path = DEMO_DIR) -> list[str]:
    """External ids the demo fixture defines, in file order (used by tests and the command)."""
    return [entry["external_id"] for entry in _read(demo_dir, "templates.json")["templates"]]
