"""The adaptation board and the concept coverage page (docs/studio/board.md). Views check
access, call a board selector or an adaptation service, and render; a refused action is
shown on the board, beside the row it concerns, with what was typed kept."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from apps.accounts.decorators import researcher_required, role_required
from apps.accounts.roles import is_researcher
from apps.core.error_pages import post_form
from apps.core.errors import KasautiError

from . import board
from .forms_board import LinkForm, RemoveForm, RestoreForm, SourceForm, StartForm
from .models import LANGUAGE_NAMES, Dataset, Template
from .services.adaptation import (
    adaptation_link,
    adaptation_remove,
    adaptation_restore,
    adaptation_start,
    dataset_source_set,
)

# A started draft opens in the template editor.
TEMPLATE_EDIT_URL = "web:template-edit"
_BACK_KEYS = ("category", "status", "page")


def _back_query(request: HttpRequest) -> str:
    """The board's own parameters of the page a form was on, rebuilt, never passed through."""
    source = request.GET if request.method == "GET" else QueryDict(request.POST.get("back", ""))
    return urlencode({key: source[key] for key in _BACK_KEYS if source.get(key)})


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value else None
    except ValueError:
        return None


def _board(
    request: HttpRequest,
    dataset: Dataset,
    *,
    failed: tuple[int, str, object] | None = None,
    source_form: SourceForm | None = None,
    status: int = 200,
) -> HttpResponse:
    """The board page. `failed` = (source template id, action, bound form) re-shows a refused
    action on its row, open, with its errors."""
    can_edit = is_researcher(request.user)
    context: dict = {
        "dataset": dataset,
        "can_edit": can_edit,
        "edit_url": TEMPLATE_EDIT_URL,
        "language_names": LANGUAGE_NAMES,
        "statuses": board.BOARD_STATUSES,
        "class_choices": board.ADAPTED_CLASS_CHOICES,
        "failed": None,
    }
    if dataset.adapted_from_id is None:
        context["source_form"] = source_form or SourceForm(
            choices=board.source_choices(dataset=dataset)
        )
        return render(request, "catalog/board/source.html", context, status=status)
    source_template = None
    if failed is not None:
        source_template = Template.objects.filter(
            pk=failed[0], dataset_id=dataset.adapted_from_id
        ).first()
        context["failed"] = {"source": failed[0], "action": failed[1], "form": failed[2]}
    page = board.board_page(
        dataset=dataset,
        category_id=_int(request.GET.get("category")),
        status=request.GET.get("status", ""),
        page=request.GET.get("page"),
        source_template=source_template,
    )
    if failed is not None:
        context["failed"]["on_page"] = any(row.template.pk == failed[0] for row in page.rows)
    query = {"category": page.category.pk if page.category else "", "status": page.status}
    if page.page is not None and page.page.number > 1:
        query["page"] = page.page.number
    context.update(
        board=page,
        back=urlencode({k: v for k, v in query.items() if v}),
        coverage=board.concept_coverage(dataset=dataset),
    )
    return render(request, "catalog/board/board.html", context, status=status)


@require_GET
@role_required
def adaptation_board(request: HttpRequest, pk: int) -> HttpResponse:
    dataset = get_object_or_404(Dataset.objects.select_related("adapted_from"), pk=pk)
    return _board(request, dataset)


def _dataset(pk: int) -> Dataset:
    return get_object_or_404(Dataset.objects.select_related("adapted_from"), pk=pk)


def _back(request: HttpRequest, dataset: Dataset) -> HttpResponse:
    url = reverse("web:adaptation-board", args=[dataset.pk])
    query = _back_query(request)
    return redirect(f"{url}?{query}" if query else url)


@post_form("sets the benchmark a dataset adapts")
@researcher_required
def adaptation_source_set(request: HttpRequest, pk: int) -> HttpResponse:
    dataset = _dataset(pk)
    form = SourceForm(request.POST, choices=board.source_choices(dataset=dataset))
    if form.is_valid():
        try:
            dataset_source_set(dataset=dataset, source=form.cleaned_data["source"])
        except KasautiError as exc:
            form.add_error("source", str(exc))
    if not form.is_valid():
        return _board(request, dataset, source_form=form, status=400)
    messages.success(request, f"{dataset.name} adapts {form.cleaned_data['source'].name}.")
    return redirect("web:adaptation-board", pk=dataset.pk)


