"""Instantiation: generating a dataset's instances from its current template versions. The
plan (exact counts per template), the versions still to instantiate, the unknown expressions
the generators draw from, and the one COPY stream that writes the rows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.db.models import Exists, Max, OuterRef
from django.utils import timezone

from apps.core.errors import KasautiError

from .. import generators, selectors
from ..bulk import instances_insert, json_text
from ..models import Dataset, Instance, ReviewStatus, TemplateVersion, UnknownExpression

if TYPE_CHECKING:
    from apps.core.models import Job


@dataclass
class TemplatePlan:
    template_id: int
    external_id: str
    category: str
    version: int
    language: str
    count: int
    instantiated: bool  # the current version already has live instances


@dataclass
class InstantiationPlan:
    dataset: str
    permutations: bool
    templates: list[TemplatePlan] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # rejected templates

    @property
    def total(self) -> int:
        return sum(t.count for t in self.templates)

    @property
    def to_create(self) -> int:
        return sum(t.count for t in self.templates if not t.instantiated)

    @property
    def by_category(self) -> dict[str, int]:
        counts: Counter[str] = Counter()
        for plan in self.templates:
            counts[plan.category] += plan.count
        return dict(sorted(counts.items()))

    def as_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "total": self.total,
            "to_create": self.to_create,
            "by_category": self.by_category,
            "permutations": self.permutations,
            "templates": [vars(t) for t in self.templates],
            "skipped": self.skipped,
        }


def _current_versions(dataset: Dataset) -> list[TemplateVersion]:
    return list(
        selectors.template_current_versions(dataset=dataset)
        .select_related("template", "template__category")
        .order_by("template__position", "template_id")
    )


def instantiation_pending(*, dataset: Dataset) -> list[str]:
    """External ids of the templates whose current version would produce instances but has
    none live yet (what instantiating the dataset would still do). The same answer as
    instantiation_plan's `instantiated` flags, at the cost of one indexed EXISTS per template
    instead of a scan of every instance (a release asks this before it freezes anything)."""
    return [version.template.external_id for version in instantiation_stale(dataset=dataset)]


def instantiation_stale(*, dataset: Dataset) -> list[TemplateVersion]:
    """The current versions (template joined) behind instantiation_pending: not rejected, would
    produce instances, have none live yet. Their status says whether a reviewed release would
    include them (approved) or not (draft, in review)."""
    live = Instance.objects.filter(
        template_version=OuterRef("pk"), retired_at__isnull=True, source_instance=None
    )
    versions = (
        selectors.template_current_versions(dataset=dataset)
        .exclude(status=ReviewStatus.REJECTED)
        .filter(~Exists(live))
        .select_related("template")
        .order_by("template__position", "template_id")
    )
    return [
        version
        for version in versions
        if not version.problems
        and generators.count(
            selectors.template_version_spec(version=version), permutations=dataset.name_permutations
        )
    ]


def instantiation_stale_for_release(
    *, dataset: Dataset, approved_only: bool
) -> list[TemplateVersion]:
    """instantiation_stale, limited to approved versions when the release takes only those."""
    stale = instantiation_stale(dataset=dataset)
    if approved_only:
        stale = [v for v in stale if v.status == ReviewStatus.APPROVED]
    return stale


def instantiation_plan(*, dataset: Dataset) -> InstantiationPlan:
    """Exactly how many instances each template and the dataset will produce. The counts
    come from the same axes the generator walks, so they are exact."""
    return _plan_with_versions(dataset)[0]


def _plan_with_versions(dataset: Dataset) -> tuple[InstantiationPlan, dict[int, TemplateVersion]]:
    """The plan, plus the current version of every planned template (by template id)."""
    plan = InstantiationPlan(dataset=dataset.name, permutations=dataset.name_permutations)
    live_versions = set(
        Instance.objects.filter(dataset=dataset, retired_at__isnull=True, source_instance=None)
        .values_list("template_version_id", flat=True)
        # Without order_by() Instance's default ordering joins the DISTINCT: one row per
        # instance instead of one per version (400k Python ints for a 400k dataset).
        .order_by()
        .distinct()
    )
    planned: dict[int, TemplateVersion] = {}
    for version in _current_versions(dataset):
        # A rejected version, or a draft saved with errors, produces no instances.
        if version.status == ReviewStatus.REJECTED or version.problems:
            plan.skipped.append(version.template.external_id)
            continue
        planned[version.template_id] = version
        plan.templates.append(
            TemplatePlan(
                template_id=version.template_id,
                external_id=version.template.external_id,
                category=version.template.category.name,
                version=version.number,
                language=version.language,
                count=generators.count(
                    selectors.template_version_spec(version=version),
                    permutations=dataset.name_permutations,
                ),
                instantiated=version.pk in live_versions,
            )
        )
    return plan, planned


def _unknown_expressions(language: str) -> list[str]:
    texts = list(UnknownExpression.objects.filter(language=language).values_list("text", flat=True))
    if not texts:
        raise KasautiError(
            f"no unknown expressions are defined for language {language!r}: add them "
            "(admin: Catalog > Unknown expressions) before instantiating"
        )
    return texts


# The rows _instance_rows yields are laid out in three parts: what a template version shares,
# what a combination of placeholder values shares (instantiation.Combination), and what each
# instance has of its own (its example id, then the Combination's variant tuple), so that
# building a row is two tuple concatenations (this loop writes hundreds of thousands of rows).
# The order is the generator's, so it cannot be read off the model; together with the columns
# an original row leaves to their defaults the parts are exactly bulk.INSTANCE_ALL_COLUMNS, the
# one list (tests/catalog/test_instance_columns.py checks it; instances_insert refuses any
# other name).
_TEMPLATE_PART_COLUMNS = (
    "dataset_id",
    "template_version_id",
    "category_id",
    "language",
    "question_index",
    "proper_noun",
    "noun_form",
    "created_at",
)
_COMBINATION_PART_COLUMNS = (
    "combination",
    "placeholder_values",
    "ans0",
    "ans1",
    "ans2",
    "option_roles",
    "answer_info",
    "additional_metadata",
)
_INSTANCE_PART_COLUMNS = (
    "example_id",
    "name_order",
    "context_condition",
    "question_polarity",
    "pairing",
    "context",
    "question",
    "label",
)
ORIGINAL_INSTANCE_COLUMNS = (
    _TEMPLATE_PART_COLUMNS + _COMBINATION_PART_COLUMNS + _INSTANCE_PART_COLUMNS
)
# What an original (generated) row leaves to the column defaults.
ORIGINAL_DEFAULT_COLUMNS = ("source_id", "source_instance_id", "retired_at", "review")


def _instance_rows(
    *, dataset: Dataset, version: TemplateVersion, unknowns: list[str], first_example_id: int
) -> Iterator[tuple]:
    """Rows (in ORIGINAL_INSTANCE_COLUMNS order) of every instance of a template version."""
    template = version.template
    template_part = (
        dataset.pk,
        version.pk,
        template.category_id,
        version.language,
        template.question_index or template.external_id,
        version.proper_noun,
        version.noun_form,
        timezone.now(),
    )
    example_id = first_example_id
    # JSON is encoded once per distinct value, not per row: a generator may yield several
    # Combinations with the same values dict (BharatBBQ: one per question polarity), and a
    # template has only a handful of option-role orders.
    values, values_json = None, ""
    roles_json: dict[tuple[str, ...], str] = {}
    for combo in generators.combinations(
        selectors.template_version_spec(version=version),
        unknowns,
        permutations=dataset.name_permutations,
    ):
        if combo.values is not values:
            values, values_json = combo.values, json_text(combo.values)
        roles = roles_json.get(combo.option_roles)
        if roles is None:
            roles = roles_json[combo.option_roles] = json_text(list(combo.option_roles))
        shared = template_part + (
            combo.index,
            values_json,
            *combo.answers,
            roles,
            json_text(combo.answer_info),
            json_text(combo.metadata) if combo.metadata else "{}",
        )
        for variant in combo.variants:
            yield shared + (example_id, *variant)
            example_id += 1


def dataset_instantiate(
    *, dataset: Dataset, progress: Callable[[int, int], None] | None = None
) -> dict[str, Any]:
    """Generate the instances of every current template version that has none yet, and retire
    the live instances of superseded (or rejected) versions. Idempotent: a second run with no
    template change writes nothing. All-or-nothing: one transaction, one COPY stream."""
    with transaction.atomic():
        Dataset.objects.select_for_update().get(pk=dataset.pk)
        plan, planned = _plan_with_versions(dataset)
        # Retire originals (and their translations) whose version is no longer current.
        retired = (
            Instance.objects.filter(dataset=dataset, retired_at__isnull=True)
            .exclude(template_version_id__in=[v.pk for v in planned.values()])
            .update(retired_at=timezone.now())
        )
        next_example_id = {
            row["category_id"]: row["m"] + 1
            for row in Instance.objects.filter(dataset=dataset)
            .values("category_id")
            .annotate(m=Max("example_id"))
        }
        todo = [planned[t.template_id] for t in plan.templates if not t.instantiated]
        unknowns = {
            language: _unknown_expressions(language) for language in {v.language for v in todo}
        }

        to_create = plan.to_create
        written = 0

        def rows() -> Iterator[tuple]:
            nonlocal written
            for version in todo:
                category_id = version.template.category_id
                first = next_example_id.get(category_id, 0)
                count = 0
                for count, row in enumerate(  # noqa: B007 - count is used after the loop
                    _instance_rows(
                        dataset=dataset,
                        version=version,
                        unknowns=unknowns[version.language],
                        first_example_id=first,
                    ),
                    start=1,
                ):
                    yield row
                next_example_id[category_id] = first + count
                written += count
                if progress:
                    # Per template version. The reporter only stores the numbers: this runs
                    # while COPY owns the connection (no other query may run on it), and the
                    # job's heartbeat thread writes them on a connection of its own.
                    progress(written, to_create)

        if progress:
            progress(0, to_create)
        created = instances_insert(rows(), columns=ORIGINAL_INSTANCE_COLUMNS)
    return {
        "dataset": dataset.name,
        "total": plan.total,
        "created": created,
        "retired": retired,
        "by_category": plan.by_category,
    }


def dataset_instantiate_async(
    *, dataset: Dataset, requested_by=None, raise_unqueued: bool = True
) -> Job:
    """Queue an instantiation job; the worker picks it up after this transaction commits.
    `raise_unqueued`: see apps.core.services.task_send."""
    from apps.core.services import job_create, job_dispatch

    from ..jobs import INSTANTIATE

    with transaction.atomic():
        job = job_create(
            kind=INSTANTIATE,
            title=f"Instantiate dataset {dataset.name}",
            params={"dataset_id": dataset.pk, "dataset_name": dataset.name},
            unit="instances",
            created_by=requested_by,
        )
        return job_dispatch(job=job, raise_unqueued=raise_unqueued)
