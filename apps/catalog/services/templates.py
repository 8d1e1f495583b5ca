"""Templates and their versions: create (one or in bulk), edit (a new version), and the
validation every content goes through (vocabulary references resolved, fields known, the
generator's own checks)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Max

from apps.core.errors import ConflictError, KasautiError
from apps.core.text import nfc_deep

from .. import generators, selectors
from ..models import (
    Category,
    Dataset,
    ReviewStatus,
    Template,
    TemplateVersion,
    UnknownExpression,
    Vocabulary,
)

# A template version's content is every field but the ones that say which version it is and
# who wrote it when: everything an edit may change (its texts are TemplateVersion.TEXT_FIELDS).
# `problems` is derived from the content when a version is saved, never given.
TEMPLATE_VERSION_IDENTITY_FIELDS = (
    "id",
    "template",
    "number",
    "created_by",
    "created_at",
    "problems",
)
TEMPLATE_CONTENT_FIELDS: tuple[str, ...] = tuple(
    field.attname
    for field in TemplateVersion._meta.concrete_fields
    if field.name not in TEMPLATE_VERSION_IDENTITY_FIELDS
)


def template_vocabulary_resolve(*, content: dict[str, Any]) -> dict[str, Any]:
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


def template_problems(*, content: dict[str, Any]) -> list[dict[str, str]]:
    """The error findings of a template content, each {"field", "message"}: the generator's
    own checks (undefined or unused placeholder, no disambiguation, answers that do not say
    which NAME is which, ...) and, for Kasauti's generator, an unknown answer to draw from in
    the template's language. A version with any is neither instantiated nor approved."""
    spec = selectors.template_version_spec(
        version=TemplateVersion(**{k: v for k, v in content.items() if k != "problems"}),
        template_id="",
    )
    problems = [{"field": p.field, "message": p.message} for p in generators.validate(spec)]
    if (
        spec.generator == "kasauti"
        and not UnknownExpression.objects.filter(language=spec.language).exists()
    ):
        problems.append(
            {
                "field": "language",
                "message": f'no unknown answer ("Cannot be determined") is defined for language '
                f"{spec.language!r}: add one on the vocabulary page",
            }
        )
    return problems


def _validated_content(content: dict[str, Any], *, allow_problems: bool = False) -> dict[str, Any]:
    """The content normalised (NFC), its vocabulary references resolved and its problems
    recorded. Problems refuse it, unless `allow_problems` (a draft saved from the studio, which
    must then be a draft)."""
    content = template_vocabulary_resolve(content=nfc_deep(content))
    content.pop("problems", None)
    unknown = set(content) - set(TEMPLATE_CONTENT_FIELDS)
    if unknown:
        raise KasautiError(f"unknown template field(s): {', '.join(sorted(unknown))}")
    if allow_problems:
        problems = template_problems(content=content)
        if problems and content.get("status", ReviewStatus.DRAFT) != ReviewStatus.DRAFT:
            raise KasautiError("a template with errors can be saved only as a draft")
        return {**content, "problems": problems}
    spec = selectors.template_version_spec(version=TemplateVersion(**content), template_id="")
    problems = generators.validate(spec)
    if problems:
        raise KasautiError("; ".join(f"{p.field}: {p.message}" for p in problems))
    return {**content, "problems": []}


class TemplateEditConflict(ConflictError):
    """An edit based on a version that is no longer the current one: someone saved in
    between. Carries both versions so the page can show what changed under the editor."""

    def __init__(self, *, base: TemplateVersion, current: TemplateVersion) -> None:
        self.base, self.current = base, current
        who = current.created_by.get_username() if current.created_by else "someone"
        super().__init__(
            f"{current.template.external_id} changed while you edited it: you started from "
            f"version {base.number}, {who} has since saved version {current.number}. Nothing "
            "was saved; compare the two and edit the current version."
        )


# One transaction: a failure on a later row must not leave the first one behind.
@transaction.atomic
def template_create(
    *,
    dataset: Dataset,
    external_id: str,
    category: Category | None,
    content: dict[str, Any],
    question_index: str = "",
    variant: str = "",
    position: int | None = None,
    created_by=None,
    allow_problems: bool = False,
    new_category: str = "",
) -> TemplateVersion:
    """Create a template with its first version. Raises KasautiError on invalid content, unless
    `allow_problems` (a draft kept with its problems). With no `category`, the category named
    `new_category` is made (in the same transaction: a refused template leaves none behind)."""
    content = _validated_content(content, allow_problems=allow_problems)
    if category is None:
        if not new_category.strip():
            raise KasautiError("category: choose one or name a new one")
        category, _ = Category.objects.get_or_create(name=nfc_deep(new_category.strip()))
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
    *,
    template: Template,
    changes: dict[str, Any],
    edited_by=None,
    base_number: int | None = None,
    allow_problems: bool = False,
) -> TemplateVersion:
    """Record an edit as a new version; the previous versions stay untouched. An edit that
    changes nothing returns the current version instead of adding an identical one.

    `base_number` is the version the editor started from: if another version was saved since,
    the edit is refused (TemplateEditConflict, nothing written) instead of silently replacing
    that version's changes. `allow_problems` keeps a draft with its problems (the studio)."""
    with transaction.atomic():
        Template.objects.select_for_update().get(pk=template.pk)
        current = (
            selectors.template_current_versions(templates=[template])
            .select_related("created_by", "template")
            .get()
        )
        if base_number is not None and current.number != base_number:
            base = template.versions.filter(number=base_number).first()
            if base is None:
                raise KasautiError(f"{template.external_id} has no version {base_number}")
            raise TemplateEditConflict(base=base, current=current)
        content = {name: getattr(current, name) for name in TEMPLATE_CONTENT_FIELDS}
        content.update(changes)
        content = _validated_content(content, allow_problems=allow_problems)
        if all(getattr(current, name) == value for name, value in content.items()):
            return current
        return TemplateVersion.objects.create(
            template=template, number=current.number + 1, created_by=edited_by, **content
        )