def _row_action(request: HttpRequest, pk: int, form_class, action: str, apply) -> HttpResponse:
    """Run one row action: validate its form, find its source template, call `apply(dataset,
    source_template, cleaned_data)` (a service; returns a response or a message). A refusal
    re-renders the board with the row's form open and the reason beside it."""
    dataset = _dataset(pk)
    form = form_class(request.POST)
    source_template = None
    if form.is_valid():
        source_template = Template.objects.filter(
            pk=form.cleaned_data["source_template"], dataset_id=dataset.adapted_from_id
        ).first()
        if source_template is None:
            form.add_error(None, "That template is not in this dataset's source.")
    if form.is_valid():
        try:
            outcome = apply(dataset, source_template, form.cleaned_data)
        except KasautiError as exc:
            form.add_error(None, str(exc))
        else:
            if isinstance(outcome, HttpResponse):
                return outcome
            messages.success(request, outcome)
            return _back(request, dataset)
    row = _int(request.POST.get("source_template")) or 0
    return _board(request, dataset, failed=(row, action, form), status=400)


@post_form("starts adapting a source template: copies it into a draft of this dataset")
@researcher_required
def adaptation_start_view(request: HttpRequest, pk: int) -> HttpResponse:
    def apply(dataset, source_template, data):
        version = adaptation_start(
            dataset=dataset,
            source_template=source_template,
            transformation_type=data["transformation_type"],
            language=data["language"],
            category=data["category"],
            reason=data["reason"],
            created_by=request.user,
        )
        messages.success(
            request,
            f"Draft {version.template.external_id} copied from "
            f"{source_template.external_id}: translate and adapt it.",
        )
        return redirect(TEMPLATE_EDIT_URL, pk=version.template_id)

    return _row_action(request, pk, StartForm, "start", apply)


@post_form("marks a source template Sample-Removed, with a reason")
@researcher_required
def adaptation_remove_view(request: HttpRequest, pk: int) -> HttpResponse:
    def apply(dataset, source_template, data):
        adaptation_remove(
            dataset=dataset,
            source_template=source_template,
            reason=data["reason"],
            removed_by=request.user,
        )
        return f"{source_template.external_id} is Sample-Removed: {data['reason']}"

    return _row_action(request, pk, RemoveForm, "remove", apply)


@post_form("restores a Sample-Removed source template (to do again)")
@researcher_required
def adaptation_restore_view(request: HttpRequest, pk: int) -> HttpResponse:
    def apply(dataset, source_template, data):
        if not adaptation_restore(dataset=dataset, source_template=source_template):
            raise KasautiError(f"{source_template.external_id} was not removed")
        return f"{source_template.external_id} is to do again."

    return _row_action(request, pk, RestoreForm, "restore", apply)


@post_form("links an existing template of this dataset to a source template")
@researcher_required
def adaptation_link_view(request: HttpRequest, pk: int) -> HttpResponse:
    def apply(dataset, source_template, data):
        template = Template.objects.filter(dataset=dataset, external_id=data["template"]).first()
        if template is None:
            raise KasautiError(f"template: {dataset.name} has no template {data['template']!r}")
        adaptation_link(
            dataset=dataset,
            source_template=source_template,
            template=template,
            created_by=request.user,
        )
        return f"{template.external_id} is linked to {source_template.external_id}."

    return _row_action(request, pk, LinkForm, "link", apply)


@require_GET
@role_required
def dataset_coverage(request: HttpRequest, pk: int) -> HttpResponse:
    dataset = get_object_or_404(Dataset, pk=pk)
    return render(
        request,
        "catalog/board/coverage.html",
        {"dataset": dataset, "coverage": board.concept_coverage(dataset=dataset)},
    )
