"""Benchmark import: parse and validate everything, then write everything, or nothing.

Phase 1 (no database): every file is decoded and parsed by the format's Reader, every row is
validated, and ids are checked for duplicates across the whole import. Any problem at all ->
ImportRejected with the complete list. Defects in published data that the import keeps are
findings, not problems; a strict import turns each of them into a problem too.
Phase 2: one transaction creates the dataset if needed and writes templates (new template or
new version; unchanged content is left alone), sentence pairs, tuples and context sets, then
each finding as a catalog Finding attached to what it concerns (template version, sentence
pair, context sentence; file-level ones to the dataset alone).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from django.db import transaction
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
from apps.core.text import nfc, nfc_deep

from .base import Reader
from .bbq import BbqReader
from .bharatbbq import BharatBbqReader
from .esbbq import CaBbqReader, EsBbqReader
from .indibias import IndiBiasReader
from .indicasa import IndiCasaReader
from .records import (
    ContextSetRecord,
    FindingRecord,
    PairRecord,
    ParseResult,
    TemplateRecord,
    TupleRecord,
)
from .tables import ImportFile, TableError, read_table

READERS: dict[str, type[Reader]] = {
    reader.format: reader
    for reader in (
        BbqReader,
        BharatBbqReader,
        EsBbqReader,
        CaBbqReader,
        IndiBiasReader,
        IndiCasaReader,
    )
}
FORMATS = tuple(READERS)

# Re-importing the same row from another place in the file, or after review, is not a change.
_NOT_CONTENT = {"status", "origin"}


@dataclass
class Counts:
    created: int = 0
    updated: int = 0  # templates: new versions
    unchanged: int = 0


@dataclass
class ImportReport:
    dataset: str
    format: str
    files: list[str]
    dataset_created: bool = False
    templates: Counts = field(default_factory=Counts)
    pairs: Counts = field(default_factory=Counts)
    tuples: Counts = field(default_factory=Counts)
    context_sets: Counts = field(default_factory=Counts)
    sentences: int = 0  # context sentences written
    by_category: dict[str, int] = field(default_factory=dict)  # rows read per category
    skipped: list[str] = field(default_factory=list)
    strict: bool = False
    seed: int = 0  # the seed of BBQ's name and word draws (bbq only; recorded with each template)
    # Every finding of this import (file, line, field, kind, message, original, concerns),
    # in file order, and how many of each kind; `findings_new` were not recorded before.
    findings: list[dict[str, Any]] = field(default_factory=list)
    findings_by_kind: dict[str, int] = field(default_factory=dict)
    findings_new: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def findings_grouped(self) -> dict[str, list[dict[str, Any]]]:
        """The findings by kind (most frequent kind first), each list in file order."""
        groups: dict[str, list[dict[str, Any]]] = {kind: [] for kind in self.findings_by_kind}
        for finding in self.findings:
            groups[finding["kind"]].append(finding)
        return groups

    def summary(self) -> list[str]:
        """The counts, then the findings by kind with file:line (the command's output)."""
        return self.counts_summary() + self.findings_summary()

    def counts_summary(self) -> list[str]:
        lines = [
            f"dataset {self.dataset!r}{' (created)' if self.dataset_created else ''}, "
            f"format {self.format}, {len(self.files)} file(s)"
        ]
        if self.format == "bbq":
            lines.append(f"seed of the name and word draws: {self.seed}")
        kinds = (
            ("templates", self.templates, "new versions"),
            ("sentence pairs", self.pairs, "updated"),
            ("tuples", self.tuples, "updated"),
            ("context sets", self.context_sets, "updated"),
        )
        for label, counts, updated in kinds:
            if counts.created or counts.updated or counts.unchanged:
                lines.append(
                    f"{label}: {counts.created} created, {counts.updated} {updated}, "
                    f"{counts.unchanged} unchanged"
                )
        if self.sentences:
            lines.append(f"context sentences written: {self.sentences}")
        for name, count in self.by_category.items():
            lines.append(f"  {name}: {count}")
        lines.extend(f"skipped {reason}" for reason in self.skipped)
        return lines

    def findings_summary(self) -> list[str]:
        lines = []
        if self.findings:
            lines.append(f"findings: {len(self.findings)} ({self.findings_new} new), by kind:")
            for kind, items in self.findings_grouped().items():
                lines.append(f"  {kind}: {len(items)}")
                for item in items:
                    where = (
                        item["file"] if item["line"] is None else f"{item['file']}:{item['line']}"
                    )
                    lines.append(f"    {where} {item['field']}: {item['message']}")
        else:
            lines.append("findings: none")
        return lines


def _finding_dict(record: FindingRecord, concerns: str) -> dict[str, Any]:
    return {
        "file": record.file,
        "line": record.line,
        "field": record.field,
        "kind": record.kind,
        "message": record.message,
        "original": record.original,
        "concerns": concerns,
    }


def all_findings(result: ParseResult) -> list[FindingRecord]:
    """Every finding of a parse: file-level ones, then per record, in file order."""
    found = list(result.findings)
    for template in result.templates:
        found.extend(template.findings)
    for pair in result.pairs:
        found.extend(pair.findings)
    for context_set in result.context_sets:
        found.extend(finding for _, finding in context_set.findings)
    return sorted(found, key=lambda f: (f.file, f.line or 0))


def findings_as_problems(findings: list[FindingRecord]) -> list[ImportProblem]:
    """What a strict import reports: each finding as a rejection, its kind kept."""
    return [ImportProblem(f.file, f.line, f.field, f.message, kind=f.kind) for f in findings]


def parse_import(
    *, fmt: str, files: list[ImportFile], language: str = "en", category: str = "", seed: int = 0
) -> ParseResult:
    """Phase 1: read and validate every file; touches no table. Problems are in the result."""
    result = ParseResult()
    reader_class = READERS.get(fmt)
    if reader_class is None:
        result.problem(
            "", None, "format", f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}"
        )
        return result
    if not files:
        result.problem("", None, "files", "no file was given")
        return result
    if not language.strip() or len(language) > 16:
        result.problem("", None, "language", f"invalid language code {language!r}")
        return result
    tables = []
    for upload in files:
        try:
            table = read_table(upload)
        except TableError as error:
            result.problems.append(error.problem(upload.name))
            continue
        if not table.rows:
            result.problem(upload.name, None, "file", "the file has a header but no data rows")
            continue
        tables.append(table)
    reader = reader_class(language=nfc(language.strip()), category=nfc(category))
    reader.seed = seed  # set, not passed: readers with their own __init__ need not know it
    reader.read(tables, result)
    _check_duplicates(result)
    return result


