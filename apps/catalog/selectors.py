"""Catalog reads. Views and the API go through these so the query shapes live in one place."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import django_filters
from django.core.exceptions import EmptyResultSet
from django.db.models import (
    BigIntegerField,
    Count,
    IntegerField,
    OuterRef,
    Prefetch,
    QuerySet,
    Subquery,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce
from django.db.models.query import BaseIterable

from apps.core.filters import CachedFormFilterSet, ReferenceFilter

from . import compare, instantiation
from .instance_json import PAGE_COLUMNS, instance_page_sql
from .models import (
    Category,
    ContextSet,
    Dataset,
    Finding,
    FindingReview,
    Instance,
    SentencePair,
    StereotypeConcept,
    StereotypeTuple,
    Template,
    TemplateVersion,
)


def _count(queryset: QuerySet) -> Subquery:
    """COUNT(*) of a queryset correlated to the outer dataset, as a subquery. Counting several
    relations through joins would multiply them (templates x instances rows) before DISTINCT."""
    return Subquery(
        queryset.filter(dataset=OuterRef("pk"))
        .order_by()
        .values("dataset")
        .annotate(n=Count("*"))
        .values("n"),
        output_field=IntegerField(),
    )


def dataset_list() -> QuerySet[Dataset]:
    """Datasets with their template, live-instance, pair, tuple and context-set counts."""
    return Dataset.objects.annotate(
        template_count=Coalesce(_count(Template.objects.all()), 0),
        live_instance_count=Coalesce(_count(Instance.objects.filter(retired_at__isnull=True)), 0),
        sentence_pair_count=Coalesce(_count(SentencePair.objects.all()), 0),
        tuple_count=Coalesce(_count(StereotypeTuple.objects.all()), 0),
        context_set_count=Coalesce(_count(ContextSet.objects.all()), 0),
    )


def template_list() -> QuerySet[Template]:
    """Templates with their versions prefetched newest first, and their current version
    (template_current_versions) as `current_versions` (a list of one)."""
    return Template.objects.select_related("dataset", "category").prefetch_related(
        Prefetch(
            "versions",
            queryset=TemplateVersion.objects.select_related("concept", "created_by").order_by(
                "-number"
            ),
        ),
        Prefetch(
            "versions",
            queryset=template_current_versions().select_related("concept", "created_by"),
            to_attr="current_versions",
        ),
    )


def template_version_spec(
    *, version: TemplateVersion, template_id: str | None = None
) -> instantiation.TemplateSpec:
    """What instantiation needs from a version. `template_id` defaults to the template's
    external id; an unsaved version (being validated) has no template yet."""
    return instantiation.TemplateSpec(
        template_id=version.template.external_id if template_id is None else template_id,
        language=version.language,
        ambiguous_context=version.ambiguous_context,
        disambiguating_context=version.disambiguating_context,
        question_negative=version.question_negative,
        question_non_negative=version.question_non_negative,
        answer_negative=version.answer_negative,
        answer_non_negative=version.answer_non_negative,
        placeholders=version.placeholders,
        pairing=version.pairing,
        target_placeholder=version.target_placeholder,
        placeholder_groups=version.placeholder_groups or {},
        proper_noun=version.proper_noun,
        noun_form=version.noun_form,
        generator=version.generator,
        generator_data=version.generator_data or {},
    )


def template_version_label(*, version: TemplateVersion) -> str:
    """How pages and errors name a template version: "T-rail v2 (approved)"."""
    return (
        f"{version.template.external_id} v{version.number} ({version.get_status_display().lower()})"
    )


def template_current_versions(
    *, dataset: Dataset | None = None, templates: Iterable[Template] | None = None
) -> QuerySet[TemplateVersion]:
    """The current (highest-numbered) version of each template, of a dataset or of the given
    templates. A correlated MAX subquery rather than DISTINCT ON, which SQLite (the `make run`
    default) does not support."""
    latest = (
        TemplateVersion.objects.filter(template=OuterRef("template"))
        .order_by("-number")
        .values("number")[:1]
    )
    versions = TemplateVersion.objects.filter(number=Subquery(latest))
    if dataset is not None:
        versions = versions.filter(template__dataset=dataset)
    if templates is not None:
        versions = versions.filter(template__in=list(templates))
    return versions


def instance_list() -> QuerySet[Instance]:
    return Instance.objects.select_related(
        "category", "template_version", "template_version__template", "template_version__concept"
    )


def instance_json_rows(queryset: QuerySet[Instance] | None = None) -> QuerySet:
    """The instances of `queryset` (default: all) as `{"id": id, "doc": "<JSON text>"}`, the
    JSON rendered by PostgreSQL in the same query: exactly the API's InstanceOutput (same keys,
    order and values), so a page of a million-row table costs one indexed query and no
    per-field Python (P9). Order it by id (either way), filter and slice it as any queryset.
    PostgreSQL only; the API falls back to the serializer elsewhere."""
    if queryset is None:
        # Built once: naming its 23 columns cost 0.15 ms of Python per request.
        return _ALL_INSTANCE_ROWS.all()
    rows = queryset.values(*PAGE_COLUMNS)
    rows._iterable_class = _InstanceJSONRows
    return rows


class _InstanceJSONRows(BaseIterable):
    """Runs the queryset's query (its rows: filtered, ordered, sliced) inside the page query
    of instance_json.instance_page_sql, which joins what the JSON needs to those rows and
    renders them. (A queryset's _iterable_class is how values() yields dicts.)"""

    def __iter__(self):
        query = self.queryset.query
        order = [*query.order_by] if query.order_by else [*query.get_meta().ordering]
        if order not in (["id"], ["-id"], ["pk"], ["-pk"]):
            raise ValueError(f"instance JSON rows are ordered by id, not {order}")
        descending = order[0].startswith("-") == query.standard_ordering
        compiler = query.get_compiler(self.queryset.db)
        try:
            sql, params = compiler.as_sql()
        except EmptyResultSet:
            return
        with compiler.connection.cursor() as cursor:
            cursor.execute(instance_page_sql(sql, descending=descending), params)
            for pk, doc in cursor.fetchall():
                yield {"id": pk, "doc": doc}


_ALL_INSTANCE_ROWS = instance_json_rows(Instance.objects.all())


def concept_list() -> QuerySet[StereotypeConcept]:
    return StereotypeConcept.objects.select_related("category").prefetch_related("evidence")


class TemplateFilter(django_filters.FilterSet):
    dataset = ReferenceFilter(model=Dataset)
    category = ReferenceFilter(model=Category)
    language = django_filters.CharFilter(method="filter_current", label="language")
    status = django_filters.CharFilter(method="filter_current", label="status")

    class Meta:
        model = Template
        fields = ["dataset", "category", "language", "status"]

    def filter_current(self, queryset, name, value):
        # Filter on the *current* version: a template whose latest version is approved counts
        # as approved, whatever its older versions were.
        current = template_current_versions().filter(**{name: value})
        return queryset.filter(pk__in=current.values("template_id"))


class InstanceFilter(CachedFormFilterSet):
    # ReferenceFilter resolves a name to the object first, so the query is
    # `dataset_id = <id>`: planned with that dataset's own row count, walking the
    # (dataset, id) index page by page; a join on the name is planned for an average dataset
    # and sorts the whole dataset (P9).
    dataset = ReferenceFilter(model=Dataset, method="filter_dataset")
    category = ReferenceFilter(model=Category)
    # External ids are unique only within a dataset (and are often digits): `template` takes
    # the template's id, or its external id when that names exactly one template.
    template = ReferenceFilter(
        model=Template, name_field="external_id", field_name="template_version__template"
    )
    status = django_filters.ChoiceFilter(
        method="filter_status", choices=[("live", "live"), ("retired", "retired")]
    )

    class Meta:
        model = Instance
        fields = [
            "dataset",
            "category",
            "language",
            "template",
            "context_condition",
            "question_polarity",
            "pairing",
            "proper_noun",
            "status",
        ]

    def filter_status(self, queryset, name, value):
        return queryset.filter(retired_at__isnull=(value == "live"))

    def filter_dataset(self, queryset, name, dataset):
        # Pages are in id order, and the planner, assuming a dataset's rows spread evenly
        # over the table, may walk the primary key from the table's first row through every
        # other dataset's rows (900,000 of them in bench/p9_instances.py). Starting at the
        # dataset's first id bounds that walk: one probe of the (dataset, id) index, run by
        # PostgreSQL inside the page query (an InitPlan), not as a query of its own. Written
        # as SQL: a queryset here, compiled inside the page query, cost a tenth of a
        # millisecond of Python per request.
        first_id = RawSQL(_FIRST_ID_SQL, [dataset.pk], output_field=BigIntegerField())
        return queryset.filter(dataset=dataset, id__gte=first_id)


def _first_id_sql() -> str:
    """The first (lowest) id of a dataset's instances: one probe of the (dataset, id) index."""
    table, dataset = Instance._meta.db_table, Instance._meta.get_field("dataset").column
    return f'SELECT f."id" FROM "{table}" f WHERE f."{dataset}" = %s ORDER BY f."id" LIMIT 1'


_FIRST_ID_SQL = _first_id_sql()


class ConceptFilter(django_filters.FilterSet):
    category = ReferenceFilter(model=Category)
    usable = django_filters.BooleanFilter(method="filter_usable")

    class Meta:
        model = StereotypeConcept
        fields = ["category", "source", "validation_status", "polarity", "usable"]

    def filter_usable(self, queryset, name, value):
        usable = StereotypeConcept.objects.usable().values("pk")
        return queryset.filter(pk__in=usable) if value else queryset.exclude(pk__in=usable)


class _DatasetKindFilter(django_filters.FilterSet):
    dataset = ReferenceFilter(model=Dataset)
    category = ReferenceFilter(model=Category)


class SentencePairFilter(_DatasetKindFilter):
    class Meta:
        model = SentencePair
        fields = ["dataset", "category", "language", "direction"]


class TupleFilter(_DatasetKindFilter):
    class Meta:
        model = StereotypeTuple
        fields = ["dataset", "category", "language", "polarity"]


class ContextSetFilter(_DatasetKindFilter):
    class Meta:
        model = ContextSet
        fields = ["dataset", "category", "language"]


# --- findings (defects of published data kept by an import) ---------------------------------


def finding_list(*, dataset: Dataset | None = None) -> QuerySet[Finding]:
    """Findings with what they concern, in file order."""
    findings = (
        Finding.objects.select_related(
            "dataset",
            "template_version",
            "template_version__template",
            "sentence_pair",
            "context_sentence",
            "context_sentence__context_set",
        )
        .prefetch_related(
            Prefetch(
                "reviews",
                queryset=FindingReview.objects.select_related("reviewed_by").order_by(
                    "reviewed_at", "id"
                ),
            )
        )
        .order_by("file", "line", "id")
    )
    return findings if dataset is None else findings.filter(dataset=dataset)


def finding_list_for_template_version(*, template_version: TemplateVersion) -> QuerySet[Finding]:
    """The findings of one template version (the template page, the validation queue)."""
    return Finding.objects.filter(template_version=template_version).order_by("file", "line", "id")


def finding_counts_by_kind(*, findings: QuerySet[Finding]) -> dict[str, int]:
    """Kind -> count over a queryset of findings, most frequent first."""
    rows = findings.order_by().values("kind").annotate(n=Count("*")).order_by("-n", "kind")
    return {row["kind"]: row["n"] for row in rows}


def finding_counts_by_status(*, findings: QuerySet[Finding]) -> dict[str, int]:
    rows = findings.order_by().values("status").annotate(n=Count("*")).order_by("status")
    return {row["status"]: row["n"] for row in rows}


class FindingFilter(django_filters.FilterSet):
    dataset = django_filters.CharFilter(field_name="dataset__name")
    template = django_filters.CharFilter(field_name="template_version__template__external_id")
    file = django_filters.CharFilter(field_name="file")

    class Meta:
        model = Finding
        fields = ["dataset", "kind", "status", "template", "file"]


def category_list() -> QuerySet[Category]:
    return Category.objects.prefetch_related("components")


def dataset_compare_items(*, dataset: Dataset, language: str) -> list[compare.Item]:
    """A dataset's live original instances in one language, as the reproduction report
    compares them (with the finding kinds of each instance's template version)."""
    findings: dict[int, list[str]] = defaultdict(list)
    for version_id, kind in Finding.objects.filter(
        dataset=dataset, template_version__isnull=False
    ).values_list("template_version_id", "kind"):
        findings[version_id].append(kind)
    generators = dict(
        TemplateVersion.objects.filter(template__dataset=dataset).values_list("id", "generator")
    )
    rows = (
        Instance.objects.filter(
            dataset=dataset,
            language=language,
            retired_at__isnull=True,
            source_instance__isnull=True,
        )
        .order_by("category__name", "example_id", "id")
        .values_list(
            "id", "category__name", "question_index", "context_condition", "question_polarity",
            "context", "question", "ans0", "ans1", "ans2", "label", "option_roles",
            "template_version_id", "proper_noun",
        )
        .iterator(chunk_size=5000)
    )  # fmt: skip
    return [
        compare.Item(
            category=category,
            question_index=question_index,
            context_condition=condition,
            question_polarity=polarity,
            context=context,
            question=question,
            answers=(ans0, ans1, ans2),
            label=label,
            roles=tuple(roles),
            ref=f"instance {pk}",
            findings=tuple(findings.get(version_id, ())),
            # BBQ's generator samples proper names at random (no seed in the original).
            drawn=proper_noun and generators.get(version_id) == "bbq",
        )
        for (
            pk, category, question_index, condition, polarity, context, question,
            ans0, ans1, ans2, label, roles, version_id, proper_noun,
        ) in rows
    ]  # fmt: skip
