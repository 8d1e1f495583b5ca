"""Phase 2 of a template-kind import: write the parsed records (importers/template_import.py).

Templates get a new template or a new version (unchanged content is left alone); sentence pairs,
tuples and context sets are created or updated in bulk; each finding becomes a catalog Finding
attached to what it concerns (template version, sentence pair, context sentence; file-level ones
to the dataset alone). Called inside the import's transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Max

from apps.catalog import selectors, services
from apps.catalog.models import (
    Category,
    ContextSentence,
    ContextSet,
    Dataset,
    Finding,
    SentencePair,
    StereotypeTuple,
    Template,
    TemplateVersion,
)
from apps.core.errors import ImportProblem, ImportRejected, KasautiError
from apps.core.text import nfc_deep

from .records import ContextSetRecord, FindingRecord, PairRecord, TemplateRecord, TupleRecord
from .reports import Counts

# Re-importing the same row from another place in the file, or after review, is not a change.
_NOT_CONTENT = {"status", "origin"}


_FINDING_TARGETS = ("template_version", "sentence_pair", "context_sentence")


def _finding_key(target_ids: tuple, record: FindingRecord | Finding) -> tuple:
    return (*target_ids, record.field, record.kind, record.message, record.original)


def findings_write(
    *, dataset: Dataset, targets: list[tuple[FindingRecord, dict[str, Any], str]]
) -> int:
    """Store each finding once: a re-import finds the same defects again, and those keep their
    review status (open / accepted / resolved); only where they are is refreshed. Returns how
    many findings are new."""
    existing = {
        _finding_key(
            tuple(getattr(finding, f"{name}_id") for name in _FINDING_TARGETS), finding
        ): finding
        for finding in Finding.objects.filter(dataset=dataset)
    }
    to_create: list[Finding] = []
    to_update: list[Finding] = []
    for record, target, _ in targets:
        ids = tuple(target[name].pk if name in target else None for name in _FINDING_TARGETS)
        key = _finding_key(ids, record)
        found = existing.get(key)
        if found is None:
            found = record.as_finding(dataset=dataset, **target)
            existing[key] = found
            to_create.append(found)
        elif (found.file, found.line) != (record.file[-300:], record.line):
            found.file, found.line = record.file[-300:], record.line
            to_update.append(found)
    Finding.objects.bulk_create(to_create)
    Finding.objects.bulk_update(to_update, ["file", "line"])
    return len(to_create)


def _rejected(file: str, line: int, field_name: str, error: Exception) -> ImportRejected:
    # Only reachable if the catalog rules and phase 1 disagree; the transaction rolls back.
    return ImportRejected([ImportProblem(file, line, field_name, str(error))])


# --- templates -------------------------------------------------------------------------------


def templates_write(
    *,
    dataset: Dataset,
    records: list[TemplateRecord],
    categories: dict[str, Category],
    created_by,
    counts: Counts,
) -> list[TemplateVersion]:
    """Write the templates; returns the version each record now has (aligned with records)."""
    if not records:
        return []
    existing = {
        t.external_id: t
        for t in Template.objects.filter(
            dataset=dataset, external_id__in=[r.external_id for r in records]
        )
    }
    current = {
        version.template_id: version
        for version in selectors.template_current_versions(templates=existing.values())
    }
    base = dataset.templates.aggregate(m=Max("position"))["m"] or 0
    new: list[tuple[int, TemplateRecord]] = []
    versions: list[TemplateVersion | None] = []
    for position, record in enumerate(records, start=base + 1):
        template = existing.get(record.external_id)
        if template is None:
            new.append((position, record))
            versions.append(None)
        elif _same_content(current.get(template.pk), record.content):
            counts.unchanged += 1
            versions.append(current[template.pk])
        else:
            try:
                version = services.template_edit(
                    template=template, changes=record.content, edited_by=created_by
                )
            except KasautiError as error:
                raise _rejected(record.file, record.line, record.id_field, error) from error
            counts.updated += 1
            versions.append(version)
    created = iter(_create_templates(dataset, new, categories, created_by))
    counts.created += len(new)
    return [version if version is not None else next(created) for version in versions]


def _create_templates(
    dataset: Dataset,
    new: list[tuple[int, TemplateRecord]],
    categories: dict[str, Category],
    created_by,
) -> list[TemplateVersion]:
    """Phase 1 validated every record (validate_template, NFC, ids new and unique), so the
    templates are created in bulk."""
    return services.template_bulk_create(
        dataset=dataset,
        templates=[
            services.NewTemplate(
                external_id=record.external_id,
                category=categories[record.category.strip()],
                content=record.content,
                question_index=record.question_index,
                variant=record.variant,
                position=position,
            )
            for position, record in new
        ],
        created_by=created_by,
    )


def _same_content(version: TemplateVersion | None, content: dict[str, Any]) -> bool:
    if version is None:
        return False
    content = nfc_deep(content)
    return all(
        getattr(version, name) == value
        for name, value in content.items()
        if name not in _NOT_CONTENT
    )


# --- sentence pairs --------------------------------------------------------------------------


def pairs_write(
    *, dataset: Dataset, records: list[PairRecord], categories: dict[str, Category], counts: Counts
) -> list[SentencePair]:
    """Write the pairs; returns each record's source-language pair (aligned with records)."""
    if not records:
        return []
    existing = {
        (pair.external_id, pair.language): pair
        for pair in SentencePair.objects.filter(
            dataset=dataset, external_id__in=[r.external_id for r in records]
        )
    }
    to_create: list[SentencePair] = []
    to_update: list[SentencePair] = []
    groups: list[list[SentencePair]] = []  # the language versions of one row, source first
    for record in records:
        group = []
        for language, (more, less) in record.sentences.items():
            values = {
                "category": categories[record.category.strip()],
                "sent_more": more,
                "sent_less": less,
                "direction": record.direction,
            }
            pair = existing.get((record.external_id, language))
            if pair is None:
                pair = SentencePair(
                    dataset=dataset,
                    external_id=record.external_id,
                    language=language,
                    origin=f"{record.file}:{record.line}"[-300:],
                    **values,
                )
                to_create.append(pair)
                counts.created += 1
            elif _changed(pair, values):
                pair.origin = f"{record.file}:{record.line}"[-300:]
                to_update.append(pair)
                counts.updated += 1
            else:
                counts.unchanged += 1
            group.append(pair)
        groups.append(group)
    SentencePair.objects.bulk_create(to_create)
    SentencePair.objects.bulk_update(
        to_update, ["category", "sent_more", "sent_less", "direction", "origin"]
    )
    # Link the language versions of each row both ways, so either side finds the other.
    linked = []
    for group in groups:
        for pair in group:
            partner = next((other for other in group if other is not pair), None)
            partner_id = partner.pk if partner else None
            if pair.parallel_id != partner_id:
                pair.parallel_id = partner_id
                linked.append(pair)
    SentencePair.objects.bulk_update(linked, ["parallel"])
    return [group[0] for group in groups]