def _check_duplicates(result: ParseResult) -> None:
    seen: dict[Any, tuple[str, int]] = {}

    def check(key: Any, file: str, line: int, field_name: str, label: str) -> None:
        if key in seen:
            first_file, first_line = seen[key]
            result.problem(
                file, line, field_name, f"duplicate id {label!r}: also at {first_file}:{first_line}"
            )
        else:
            seen[key] = (file, line)

    for record in result.templates:
        check(
            ("template", record.external_id),
            record.file,
            record.line,
            record.id_field,
            record.external_id,
        )
    for pair in result.pairs:
        check(("pair", pair.external_id), pair.file, pair.line, pair.id_field, pair.external_id)
    for item in result.tuples:
        key = (
            item.category.casefold(),
            item.identity_term.casefold(),
            item.attribute.casefold(),
            item.language,
        )
        check(
            ("tuple", key),
            item.file,
            item.line,
            "identity_term",
            f"{item.identity_term} / {item.attribute}",
        )


def benchmark_import(
    *,
    dataset_name: str,
    fmt: str,
    files: list[ImportFile],
    created_by=None,
    language: str = "en",
    category: str = "",
    seed: int = 0,
    strict: bool = False,
) -> ImportReport:
    """Import benchmark files into a dataset (created if needed). All-or-nothing: raises
    ImportRejected listing every problem, with nothing written. Findings (defects of the
    published data that the import keeps) are stored and reported; with `strict`, every
    finding is a problem instead and nothing is written. `seed`: the draws of formats whose
    generator samples (BBQ), recorded with each template."""
    dataset_name = nfc(dataset_name.strip())
    result = parse_import(fmt=fmt, files=files, language=language, category=category, seed=seed)
    if not dataset_name:
        result.problem("", None, "dataset", "a dataset name is required")
    elif len(dataset_name) > 100:
        result.problem("", None, "dataset", "the dataset name is longer than 100 characters")
    findings = all_findings(result)
    if strict:
        result.problems.extend(findings_as_problems(findings))
    if result.problems:
        raise ImportRejected(result.problems)

    report = ImportReport(
        dataset=dataset_name, format=fmt, files=[f.name for f in files], strict=strict, seed=seed
    )
    report.skipped = result.skipped
    report.by_category = _by_category(result)
    with transaction.atomic():
        dataset, report.dataset_created = services.dataset_get_or_create(
            name=dataset_name, created_by=created_by
        )
        # Serialise imports into one dataset: the create-or-edit decisions below must not race.
        Dataset.objects.select_for_update().get(pk=dataset.pk)
        if fmt and not dataset.source_format:
            dataset.source_format = fmt
            dataset.save(update_fields=["source_format"])
        categories = _categories(result)
        targets: list[tuple[FindingRecord, dict[str, Any], str]] = [
            (finding, {}, "dataset") for finding in result.findings
        ]
        versions = _write_templates(
            dataset, result.templates, categories, created_by, report.templates
        )
        for record, version in zip(result.templates, versions, strict=True):
            targets.extend(
                (f, {"template_version": version}, f"template {record.external_id}")
                for f in record.findings
            )
        pairs = _write_pairs(dataset, result.pairs, categories, report.pairs)
        for record, pair in zip(result.pairs, pairs, strict=True):
            targets.extend(
                (f, {"sentence_pair": pair}, f"pair {record.external_id}") for f in record.findings
            )
        _write_tuples(dataset, result.tuples, categories, report.tuples)
        report.sentences, sentences = _write_context_sets(
            dataset, result.context_sets, categories, report.context_sets
        )
        for record in result.context_sets:
            for position, finding in record.findings:
                sentence = sentences[record.external_id, record.language][position]
                targets.append(
                    (
                        finding,
                        {"context_sentence": sentence},
                        f"context set {record.external_id}, sentence {position + 1}",
                    )
                )
        report.findings_new = _write_findings(dataset, targets)
    targets.sort(key=lambda item: (item[0].file, item[0].line or 0))
    report.findings = [_finding_dict(finding, concerns) for finding, _, concerns in targets]
    report.findings_by_kind = dict(Counter(finding.kind for finding, _, _ in targets).most_common())
    return report


