"""Template authoring pages (docs/studio/authoring.md): write a new template or edit one in the
browser, with a live preview (exact instance count, the first instances, the findings beside
their fields). Saving records a draft version (with its error findings, if any); an edit
started from an older version than the current one is refused, the text typed is kept and
both diffs are shown."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from apps.accounts.decorators import researcher_required
from apps.core.error_pages import post_form
from apps.core.errors import KasautiError

from . import authoring, selectors, services
from .forms_authoring import PlaceholderListForm, TemplateAuthoringForm
from .models import Dataset, Template, TemplateVersion
from .services.templates import TEMPLATE_CONTENT_FIELDS
from .versions import version_changes


def _current(template: Template) -> TemplateVersion:
    return (
        selectors.template_current_versions(templates=[template])
        .select_related("created_by", "template")
        .get()
    )


def _current_content(version: TemplateVersion) -> dict[str, Any]:
    return {name: getattr(version, name) for name in TEMPLATE_CONTENT_FIELDS}


def _changes_since(template: Template, number: int, content: dict[str, Any]) -> dict[str, Any]:
    """The fields of `content` that differ from version `number` (what the researcher changed
    since they started), so that saving on top of a newer version keeps that version's own
    changes to the other fields."""
    base = template.versions.filter(number=number).first()
    if base is None:
        raise KasautiError(f"{template.external_id} has no version {number}")
    resolved, _ = authoring.content_resolved(dict(content))
    changes = {
        name: content[name]
        for name in content
        if name not in ("placeholder_sources", "status") and resolved[name] != getattr(base, name)
    }
    if {"placeholders", "placeholder_groups"} & set(changes):
        for name in ("placeholders", "placeholder_groups", "placeholder_sources"):
            changes[name] = content[name]
    return {**changes, "status": content["status"]}


def _permutations(form: TemplateAuthoringForm, template: Template | None) -> bool:
    if template is not None:
        return template.dataset.name_permutations
    dataset = form.cleaned_data.get("dataset") if hasattr(form, "cleaned_data") else None
    return bool(dataset and dataset.name_permutations)


def _preview(
    form: TemplateAuthoringForm, template: Template | None, version: TemplateVersion | None
) -> authoring.Preview:
    """The preview of what the form holds (valid or not: its own errors are findings too);
    of the version itself before anything is typed."""
    if form.is_bound:
        form.is_valid()
        content = form.content()
    else:
        content = {}
    if version is not None:  # an edit keeps what the form does not show (its generator, ...)
        content = {**_current_content(version), **content}
    external_id = template.external_id if template else form.data.get("external_id", "")
    preview = authoring.template_preview(
        content=content,
        permutations=_permutations(form, template),
        template_id=external_id or "preview",
    )
    if form.is_bound:
        preview.findings = form.field_errors() + preview.findings
    return preview


def _fields(form: TemplateAuthoringForm, preview: authoring.Preview | None) -> dict[str, Any]:
    """Each bound field with the findings that concern it, for the page."""
    by_field: dict[str, list[dict[str, str]]] = {}
    for finding in preview.findings if preview else []:
        by_field.setdefault(finding["field"], []).append(finding)
    fields = {bf.name: {"bf": bf, "findings": by_field.get(bf.name, [])} for bf in form}
    for lst in form.lists:
        related = [
            f for name, found in by_field.items() if name.split("-")[0] == lst.name for f in found
        ]
        lst.findings = related
    known = set(fields) | {lst.name for lst in form.lists}
    general = [
        f for name, found in by_field.items() if name.split("-")[0] not in known for f in found
    ]
    return {"fields": fields, "general_findings": general}


def _render(
    request: HttpRequest,
    form: TemplateAuthoringForm,
    *,
    template: Template | None,
    version: TemplateVersion | None,
    dataset: Dataset | None = None,
    status: int = 200,
    error: str = "",
    conflict: dict[str, Any] | None = None,
) -> HttpResponse:
    preview = _preview(form, template, version) if (form.is_bound or version) else None
    preview_url = (
        reverse("web:template-edit-preview", args=[template.pk])
        if template
        else reverse("web:template-preview")
    )
    return render(
        request,
        "catalog/authoring/template_form.html",
        {
            "form": form,
            "template": template,
            "version": version,
            "dataset": dataset or (template.dataset if template else None),
            "preview": preview.as_dict() if preview else None,
            "preview_url": preview_url,
            "error": error,
            "conflict": conflict,
            # Cloned by static/js/template_editor.js for "Add a WORD list" (__N__: its number).
            "blank_list": PlaceholderListForm(name="WORD__N__"),
            **_fields(form, preview),
        },
        status=status,
    )


def _saved(request: HttpRequest, version: TemplateVersion, *, created: bool) -> HttpResponse:
    label = selectors.template_version_label(version=version)
    if version.problems:
        messages.warning(
            request,
            f"Saved {label} with {len(version.problems)} error(s): it stays a draft, is neither "
            "instantiated nor approved until a version without errors is saved.",
        )
    else:
        messages.success(request, f"Saved {label}.")
    url = reverse("web:template", args=[version.template_id])
    return redirect(f"{url}?saved={version.number}" if not created else f"{url}?saved=1")


def _template_new(request: HttpRequest, dataset: Dataset | None) -> HttpResponse:
    fixed = dataset is not None
    if request.method == "GET":
        wanted = dataset or Dataset.objects.filter(pk=_int(request.GET.get("dataset"))).first()
        form = TemplateAuthoringForm(dataset=wanted, dataset_fixed=fixed)
        return _render(request, form, template=None, version=None, dataset=dataset)
    form = TemplateAuthoringForm(request.POST, dataset=dataset, dataset_fixed=fixed)
    if not form.is_valid():
        return _render(request, form, template=None, version=None, dataset=dataset, status=400)
    cleaned = form.cleaned_data
    try:
        version = services.template_create(
            dataset=cleaned["dataset"],
            external_id=cleaned["external_id"],
            category=cleaned["category"],
            new_category=cleaned["new_category"] or "",
            question_index=cleaned.get("question_index") or "",
            variant=cleaned.get("variant") or "",
            content=form.content(),
            created_by=request.user,
            allow_problems=True,
        )
    except KasautiError as exc:
        return _render(
            request,
            form,
            template=None,
            version=None,
            dataset=dataset,
            status=exc.status_code,
            error=str(exc),
        )
    return _saved(request, version, created=True)


def _int(value: str | None) -> int:
    try:
        return int(value or 0)
    except ValueError:
        return 0


@require_http_methods(["GET", "POST"])
@researcher_required
def template_new(request: HttpRequest) -> HttpResponse:
    """A new template; the dataset is chosen in the form (?dataset=<pk> preselects it)."""
    return _template_new(request, None)


@require_http_methods(["GET", "POST"])
@researcher_required
def dataset_template_new(request: HttpRequest, pk: int) -> HttpResponse:
    """A new template in this dataset."""
    return _template_new(request, get_object_or_404(Dataset, pk=pk))


@require_http_methods(["GET", "POST"])
@researcher_required
def template_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """Edit a template: saving records a new draft version based on the hidden base version;
    if another version was saved meanwhile, nothing is written and both diffs are shown."""
    template = get_object_or_404(Template.objects.select_related("dataset", "category"), pk=pk)
    current = _current(template)
    if request.method == "GET":
        form = TemplateAuthoringForm(template=template, version=current)
        return _render(request, form, template=template, version=current)
    form = TemplateAuthoringForm(request.POST, template=template, version=current)
    if not form.is_valid():
        return _render(request, form, template=template, version=current, status=400)
    content = form.content()
    base = form.cleaned_data["base_version"]
    rebase = _int(request.POST.get("rebase"))
    try:
        if rebase:
            # "Save my changes on top of the newer version" (the conflict panel's button):
            # only what this researcher changed from the version they started from is applied.
            content = _changes_since(template, base, content)
            base = rebase
        version = services.template_edit(
            template=template,
            changes=content,
            edited_by=request.user,
            base_number=base,
            allow_problems=True,
        )
    except services.TemplateEditConflict as conflict:
        mine_only = _changes_since(template, conflict.base.number, form.content())
        yours, _ = authoring.content_resolved(
            {**_current_content(conflict.current), **form.content()}
        )
        mine = TemplateVersion(**yours)
        theirs = version_changes(conflict.current, conflict.base)
        started, _ = authoring.content_resolved({**_current_content(conflict.base), **mine_only})
        mine_changes = version_changes(TemplateVersion(**started), conflict.base)
        return _render(
            request,
            form,
            template=template,
            version=current,
            status=409,
            error=str(conflict),
            conflict={
                "base": conflict.base,
                "current": conflict.current,
                "theirs": theirs,
                "yours": version_changes(mine, conflict.current),
                "mine": mine_changes,
                "both": sorted({c["field"] for c in theirs} & {c["field"] for c in mine_changes}),
            },
        )
    except KasautiError as exc:
        return _render(
            request,
            form,
            template=template,
            version=current,
            status=exc.status_code,
            error=str(exc),
        )
    if version.pk == current.pk:
        messages.info(request, "Nothing changed: no new version was recorded.")
        return redirect("web:template", pk=template.pk)
    return _saved(request, version, created=False)


@post_form("previews a template being written (the live preview of the authoring page)")
@researcher_required
def template_preview(request: HttpRequest) -> JsonResponse:
    """The live preview of the new-template form, as JSON (static/js/template_editor.js)."""
    form = TemplateAuthoringForm(request.POST)
    return JsonResponse(_preview(form, None, None).as_dict())


@post_form("previews an edit of a template (the live preview of the authoring page)")
@researcher_required
def template_edit_preview(request: HttpRequest, pk: int) -> JsonResponse:
    template = get_object_or_404(Template.objects.select_related("dataset"), pk=pk)
    current = _current(template)
    form = TemplateAuthoringForm(request.POST, template=template, version=current)
    return JsonResponse(_preview(form, template, current).as_dict())