def _changed(instance: Any, values: dict[str, Any]) -> bool:
    changed = False
    for name, value in values.items():
        if getattr(instance, name) != value:
            setattr(instance, name, value)
            changed = True
    return changed


# --- tuples ----------------------------------------------------------------------------------


def tuples_write(
    *, dataset: Dataset, records: list[TupleRecord], categories: dict[str, Category], counts: Counts
) -> None:
    if not records:
        return
    existing: dict[tuple, StereotypeTuple] = {}
    for item in StereotypeTuple.objects.filter(dataset=dataset):
        key = (item.category_id, item.identity_term, item.attribute, item.language)
        existing.setdefault(key, item)
    to_create: list[StereotypeTuple] = []
    to_update: list[StereotypeTuple] = []
    for record in records:
        category = categories[record.category.strip()]
        values = {"polarity": record.polarity, "imported_votes": record.votes}
        key = (category.pk, record.identity_term, record.attribute, record.language)
        item = existing.get(key)
        # The imported votes decide until a tuple-vote campaign has (then they are kept
        # beside the campaign's, which a re-import never overwrites).
        if item is None or item.votes_source == StereotypeTuple.VotesSource.IMPORTED:
            values["votes"] = record.votes
        origin = f"{record.file}:{record.line}"[-300:]
        if item is None:
            to_create.append(
                StereotypeTuple(
                    dataset=dataset,
                    category=category,
                    language=record.language,
                    identity_term=record.identity_term,
                    attribute=record.attribute,
                    origin=origin,
                    **values,
                )
            )
            counts.created += 1
        elif _changed(item, values):
            item.origin = origin
            to_update.append(item)
            counts.updated += 1
        else:
            counts.unchanged += 1
    StereotypeTuple.objects.bulk_create(to_create)
    StereotypeTuple.objects.bulk_update(
        to_update, ["polarity", "votes", "imported_votes", "origin"]
    )


