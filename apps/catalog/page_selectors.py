"""Reads for the server-rendered pages. Each function returns everything one page shows, so
views stay thin and the number of queries per page is fixed (no per-row lookups)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Count, Prefetch, Q, QuerySet

from apps.core.models import Job

from .board import COVERAGE_MINIMUM
from .inclusion import Verdict, concept_verdict
from .jobs import INSTANTIATE
from .models import (
    LANGUAGE_NAMES,
    Category,
    ContextSentence,
    ContextSet,
    Dataset,
    Finding,
    Instance,
    ReviewStatus,
    SentencePair,
    StereotypeConcept,
    StereotypeTuple,
    Template,
    TemplateVersion,
)
from .selectors import (
    dataset_list,
    finding_counts_by_kind,
    finding_counts_by_status,
    finding_list,
    template_current_versions,
)
from .services import InstantiationPlan, instantiation_plan
from .versions import template_version_history

INSTANCES_PER_PAGE = 25


@dataclass
class DatasetSummary:
    dataset: Dataset
    templates: int
    planned: int
    live_instances: int
    sentence_pairs: int
    tuples: int
    context_sets: int


def dataset_summaries() -> list[DatasetSummary]:
    return [
        DatasetSummary(
            dataset=dataset,
            templates=dataset.template_count,
            planned=instantiation_plan(dataset=dataset).total,
            live_instances=dataset.live_instance_count,
            sentence_pairs=dataset.sentence_pair_count,
            tuples=dataset.tuple_count,
            context_sets=dataset.context_set_count,
        )
        for dataset in dataset_list()
    ]


@dataclass
class TemplateRow:
    template: Template
    version: TemplateVersion
    planned: int | None  # None: rejected, skipped by the plan
    live_instances: int


@dataclass
class CategoryRow:
    name: str
    templates: int
    planned: int
    live_instances: int


@dataclass
class DatasetPage:
    dataset: Dataset
    plan: InstantiationPlan
    rows: list[TemplateRow]
    categories: list[CategoryRow]
    live_total: int
    sentence_pairs: list[SentencePair]
    tuples: list[StereotypeTuple]
    context_sets: list[ContextSet]
    last_job_id: int | None = None
    finding_counts: dict[str, int] = field(default_factory=dict)  # kind -> count

    @property
    def finding_total(self) -> int:
        return sum(self.finding_counts.values())


def dataset_page(*, dataset: Dataset) -> DatasetPage:
    plan = instantiation_plan(dataset=dataset)
    planned = {t.template_id: t.count for t in plan.templates}
    live_by_version = dict(
        Instance.objects.filter(dataset=dataset, retired_at__isnull=True)
        .values("template_version_id")
        .annotate(n=Count("id"))
        .values_list("template_version_id", "n")
    )
    versions = (
        template_current_versions(dataset=dataset)
        .select_related("template", "template__category")
        .order_by("template__position", "template_id")
    )
    rows: list[TemplateRow] = []
    for version in versions:
        rows.append(
            TemplateRow(
                template=version.template,
                version=version,
                planned=planned.get(version.template_id),
                live_instances=live_by_version.get(version.pk, 0),
            )
        )

    by_category: dict[str, CategoryRow] = {}
    for row in rows:
        name = row.template.category.name
        entry = by_category.setdefault(name, CategoryRow(name, 0, 0, 0))
        entry.templates += 1
        entry.planned += row.planned or 0
        entry.live_instances += row.live_instances

    last_job = (
        Job.objects.filter(kind=INSTANTIATE, params__dataset_id=dataset.pk)
        .values_list("id", flat=True)
        .first()
    )
    return DatasetPage(
        dataset=dataset,
        plan=plan,
        rows=rows,
        categories=sorted(by_category.values(), key=lambda c: c.name),
        live_total=sum(row.live_instances for row in rows),
        sentence_pairs=list(
            dataset.sentence_pairs.select_related("category").order_by("external_id", "language")
        ),
        tuples=list(dataset.tuples.select_related("category")),
        context_sets=list(
            dataset.context_sets.select_related("category").prefetch_related(
                Prefetch("sentences", queryset=ContextSentence.objects.order_by("kind", "position"))
            )
        ),
        last_job_id=last_job,
        finding_counts=finding_counts_by_kind(findings=Finding.objects.filter(dataset=dataset)),
    )


@dataclass
class InstanceFilters:
    category: Category | None = None
    language: str = ""
    context_condition: str = ""


@dataclass
class InstanceOption:
    text: str
    role: str
    gold: bool


@dataclass
class InstanceRow:
    instance: Instance
    options: list[InstanceOption] = field(default_factory=list)


def instance_languages(*, dataset: Dataset) -> list[tuple[str, str]]:
    codes = (
        Instance.objects.filter(dataset=dataset)
        .order_by()
        .values_list("language", flat=True)
        .distinct()
    )
    return [(code, LANGUAGE_NAMES.get(code, code)) for code in sorted(codes)]


def instance_page(*, dataset: Dataset, filters: InstanceFilters, page: Any) -> tuple[Page, int]:
    """One page of live instances matching the filters, and the total matching count."""
    queryset: QuerySet[Instance] = (
        Instance.objects.filter(dataset=dataset, retired_at__isnull=True)
        .select_related("category")
        .order_by("category__name", "example_id", "language")
    )
    if filters.category is not None:
        queryset = queryset.filter(category=filters.category)
    if filters.language:
        queryset = queryset.filter(language=filters.language)
    if filters.context_condition:
        queryset = queryset.filter(context_condition=filters.context_condition)
    paginator = Paginator(queryset, INSTANCES_PER_PAGE)
    page_obj = paginator.get_page(page)
    page_obj.object_list = [
        InstanceRow(
            instance=instance,
            options=[
                InstanceOption(text=text, role=role, gold=i == instance.label)
                for i, (text, role) in enumerate(
                    zip(instance.answers, instance.option_roles, strict=True)
                )
            ],
        )
        for instance in page_obj.object_list
    ]
    return page_obj, paginator.count


@dataclass
class ConceptRow:
    concept: StereotypeConcept
    verdict: Verdict
    template_count: int

    @property
    def usable(self) -> bool:
        return self.verdict.passes

    @property
    def count_text(self) -> str:
        return concept_count_text(self.verdict)


def concept_count_text(verdict: Verdict) -> str:
    """The counts the rule read, saying where they come from and never mixing the two:
    "N respondents (M affected)" when derived from coded survey answers, "N reported" for a
    typed count."""
    if verdict.counted_as == "survey":
        people = "respondent" if verdict.mentions == 1 else "respondents"
        return f"{verdict.mentions} {people} ({verdict.affected} affected)"
    return f"{verdict.mentions} reported"


def concept_rows(*, dataset: str = "") -> list[ConceptRow]:
    """Every concept (or one dataset's: a pk, or "none" for concepts with no dataset) with its
    live verdict under its dataset's inclusion rule, and why it fails."""
    concepts = (
        StereotypeConcept.objects.select_related("category", "dataset")
        .prefetch_related("evidence")
        .annotate(n_templates=Count("template_versions__template", distinct=True))
    )
    if dataset == "none":
        concepts = concepts.filter(dataset__isnull=True)
    elif dataset:
        concepts = concepts.filter(dataset_id=dataset)
    return [
        ConceptRow(
            concept=c,
            verdict=concept_verdict(c, evidence=list(c.evidence.all())),
            template_count=c.n_templates,
        )
        for c in concepts
    ]


def concept_page(*, concept: StereotypeConcept) -> dict:
    """A concept with its verdict, its evidence (who added and validated each, when) and the
    templates that probe it."""
    evidence = list(
        concept.evidence.select_related("added_by", "validated_by").order_by("added_at", "pk")
    )
    verdict = concept_verdict(concept, evidence=evidence)
    templates = (
        Template.objects.filter(versions__concept=concept)
        .select_related("dataset")
        .distinct()
        .order_by("external_id")
    )
    # Coverage per dataset (the board's rule, board.COVERAGE_MINIMUM): how many templates
    # probe the concept by their current version, approved or still in the works.
    coverage: dict[int, dict] = {}
    for dataset_id, name, status in (
        template_current_versions()
        .filter(concept=concept)
        .values_list("template__dataset_id", "template__dataset__name", "status")
    ):
        row = coverage.setdefault(
            dataset_id, {"dataset_id": dataset_id, "name": name, "approved": 0, "in_progress": 0}
        )
        if status == ReviewStatus.APPROVED:
            row["approved"] += 1
        elif status in (ReviewStatus.DRAFT, ReviewStatus.IN_REVIEW):
            row["in_progress"] += 1
    return {
        "concept": concept,
        "verdict": verdict,
        "count_text": concept_count_text(verdict),
        "evidence": evidence,
        "templates": list(templates),
        "coverage": sorted(coverage.values(), key=lambda row: row["name"]),
        "coverage_minimum": COVERAGE_MINIMUM,
    }


@dataclass
class PlaceholderRow:
    name: str
    values: list[str]
    groups: list[str]


@dataclass
class TemplatePage:
    template: Template
    version: TemplateVersion
    versions: list[TemplateVersion]
    placeholders: list[PlaceholderRow]
    planned: int | None
    concept_usable: bool
    # Findings of every version of the template (an import's defects), in file order.
    findings: list[Finding] = field(default_factory=list)
    # Versions newest first with their word-level changes (catalog.versions).
    history: list[dict] = field(default_factory=list)


def template_page(*, template: Template) -> TemplatePage:
    versions = list(
        template.versions.select_related("created_by", "concept", "concept__category")
        .prefetch_related("concept__evidence")
        .order_by("-number")
    )
    current_id = template_current_versions(templates=[template]).values_list("id", flat=True).get()
    current = next(v for v in versions if v.pk == current_id)
    groups = current.placeholder_groups or {}
    placeholders = [
        PlaceholderRow(name=name, values=list(values), groups=list(groups.get(name, [])))
        for name, values in sorted(current.placeholders.items())
    ]
    plan = instantiation_plan(dataset=template.dataset)
    planned = next((t.count for t in plan.templates if t.template_id == template.pk), None)
    concept_usable = bool(
        current.concept_id
        and StereotypeConcept.objects.usable().filter(pk=current.concept_id).exists()
    )
    return TemplatePage(
        template=template,
        version=current,
        versions=versions,
        placeholders=placeholders,
        planned=planned,
        concept_usable=concept_usable,
        findings=list(
            Finding.objects.filter(template_version__template=template)
            .select_related("template_version")
            .order_by("-template_version__number", "file", "line", "id")
        ),
        history=template_version_history(template=template),
    )


def dataset_has_instances(*, dataset: Dataset) -> bool:
    return Instance.objects.filter(dataset=dataset, retired_at__isnull=True).exists()


def category_choices(*, dataset: Dataset) -> QuerySet[Category]:
    return Category.objects.filter(
        Q(templates__dataset=dataset) | Q(instances__dataset=dataset)
    ).distinct()


FINDINGS_PER_PAGE = 100


@dataclass
class FindingsPage:
    dataset: Dataset
    by_kind: dict[str, int]  # over the whole dataset, most frequent first
    by_status: dict[str, int]
    open_by_kind: dict[str, int]  # what a bulk review of each kind would change
    page: Page  # of the filtered findings, each with its reviews (history) prefetched
    total: int  # filtered

    @property
    def kind_rows(self) -> list[tuple[str, int, int]]:
        """(kind, findings, open findings), most frequent first."""
        return [(k, n, self.open_by_kind.get(k, 0)) for k, n in self.by_kind.items()]


def findings_page(*, dataset: Dataset, kind: str, status: str, page: Any) -> FindingsPage:
    everything = Finding.objects.filter(dataset=dataset)
    findings = finding_list(dataset=dataset)  # with each finding's history
    if kind:
        findings = findings.filter(kind=kind)
    if status:
        findings = findings.filter(status=status)
    paginator = Paginator(findings, FINDINGS_PER_PAGE)
    return FindingsPage(
        dataset=dataset,
        by_kind=finding_counts_by_kind(findings=everything),
        by_status=finding_counts_by_status(findings=everything),
        open_by_kind=finding_counts_by_kind(findings=everything.filter(status=Finding.Status.OPEN)),
        page=paginator.get_page(page),
        total=paginator.count,
    )


def problems_by_kind(problems: list) -> dict[str, list]:
    """An import's problems grouped for the Import page: a strict import's findings under
    their kind, the others under the column they concern; groups in order of first sight."""
    groups: dict[str, list] = {}
    for problem in problems:
        groups.setdefault(problem.kind or f"problem in {problem.field or 'the file'}", []).append(
            problem
        )
    return groups


@dataclass
class DifferenceGroup:
    reason: str
    field: str
    count: int
    shown: list  # the first differences of the group (apps.catalog.compare.Difference)


def difference_groups(
    *, report, shown: int = 25, rewordings: bool = False
) -> list[DifferenceGroup]:
    """The reproduction report's differences (or, with `rewordings`, the fields counted as
    matched though worded differently) grouped by reason and field, largest first, with the
    first few of each group (a full list can run to tens of thousands of rows)."""
    groups: dict[tuple[str, str], DifferenceGroup] = {}
    for difference in report.rewordings if rewordings else report.mismatches:
        key = (difference.reason, difference.field)
        group = groups.get(key)
        if group is None:
            group = groups[key] = DifferenceGroup(difference.reason, difference.field, 0, [])
        group.count += 1
        if len(group.shown) < shown:
            group.shown.append(difference)
    return sorted(groups.values(), key=lambda g: (-g.count, g.reason, g.field))
