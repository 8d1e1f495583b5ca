"""Adapting a source benchmark to another culture (EsBBQ §3.2.2-3.2.5, BharatBBQ §3.1): a
dataset names its source, and each source template is adapted (a draft copied from it, then
edited: Simply-Transferred, Target-Modified, Culturally Transformed) or removed with a reason
(Sample-Removed). Templates of the dataset with no source are Newly-Created."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from apps.core.errors import ConflictError, KasautiError
from apps.core.text import nfc

from .. import selectors
from ..models import (
    Adaptation,
    Category,
    Dataset,
    ReviewStatus,
    Template,
    TemplateVersion,
    TransformationType,
)
from .templates import TEMPLATE_CONTENT_FIELDS, template_create

# The classes a link to a source template can carry; Newly-Created templates have no source and
# Sample-Removed sources have no target.
ADAPTED_CLASSES = (
    TransformationType.SIMPLY_TRANSFERRED,
    TransformationType.TARGET_MODIFIED,
    TransformationType.CULTURALLY_TRANSFORMED,
)


def dataset_source_set(*, dataset: Dataset, source: Dataset | None) -> Dataset:
    """Say which benchmark `dataset` adapts (None: it adapts none). Refused once templates are
    linked to another source, and for a dataset that would adapt itself, directly or not."""
    with transaction.atomic():
        dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
        step = source
        while step is not None:  # the chain of sources must not come back to this dataset
            if step.pk == dataset.pk:
                raise KasautiError(
                    f"{dataset.name} cannot adapt itself"
                    if source.pk == dataset.pk
                    else f"{dataset.name} cannot adapt {source.name}: {source.name} is adapted, "
                    f"directly or not, from {dataset.name}"
                )
            step = step.adapted_from
        changes = source is None or source.pk != dataset.adapted_from_id
        if dataset.adapted_from_id and changes and dataset.adaptation_links.exists():
            raise ConflictError(
                f"{dataset.name} already records adaptations of "
                f"{dataset.adapted_from.name}; remove them before changing its source"
            )
        dataset.adapted_from = source
        dataset.save(update_fields=["adapted_from"])
    return dataset


def _source_template(dataset: Dataset, source_template: Template) -> None:
    if dataset.adapted_from_id is None:
        raise KasautiError(f"{dataset.name} adapts no dataset: set its source first")
    if source_template.dataset_id != dataset.adapted_from_id:
        raise KasautiError(
            f"{source_template.external_id} is not a template of {dataset.adapted_from.name}, "
            f"the source of {dataset.name}"
        )


def _refuse_removed(dataset: Dataset, source_template: Template) -> None:
    if Adaptation.objects.filter(
        dataset=dataset, source=source_template, template__isnull=True
    ).exists():
        raise ConflictError(
            f"{source_template.external_id} is marked Sample-Removed in {dataset.name}: "
            "restore it before adapting it"
        )


def _adapted_id(dataset: Dataset, source_template: Template) -> str:
    """The new template's id: the source's, made unique in the dataset (-2, -3, ...)."""
    base = source_template.external_id[:95]
    taken = set(
        Template.objects.filter(dataset=dataset, external_id__startswith=base).values_list(
            "external_id", flat=True
        )
    )
    candidate, n = base, 1
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def adaptation_start(
    *,
    dataset: Dataset,
    source_template: Template,
    transformation_type: str,
    language: str,
    category: Category | None = None,
    reason: str = "",
    created_by=None,
) -> TemplateVersion:
    """Start adapting a source template: its current version is copied into a new draft
    template of `dataset` (texts, placeholders and their values, groups, pairing), with the
    class and the link to the source; the researcher then translates and adapts it. The copy
    is instantiated by Kasauti's own generator: a benchmark's generator reads the source's
    original rows, which the adaptation no longer matches. It may carry problems (a draft)."""
    _source_template(dataset, source_template)
    if transformation_type not in ADAPTED_CLASSES:
        raise KasautiError(
            "transformation_type: an adaptation is ST, TM or CT (Sample-Removed is a removal, "
            "Newly-Created a template with no source)"
        )
    with transaction.atomic():
        _refuse_removed(dataset, source_template)
        source_version = selectors.template_current_versions(templates=[source_template]).get()
        content = {name: getattr(source_version, name) for name in TEMPLATE_CONTENT_FIELDS}
        content.update(
            language=language,
            generator="kasauti",
            generator_data={},
            status=ReviewStatus.DRAFT,
            transformation_type=transformation_type,
            transformation_reason=nfc(reason.strip()),
            original_bbq_id=source_template.question_index[:50],
            origin=f"adapted from {source_template.dataset.name}:{source_template.external_id}"[
                :300
            ],
        )
        version = template_create(
            dataset=dataset,
            external_id=_adapted_id(dataset, source_template),
            category=category or source_template.category,
            content=content,
            question_index=source_template.question_index,
            variant=source_template.variant,
            created_by=created_by,
            allow_problems=True,
        )
        Adaptation.objects.create(
            dataset=dataset, source=source_template, template=version.template,
            created_by=created_by,
        )  # fmt: skip
    return version


def adaptation_link(
    *, dataset: Dataset, source_template: Template, template: Template, created_by=None
) -> Adaptation:
    """Record that `template` of the dataset adapts `source_template` (an existing template:
    a proper-noun version of an adaptation, or one written before the link)."""
    _source_template(dataset, source_template)
    if template.dataset_id != dataset.pk:
        raise KasautiError(f"{template.external_id} is not a template of {dataset.name}")
    with transaction.atomic():
        _refuse_removed(dataset, source_template)
        link, _ = Adaptation.objects.get_or_create(
            dataset=dataset,
            source=source_template,
            template=template,
            defaults={"created_by": created_by},
        )
    return link


def adaptation_links_replace(
    *,
    dataset: Dataset,
    templates: Iterable[Template],
    links: Iterable[tuple[Template, Template]],
    removed_reason: str,
    import_reason_prefix: str = "",
) -> tuple[int, int]:
    """An import's record, written at once. The links of `templates` (the ones the import
    wrote) are replaced by `links` (source, target); the links of the dataset's other templates
    stay, so workbooks may come in several imports. Every source template that no link of the
    dataset adapts is Sample-Removed: a removal a person recorded keeps its reason; one an
    earlier import recorded (its reason starts with `import_reason_prefix`), and each new one,
    gets `removed_reason`; the removal of a source that is now adapted is dropped. Returns (the
    dataset's links, its Sample-Removed source templates)."""
    if dataset.adapted_from_id is None:
        raise KasautiError(f"{dataset.name} adapts no dataset")
    template_ids = {template.pk for template in templates}
    pairs = list(dict.fromkeys((s.pk, t.pk) for s, t in links))
    if any(t not in template_ids for _, t in pairs):  # a caller bug, not bad input
        raise KasautiError("a link's target is not one of the templates whose links it replaces")
    with transaction.atomic():
        Adaptation.objects.filter(dataset=dataset, template_id__in=template_ids).delete()
        Adaptation.objects.bulk_create(
            Adaptation(dataset=dataset, source_id=s, template_id=t) for s, t in pairs
        )
        linked = Adaptation.objects.filter(dataset=dataset, template__isnull=False)
        adapted = set(linked.values_list("source_id", flat=True))
        removals = Adaptation.objects.filter(dataset=dataset, template__isnull=True)
        removals.filter(source_id__in=adapted).delete()
        if import_reason_prefix:
            removals.filter(reason__startswith=import_reason_prefix).update(reason=removed_reason)
        recorded = set(removals.values_list("source_id", flat=True))
        Adaptation.objects.bulk_create(
            Adaptation(dataset=dataset, source_id=pk, reason=removed_reason)
            for pk in Template.objects.filter(dataset_id=dataset.adapted_from_id)
            .order_by("position", "id")
            .values_list("pk", flat=True)
            if pk not in adapted and pk not in recorded
        )
        return linked.count(), removals.count()


def adaptation_remove(
    *, dataset: Dataset, source_template: Template, reason: str, removed_by=None
) -> Adaptation:
    """Mark a source template Sample-Removed: its stereotype is not relevant in the target
    culture. The reason is required; a source already adapted cannot be removed (reject or
    delete the adaptation first)."""
    _source_template(dataset, source_template)
    reason = nfc(reason.strip())
    if not reason:
        raise KasautiError("reason: say why the template is removed (e.g. no reference attests it)")
    with transaction.atomic():
        if Adaptation.objects.filter(
            dataset=dataset, source=source_template, template__isnull=False
        ).exists():
            raise ConflictError(
                f"{source_template.external_id} is already adapted in {dataset.name}"
            )
        link, created = Adaptation.objects.get_or_create(
            dataset=dataset,
            source=source_template,
            template=None,
            defaults={"reason": reason, "created_by": removed_by},
        )
        if not created and link.reason != reason:
            link.reason = reason
            link.save(update_fields=["reason"])
    return link


def adaptation_restore(*, dataset: Dataset, source_template: Template) -> int:
    """Undo a Sample-Removed decision: the source template is to do again."""
    deleted, _ = Adaptation.objects.filter(
        dataset=dataset, source=source_template, template__isnull=True
    ).delete()
    return deleted