# --- context sets ----------------------------------------------------------------------------


def context_sets_write(
    *,
    dataset: Dataset,
    records: list[ContextSetRecord],
    categories: dict[str, Category],
    counts: Counts,
) -> tuple[int, dict[tuple[str, str], list[ContextSentence]]]:
    """Write the context sets; returns how many sentences were written and, per set
    (external_id, language), its sentences in order."""
    if not records:
        return 0, {}
    existing = {
        (context_set.external_id, context_set.language): context_set
        for context_set in ContextSet.objects.filter(
            dataset=dataset, external_id__in=[r.external_id for r in records]
        ).prefetch_related("sentences")
    }
    to_fill: list[tuple[ContextSet, ContextSetRecord]] = []
    stale: list[int] = []
    kept: dict[tuple[str, str], list[ContextSentence]] = {}
    for record in records:
        category = categories[record.category.strip()]
        origin = f"{record.file}:{record.line}"[-300:]
        context_set = existing.get((record.external_id, record.language))
        if context_set is None:
            context_set = ContextSet.objects.create(
                dataset=dataset,
                external_id=record.external_id,
                category=category,
                language=record.language,
                # IndiCASA has no context text of its own: the sentences are the set.
                context="",
                origin=origin,
            )
            to_fill.append((context_set, record))
            counts.created += 1
            continue
        stored = sorted(context_set.sentences.all(), key=lambda s: s.position)
        same_sentences = [(s.kind, s.text) for s in stored] == record.sentences
        same_scores = [s.scores for s in stored] == _scores(record)
        if same_sentences and same_scores and context_set.category_id == category.pk:
            counts.unchanged += 1
            kept[record.external_id, record.language] = stored
            continue
        context_set.category = category
        context_set.origin = origin
        context_set.save(update_fields=["category", "origin"])
        stale.append(context_set.pk)
        to_fill.append((context_set, record))
        counts.updated += 1
    ContextSentence.objects.filter(context_set_id__in=stale).delete()
    sentences = list(_sentences(to_fill))
    ContextSentence.objects.bulk_create(sentences)
    for sentence in sentences:
        context_set = sentence.context_set
        kept.setdefault((context_set.external_id, context_set.language), []).append(sentence)
    return len(sentences), kept


def _sentences(
    to_fill: Iterable[tuple[ContextSet, ContextSetRecord]],
) -> Iterable[ContextSentence]:
    for context_set, record in to_fill:
        scores = _scores(record)
        for position, (kind, text) in enumerate(record.sentences):
            yield ContextSentence(
                context_set=context_set,
                kind=kind,
                text=text,
                position=position,
                scores=scores[position],
            )


def _scores(record: ContextSetRecord) -> list[list[int]]:
    """Per-sentence annotator scores, aligned with record.sentences."""
    return [
        record.scores[i] if i < len(record.scores) else [] for i in range(len(record.sentences))
    ]
