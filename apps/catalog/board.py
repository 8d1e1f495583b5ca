"""Reads for the adaptation board (docs/studio/board.md): a dataset adapted from a source
benchmark, each source template beside what became of it, progress per source category, and
the coverage of the dataset's usable concepts by approved templates.

The board shows one source category at a time, a page of rows at a time: its cost is a fixed
number of queries whatever the size of the source (BBQ has ~450 templates)."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.core.paginator import Page, Paginator
from django.db.models import Prefetch, Q

from .instantiation import PLACEHOLDER_RE
from .models import (
    LANGUAGE_NAMES,
    Adaptation,
    Category,
    Dataset,
    EvidenceReference,
    ReviewStatus,
    StereotypeConcept,
    Template,
    TemplateVersion,
    TransformationType,
)
from .selectors import template_current_versions

ROWS_PER_PAGE = 25
# EsBBQ §3.2.5: at least two templates for each stereotype.
COVERAGE_MINIMUM = 2

# A source template's state on the board, in the order the progress bar draws them.
TO_DO = "to_do"
DRAFTED = "drafted"
IN_VALIDATION = "in_validation"
APPROVED = "approved"
REJECTED = "rejected"
REMOVED = "removed"
BOARD_STATUSES: dict[str, str] = {
    TO_DO: "To do",
    DRAFTED: "Drafted",
    IN_VALIDATION: "In validation",
    APPROVED: "Approved",
    REJECTED: "Rejected",
    REMOVED: "Removed",
}
# A target template's state, from its current version's review status.
_VERSION_STATUS = {
    ReviewStatus.DRAFT: DRAFTED,
    ReviewStatus.IN_REVIEW: IN_VALIDATION,
    ReviewStatus.APPROVED: APPROVED,
    ReviewStatus.REJECTED: REJECTED,
}
# A source adapted into several templates (a common-noun and a proper-noun version) is as far
# as its least advanced adaptation: any draft makes it drafted, else any rejection rejected,
# else any in validation; approved when every adaptation is.
_PRECEDENCE = (DRAFTED, REJECTED, IN_VALIDATION, APPROVED)


def source_status(*, removed: bool, target_statuses: list[str]) -> str:
    """The board status of one source template, from its removal and its targets' statuses."""
    if removed:
        return REMOVED
    if not target_statuses:
        return TO_DO
    for status in _PRECEDENCE:
        if status in target_statuses:
            return status
    return TO_DO


@dataclass(frozen=True)
class Segment:
    """A piece of a template text: plain text, or a placeholder shown as such."""

    text: str
    placeholder: bool = False


def text_segments(text: str) -> list[Segment]:
    """`text` cut into plain pieces and {{NAME1}}-style placeholders, so that a page shows the
    placeholders marked while Django escapes every piece."""
    pieces, at = [], 0
    for match in PLACEHOLDER_RE.finditer(text):
        if match.start() > at:
            pieces.append(Segment(text[at : match.start()]))
        pieces.append(Segment(match.group(0), placeholder=True))
        at = match.end()
    if at < len(text):
        pieces.append(Segment(text[at:]))
    return pieces


# The texts a board cell shows, with their labels.
_BOARD_TEXTS = (
    ("ambiguous_context", "Ambiguous context"),
    ("disambiguating_context", "Disambiguating context"),
    ("question_negative", "Negative question"),
    ("question_non_negative", "Non-negative question"),
)


@dataclass
class TextBlock:
    label: str
    segments: list[Segment]


def version_texts(version: TemplateVersion) -> list[TextBlock]:
    return [
        TextBlock(label, text_segments(getattr(version, name)))
        for name, label in _BOARD_TEXTS
        if getattr(version, name)
    ]


@dataclass
class CategoryProgress:
    category: Category
    counts: dict[str, int]  # board status -> source templates
    total: int

    @property
    def done(self) -> int:
        """Decided for good: approved or removed."""
        return self.counts[APPROVED] + self.counts[REMOVED]

    @property
    def items(self) -> list[tuple[str, str, int]]:
        """(status, label, count) for every board status."""
        return [(status, label, self.counts[status]) for status, label in BOARD_STATUSES.items()]

    @property
    def bar(self) -> list[tuple[str, str, int, float]]:
        """(status, label, count, percent of the category) for each non-empty status."""
        return [
            (status, label, self.counts[status], 100 * self.counts[status] / self.total)
            for status, label in BOARD_STATUSES.items()
            if self.counts[status]
        ]


@dataclass
class Target:
    """One adaptation of a source template: the target template and its current version."""

    link: Adaptation
    template: Template
    version: TemplateVersion
    status: str
    texts: list[TextBlock]
    evidence: list[EvidenceReference]

    @property
    def status_label(self) -> str:
        return BOARD_STATUSES[self.status]


