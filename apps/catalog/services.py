"""Catalog writes: datasets, template versions, instantiation."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Exists, Max, OuterRef
from django.utils import timezone

from apps.core.errors import ConflictError, KasautiError
from apps.core.text import nfc_deep

from . import generators, instantiation, review, selectors
from .bulk import instances_insert, json_text
from .models import (
    Category,
    ContextSentence,
    Dataset,
    EvidenceReference,
    Finding,
    FindingReview,
    Instance,
    ReviewStatus,
    StereotypeConcept,
    Template,
    TemplateVersion,
    UnknownExpression,
    Vocabulary,
)

# Fields of TemplateVersion that make up a template's content (everything an edit may change).
TEMPLATE_CONTENT_FIELDS = (
    "language",
    "ambiguous_context",
    "disambiguating_context",
    "question_negative",
    "question_non_negative",
    "answer_negative",
    "answer_non_negative",
    "placeholders",
    "placeholder_groups",
    "placeholder_sources",
    "target_placeholder",
    "proper_noun",
    "noun_form",
    "pairing",
    "generator",
    "generator_data",
    "stereotyped_groups",
    "non_stereotyped_groups",
    "subcategory",
    "transformation_type",
    "transformation_reason",
    "original_bbq_id",
    "concept_id",
    "source",
    "notes",
    "status",
    "origin",
)


def dataset_create(
    *, name: str, description: str = "", name_permutations: bool = False, created_by=None
) -> Dataset:
    if Dataset.objects.filter(name=name).exists():
        raise ConflictError(f"a dataset named {name!r} already exists")
    return Dataset.objects.create(
        name=name,
        description=description,
        name_permutations=name_permutations,
        created_by=created_by,
    )


# One transaction: a failure on a later row must not leave the first one behind.
@transaction.atomic
def category_create(
    *, name: str, description: str = "", components: list[Category] | None = None
) -> Category:
    if Category.objects.filter(name=name).exists():
        raise ConflictError(f"a category named {name!r} already exists")
    category = Category.objects.create(name=name, description=description)
    category.components.set(components or [])
    return category


def concept_create(
    *, category: Category, statement: str, evidence: list[dict[str, str]], **fields: Any
) -> StereotypeConcept:
    with transaction.atomic():
        concept = StereotypeConcept.objects.create(category=category, statement=statement, **fields)
        EvidenceReference.objects.bulk_create(
            EvidenceReference(concept=concept, url=item.get("url", ""), note=item.get("note", ""))
            for item in evidence
        )
    return concept


def unknown_expression_create(*, language: str, text: str) -> UnknownExpression:
    expression, created = UnknownExpression.objects.get_or_create(
        language=language,
        text=text,
        defaults={
            "position": UnknownExpression.objects.filter(language=language).count(),
        },
    )
    if not created:
        raise ConflictError(f"{text!r} is already an unknown expression for {language!r}")
    return expression


def dataset_get_or_create(*, name: str, created_by=None) -> tuple[Dataset, bool]:
    """The dataset of that name, and whether this call created it. Of parallel calls for a new
    name exactly one creates it: the unique name makes the others' INSERT wait for it and fail,
    and they read its row (get_or_create's savepoint), so only one is told it created it."""
    return Dataset.objects.get_or_create(name=name, defaults={"created_by": created_by})


def category_get_or_create(*, name: str) -> Category:
    category, _ = Category.objects.get_or_create(name=name.strip())
    return category


def template_spec(
    version: TemplateVersion, *, template_id: str | None = None
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


def _resolve_vocabulary_references(content: dict[str, Any]) -> dict[str, Any]:
    """Replace placeholder references {"vocabulary": name, "groups": [...], "language": xx}
    by the vocabulary's values of those groups (all groups if none are named), with their
    group labels, and record the reference in placeholder_sources."""
    placeholders = content.get("placeholders") or {}
    if not any(isinstance(spec, dict) for spec in placeholders.values()):
        return content
    language = content.get("language", "en")
    values: dict[str, list[str]] = {}
    groups = dict(content.get("placeholder_groups") or {})
    sources = dict(content.get("placeholder_sources") or {})
    for name, spec in placeholders.items():
        if not isinstance(spec, dict):
            values[name] = spec
            continue
        if not isinstance(spec.get("vocabulary"), str):
            raise KasautiError(f"{name}: a vocabulary reference needs a 'vocabulary' name")
        vocabulary_language = spec.get("language", language)
        try:
            vocabulary = Vocabulary.objects.get(
                name=spec["vocabulary"], language=vocabulary_language
            )
        except Vocabulary.DoesNotExist:
            raise KasautiError(
                f"{name}: no vocabulary {spec['vocabulary']!r} in language {vocabulary_language!r}"
            ) from None
        entries = vocabulary.entries.order_by("position")
        wanted = spec.get("groups") or []
        if wanted:
            entries = entries.filter(group__in=wanted)
        picked = list(entries.values_list("value", "group"))
        if not picked:
            raise KasautiError(f"{name}: vocabulary {vocabulary.name!r} has no entries of {wanted}")
        values[name] = [value for value, _ in picked]
        groups[name] = [group for _, group in picked]
        sources[name] = {
            "vocabulary": vocabulary.name,
            "language": vocabulary_language,
            "groups": wanted,
        }
    return {
        **content,
        "placeholders": values,
        "placeholder_groups": groups,
        "placeholder_sources": sources,
    }


def _validated_content(content: dict[str, Any]) -> dict[str, Any]:
    content = _resolve_vocabulary_references(nfc_deep(content))
    unknown = set(content) - set(TEMPLATE_CONTENT_FIELDS)
    if unknown:
        raise KasautiError(f"unknown template field(s): {', '.join(sorted(unknown))}")
    spec = template_spec(TemplateVersion(**content), template_id="")
    problems = generators.validate(spec)
    if problems:
        raise KasautiError("; ".join(f"{p.field}: {p.message}" for p in problems))
    return content


# One transaction: a failure on a later row must not leave the first one behind.
@transaction.atomic
def template_create(
    *,
    dataset: Dataset,
    external_id: str,
    category: Category,
    content: dict[str, Any],
    question_index: str = "",
    variant: str = "",
    position: int | None = None,
    created_by=None,
) -> TemplateVersion:
    """Create a template with its first version. Raises KasautiError on invalid content."""
    content = _validated_content(content)
    if Template.objects.filter(dataset=dataset, external_id=external_id).exists():
        raise ConflictError(f"template {external_id!r} already exists in dataset {dataset.name!r}")
    if position is None:
        position = (dataset.templates.aggregate(m=Max("position"))["m"] or 0) + 1
    template = Template.objects.create(
        dataset=dataset,
        external_id=external_id,
        category=category,
        question_index=question_index or external_id,
        variant=variant,
        position=position,
    )
    return TemplateVersion.objects.create(
        template=template, number=1, created_by=created_by, **content
    )


@dataclass(frozen=True)
class NewTemplate:
    """A template to create in bulk; its content must already be validated."""

    external_id: str
    category: Category
    content: dict[str, Any]
    question_index: str = ""
    variant: str = ""
    position: int = 0


# One transaction: a failure on a later row must not leave the first one behind.
@transaction.atomic
def template_bulk_create(
    *, dataset: Dataset, templates: list[NewTemplate], created_by=None
) -> list[TemplateVersion]:
    """template_create for many templates in two INSERTs (imports write hundreds at once;
    three round trips per template made an 850-row file take seconds). The caller has
    validated every content with instantiation.validate_template and checked the ids are new."""
    unknown = {key for t in templates for key in t.content} - set(TEMPLATE_CONTENT_FIELDS)
    if unknown:  # a caller bug, not bad input
        raise KasautiError(f"unknown template field(s): {', '.join(sorted(unknown))}")
    rows = Template.objects.bulk_create(
        Template(
            dataset=dataset,
            external_id=t.external_id,
            category=t.category,
            question_index=t.question_index or t.external_id,
            variant=t.variant,
            position=t.position,
        )
        for t in templates
    )
    return TemplateVersion.objects.bulk_create(
        TemplateVersion(template=row, number=1, created_by=created_by, **nfc_deep(t.content))
        for row, t in zip(rows, templates, strict=True)
    )


def template_edit(
    *, template: Template, changes: dict[str, Any], edited_by=None
) -> TemplateVersion:
    """Record an edit as a new version; the previous versions stay untouched. An edit that
    changes nothing returns the current version instead of adding an identical one."""
    with transaction.atomic():
        Template.objects.select_for_update().get(pk=template.pk)
        current = selectors.template_current_versions(templates=[template]).get()
        content = {name: getattr(current, name) for name in TEMPLATE_CONTENT_FIELDS}
        content.update(changes)
        content = _validated_content(content)
        if all(getattr(current, name) == value for name, value in content.items()):
            return current
        return TemplateVersion.objects.create(
            template=template, number=current.number + 1, created_by=edited_by, **content
        )


# --- instantiation -------------------------------------------------------------------------


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


def version_label(version: TemplateVersion) -> str:
    """How pages and errors name a template version: "T-rail v2 (approved)"."""
    return (
        f"{version.template.external_id} v{version.number} ({version.get_status_display().lower()})"
    )


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
        if generators.count(template_spec(version), permutations=dataset.name_permutations)
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
        if version.status == ReviewStatus.REJECTED:
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
                    template_spec(version), permutations=dataset.name_permutations
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


# Column order of the rows _instance_rows yields: what a template shares, then what a
# combination shares, then what each instance has of its own, so that building a row is two
# tuple concatenations (this loop writes hundreds of thousands of rows). It is a reordered
# subset of the one column list, bulk.INSTANCE_COLUMNS (instances_insert refuses any other
# name); the columns left out (source id, source instance, retired) take their defaults.
ORIGINAL_INSTANCE_COLUMNS = (
    "dataset_id",
    "template_version_id",
    "category_id",
    "language",
    "question_index",
    "proper_noun",
    "noun_form",
    "created_at",
    "combination",
    "placeholder_values",
    "ans0",
    "ans1",
    "ans2",
    "option_roles",
    "answer_info",
    "additional_metadata",
    "example_id",
    "name_order",
    "context_condition",
    "question_polarity",
    "pairing",
    "context",
    "question",
    "label",
)


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
        template_spec(version), unknowns, permutations=dataset.name_permutations
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


def dataset_instantiate_async(*, dataset: Dataset, requested_by=None, raise_unqueued: bool = True):
    """Queue an instantiation job; the worker picks it up after this transaction commits.
    `raise_unqueued`: see apps.core.services.task_send."""
    from apps.core.services import job_create, job_dispatch

    from .jobs import INSTANTIATE

    with transaction.atomic():
        job = job_create(
            kind=INSTANTIATE,
            title=f"Instantiate dataset {dataset.name}",
            params={"dataset_id": dataset.pk, "dataset_name": dataset.name},
            unit="instances",
            created_by=requested_by,
        )
        return job_dispatch(job=job, raise_unqueued=raise_unqueued)


# --- findings --------------------------------------------------------------------------------


def finding_status_set(
    *, finding: Finding, status: str, note: str = "", reviewed_by: Any = None
) -> Finding:
    """Mark a finding reviewed: accepted (the published text stays as it is) or resolved
    (fixed in a later version); or open it again. Each change is kept in the finding's history
    (FindingReview: from, to, who, when, note); setting the status it already has changes
    nothing and records nothing."""
    _finding_status_check(status)
    with transaction.atomic():
        locked = Finding.objects.select_for_update().get(pk=finding.pk)
        if locked.status != status:
            FindingReview.objects.create(
                finding=locked,
                from_status=locked.status,
                to_status=status,
                note=nfc_deep(note.strip()),
                reviewed_by=reviewed_by,
            )
            locked.status = status
            locked.save(update_fields=["status"])
    finding.status = status
    return finding


def finding_kind_status_set(
    *,
    dataset: Dataset,
    kind: str,
    status: str,
    note: str = "",
    reviewed_by: Any = None,
    from_status: str = Finding.Status.OPEN,
) -> int:
    """Review every finding of one kind in a dataset at once: those now `from_status` (open,
    by default: a bulk accept does not undo a finding someone resolved one by one) move to
    `status`, each with its own history row carrying the note. Returns how many changed."""
    _finding_status_check(status)
    _finding_status_check(from_status)
    if status == from_status:
        return 0
    note = nfc_deep(note.strip())
    with transaction.atomic():
        ids = list(
            Finding.objects.select_for_update()
            .filter(dataset=dataset, kind=kind, status=from_status)
            .order_by("id")
            .values_list("id", flat=True)
        )
        FindingReview.objects.bulk_create(
            FindingReview(
                finding_id=pk,
                from_status=from_status,
                to_status=status,
                note=note,
                reviewed_by=reviewed_by,
            )
            for pk in ids
        )
        Finding.objects.filter(pk__in=ids).update(status=status)
    return len(ids)


def _finding_status_check(status: str) -> None:
    if status not in Finding.Status.values:
        raise KasautiError(
            f"unknown finding status {status!r}; use one of {', '.join(Finding.Status.values)}"
        )


# --- review facts ------------------------------------------------------------------------------


def context_sentence_review_record(*, sentence_id: int, tier: str, decision: str) -> None:
    """Record a sentence-review decision on the catalog sentence: which tier decided and
    whether it kept, fixed (the text is already rewritten, with its revision) or dropped the
    sentence. The last decision recorded is the sentence's review state (apps.catalog.review);
    the caller (apps.annotation) holds the review item's lock."""
    if tier not in review.SENTENCE_TIERS:
        raise KasautiError(f"tier: {tier!r} is not one of {', '.join(review.SENTENCE_TIERS)}")
    if decision not in (*review.SENTENCE_PASSED, ContextSentence.ReviewDecision.DROP):
        raise KasautiError(f"decision: {decision!r} is not one of keep, fix, drop")
    updated = ContextSentence.objects.filter(pk=sentence_id).update(
        review_tier=tier, review_decision=decision, reviewed_at=timezone.now()
    )
    if not updated:
        raise KasautiError(f"context sentence {sentence_id} does not exist")