_FINDING_TARGETS = ("template_version", "sentence_pair", "context_sentence")


def _finding_key(target_ids: tuple, record: FindingRecord | Finding) -> tuple:
    return (*target_ids, record.field, record.kind, record.message, record.original)


def _write_findings(
    dataset: Dataset, targets: list[tuple[FindingRecord, dict[str, Any], str]]
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
            found = Finding(
                dataset=dataset,
                file=record.file[-300:],
                line=record.line,
                field=record.field[:100],
                kind=record.kind[:50],
                message=record.message,
                original=record.original,
                **target,
            )
            existing[key] = found
            to_create.append(found)
        elif (found.file, found.line) != (record.file[-300:], record.line):
            found.file, found.line = record.file[-300:], record.line
            to_update.append(found)
    Finding.objects.bulk_create(to_create)
    Finding.objects.bulk_update(to_update, ["file", "line"])
    return len(to_create)


def _by_category(result: ParseResult) -> dict[str, int]:
    """Rows read per category: a context set counts its sentences (one row each)."""
    counts: Counter[str] = Counter()
    for records in (result.templates, result.pairs, result.tuples):
        counts.update(record.category for record in records)
    for record in result.context_sets:
        counts[record.category] += len(record.sentences)
    return dict(sorted(counts.items()))


def _categories(result: ParseResult) -> dict[str, Category]:
    names: set[str] = set()
    for records in (result.templates, result.pairs, result.tuples, result.context_sets):
        names.update(record.category.strip() for record in records)
    return {name: services.category_get_or_create(name=name) for name in sorted(names)}


def _rejected(file: str, line: int, field_name: str, error: Exception) -> ImportRejected:
    # Only reachable if the catalog rules and phase 1 disagree; the transaction rolls back.
    return ImportRejected([ImportProblem(file, line, field_name, str(error))])


# --- templates -------------------------------------------------------------------------------


def _write_templates(
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


def _write_pairs(
    dataset: Dataset, records: list[PairRecord], categories: dict[str, Category], counts: Counts
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


def _write_tuples(
    dataset: Dataset, records: list[TupleRecord], categories: dict[str, Category], counts: Counts
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


def _write_context_sets(
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