@dataclass
class SourceRow:
    template: Template
    version: TemplateVersion
    texts: list[TextBlock]
    targets: list[Target]
    removal: Adaptation | None
    status: str

    @property
    def status_label(self) -> str:
        return BOARD_STATUSES[self.status]


@dataclass
class Board:
    dataset: Dataset
    source: Dataset
    progress: list[CategoryProgress]
    category: Category | None
    status: str  # the status filter ("" for all)
    page: Page | None
    rows: list[SourceRow]
    target_language: str
    template_ids: list[str]  # the dataset's template ids, for the "link" field's suggestions
    categories: list[Category] = field(default_factory=list)  # for "target category"

    @property
    def total(self) -> CategoryProgress | None:
        if not self.progress:
            return None
        counts = Counter()
        for p in self.progress:
            counts.update(p.counts)
        return CategoryProgress(
            category=None,
            counts={s: counts[s] for s in BOARD_STATUSES},
            total=sum(p.total for p in self.progress),
        )

    @property
    def status_label(self) -> str:
        return BOARD_STATUSES.get(self.status, "")

    @property
    def language_name(self) -> str:
        return LANGUAGE_NAMES.get(self.target_language, self.target_language)


def _statuses(dataset: Dataset) -> tuple[dict[int, str], dict[int, str]]:
    """(source template id -> board status, target template id -> board status), for the
    whole dataset in two queries."""
    target_status = {
        template_id: _VERSION_STATUS.get(status, DRAFTED)
        for template_id, status in template_current_versions(dataset=dataset).values_list(
            "template_id", "status"
        )
    }
    removed: set[int] = set()
    targets: dict[int, list[str]] = defaultdict(list)
    for source_id, template_id in Adaptation.objects.filter(dataset=dataset).values_list(
        "source_id", "template_id"
    ):
        if template_id is None:
            removed.add(source_id)
        else:
            targets[source_id].append(target_status.get(template_id, DRAFTED))
    by_source = {
        source_id: source_status(removed=source_id in removed, target_statuses=statuses)
        for source_id, statuses in targets.items()
    }
    by_source.update({source_id: REMOVED for source_id in removed})
    return by_source, target_status


def board_progress(*, dataset: Dataset) -> list[CategoryProgress]:
    """Per source category (in name order), how many of its source templates are at each
    board status. Four queries, whatever the size of the source."""
    return _progress(dataset)[0]


def _progress(dataset: Dataset) -> tuple[list[CategoryProgress], dict[int, str]]:
    if dataset.adapted_from_id is None:
        return [], {}
    by_source, _ = _statuses(dataset)
    counts: dict[int, Counter] = defaultdict(Counter)
    for template_id, category_id in Template.objects.filter(
        dataset_id=dataset.adapted_from_id
    ).values_list("id", "category_id"):
        counts[category_id][by_source.get(template_id, TO_DO)] += 1
    progress = [
        CategoryProgress(
            category=category,
            counts={s: counts[category.pk][s] for s in BOARD_STATUSES},
            total=sum(counts[category.pk].values()),
        )
        for category in Category.objects.filter(pk__in=list(counts)).order_by("name")
    ]
    return progress, by_source


def dataset_target_language(*, dataset: Dataset) -> str:
    """The language most of the dataset's templates are written in ("" if it has none)."""
    languages = Counter(
        template_current_versions(dataset=dataset).values_list("language", flat=True)
    )
    return languages.most_common(1)[0][0] if languages else ""


def _rows(dataset: Dataset, sources: list[Template]) -> list[SourceRow]:
    """The rows of a page of source templates, in a fixed number of queries."""
    source_versions = {
        v.template_id: v for v in template_current_versions(templates=sources).order_by()
    }
    links = list(
        Adaptation.objects.filter(dataset=dataset, source__in=sources)
        .select_related("template", "template__category")
        .order_by("source_id", "id")
    )
    target_templates = [link.template for link in links if link.template_id]
    target_versions = (
        {
            v.template_id: v
            for v in template_current_versions(templates=target_templates)
            .order_by()
            .select_related("concept")
            .prefetch_related(
                Prefetch(
                    "concept__evidence",
                    queryset=EvidenceReference.objects.exclude(
                        validation_status=EvidenceReference.Validation.REJECTED
                    ).order_by("id"),
                )
            )
        }
        if target_templates
        else {}
    )
    by_source: dict[int, list[Adaptation]] = defaultdict(list)
    for link in links:
        by_source[link.source_id].append(link)
    rows = []
    for template in sources:
        version = source_versions.get(template.pk)
        if version is None:  # a template with no version cannot be shown
            continue
        targets, removal = [], None
        for link in by_source[template.pk]:
            if link.template_id is None:
                removal = link
                continue
            target_version = target_versions.get(link.template_id)
            if target_version is None:  # a template with no version cannot be shown
                continue
            concept = target_version.concept
            targets.append(
                Target(
                    link=link,
                    template=link.template,
                    version=target_version,
                    status=_VERSION_STATUS.get(target_version.status, DRAFTED),
                    texts=version_texts(target_version),
                    evidence=list(concept.evidence.all()) if concept else [],
                )
            )
        rows.append(
            SourceRow(
                template=template,
                version=version,
                texts=version_texts(version),
                targets=targets,
                removal=removal,
                status=source_status(
                    removed=removal is not None, target_statuses=[t.status for t in targets]
                ),
            )
        )
    return rows


def board_page(
    *,
    dataset: Dataset,
    category_id: int | None = None,
    status: str = "",
    page: int | str | None = None,
    source_template: Template | None = None,
) -> Board:
    """Everything the board shows: progress per source category, and one page of one
    category's source templates (filtered by board status if `status`) beside their
    adaptations. `source_template` picks the category and page that show it (a form on its
    row failed). Needs `dataset.adapted_from`."""
    source = dataset.adapted_from
    progress, by_source = _progress(dataset)
    categories = {p.category.pk: p.category for p in progress}
    if source_template is not None:
        category_id, status = source_template.category_id, ""
    category = categories.get(category_id) if category_id else None
    if category is None and progress:
        category = progress[0].category
    rows: list[SourceRow] = []
    paged = None
    if category is not None:
        sources = (
            Template.objects.filter(dataset=source, category=category)
            .select_related("category")
            .order_by("position", "id")
        )
        if status in BOARD_STATUSES:
            wanted = [
                pk
                for pk in sources.values_list("pk", flat=True)
                if by_source.get(pk, TO_DO) == status
            ]
            sources = sources.filter(pk__in=wanted)
        else:
            status = ""
        paginator = Paginator(sources, ROWS_PER_PAGE)
        if source_template is not None:
            ids = list(sources.values_list("pk", flat=True))
            if source_template.pk in ids:
                page = ids.index(source_template.pk) // ROWS_PER_PAGE + 1
        paged = paginator.get_page(page)
        rows = _rows(dataset, list(paged.object_list))
    return Board(
        dataset=dataset,
        source=source,
        progress=progress,
        category=category,
        status=status,
        page=paged,
        rows=rows,
        target_language=dataset_target_language(dataset=dataset),
        template_ids=list(
            dataset.templates.order_by("external_id").values_list("external_id", flat=True)
        ),
        categories=list(Category.objects.order_by("name")),
    )


def source_choices(*, dataset: Dataset):
    """Datasets `dataset` may adapt: every other dataset with templates."""
    return (
        Dataset.objects.exclude(pk=dataset.pk)
        .filter(Q(templates__isnull=False))
        .distinct()
        .order_by("name")
    )


# --- coverage -----------------------------------------------------------------------------


@dataclass
class ConceptCoverage:
    concept: StereotypeConcept
    approved: int  # templates of the dataset whose current version is approved and probes it
    in_progress: int  # ... whose current version is a draft or in validation

    @property
    def below_minimum(self) -> bool:
        return self.approved < COVERAGE_MINIMUM


@dataclass
class Coverage:
    dataset: Dataset
    rows: list[ConceptCoverage]
    minimum: int = COVERAGE_MINIMUM

    @property
    def below(self) -> list[ConceptCoverage]:
        return [row for row in self.rows if row.below_minimum]


def concept_coverage(*, dataset: Dataset) -> Coverage:
    """Every usable concept of the dataset (its own and the shared ones, which have no
    dataset) with how many of the dataset's templates probe it: approved ones (EsBBQ asks for
    at least two per stereotype) and ones still in the works. A template counts by its current
    version. Two queries."""
    counts: dict[int, Counter] = defaultdict(Counter)
    for concept_id, status in (
        template_current_versions(dataset=dataset)
        .filter(concept__isnull=False)
        .values_list("concept_id", "status")
    ):
        counts[concept_id][status] += 1
    concepts = (
        StereotypeConcept.objects.usable()
        .filter(Q(dataset=dataset) | Q(dataset__isnull=True))
        .select_related("category")
        .order_by("category__name", "statement", "pk")
    )
    rows = [
        ConceptCoverage(
            concept=concept,
            approved=counts[concept.pk][ReviewStatus.APPROVED],
            in_progress=counts[concept.pk][ReviewStatus.DRAFT]
            + counts[concept.pk][ReviewStatus.IN_REVIEW],
        )
        for concept in concepts
    ]
    rows.sort(key=lambda r: (not r.below_minimum, r.concept.category.name, r.concept.statement))
    return Coverage(dataset=dataset, rows=rows)


ADAPTED_CLASS_CHOICES = [
    (
        TransformationType.SIMPLY_TRANSFERRED,
        "Simply-Transferred (ST): same stereotype, same groups",
    ),
    (TransformationType.TARGET_MODIFIED, "Target-Modified (TM): same stereotype, groups changed"),
    (
        TransformationType.CULTURALLY_TRANSFORMED,
        "Culturally Transformed (CT): entities replaced by local ones",
    ),
]
