"""Server-rendered pages. Views only check access, call a page selector or a service, and
render; every rule lives in the services and selectors."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from apps.accounts.decorators import researcher_required, role_required
from apps.accounts.roles import is_researcher

from . import page_selectors
from .forms import InstanceFilterForm
from .models import LANGUAGE_NAMES, Dataset, Finding, Template
from .services import dataset_instantiate_async


@require_GET
@role_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "catalog/home.html", {"summaries": page_selectors.dataset_summaries()})


@require_GET
@role_required
def dataset_detail(request: HttpRequest, pk: int) -> HttpResponse:
    dataset = get_object_or_404(Dataset, pk=pk)
    return render(
        request,
        "catalog/dataset_detail.html",
        {
            "page": page_selectors.dataset_page(dataset=dataset),
            "can_instantiate": is_researcher(request.user),
            "language_names": LANGUAGE_NAMES,
        },
    )


@require_POST
@researcher_required
def dataset_instantiate(request: HttpRequest, pk: int) -> HttpResponse:
    dataset = get_object_or_404(Dataset, pk=pk)
    job = dataset_instantiate_async(dataset=dataset, requested_by=request.user)
    return redirect("jobs:detail", pk=job.pk)


@require_GET
@role_required
def template_detail(request: HttpRequest, pk: int) -> HttpResponse:
    template = get_object_or_404(Template.objects.select_related("dataset", "category"), pk=pk)
    return render(
        request,
        "catalog/template_detail.html",
        {"page": page_selectors.template_page(template=template)},
    )


@require_GET
@role_required
def dataset_findings(request: HttpRequest, pk: int) -> HttpResponse:
    dataset = get_object_or_404(Dataset, pk=pk)
    kind = request.GET.get("kind", "")
    status = request.GET.get("status", "")
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "catalog/findings.html",
        {
            "page": page_selectors.findings_page(
                dataset=dataset, kind=kind, status=status, page=request.GET.get("page")
            ),
            "kind": kind,
            "status": status,
            "statuses": Finding.Status.values,
            "query": query.urlencode(),
        },
    )


@require_GET
@role_required
def instance_list(request: HttpRequest, pk: int) -> HttpResponse:
    dataset = get_object_or_404(Dataset, pk=pk)
    form = InstanceFilterForm(request.GET or None, dataset=dataset)
    filters = form.filters() if request.GET else page_selectors.InstanceFilters()
    page, total = page_selectors.instance_page(
        dataset=dataset, filters=filters, page=request.GET.get("page")
    )
    # Pagination links keep the filters but not the page number.
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "catalog/instance_list.html",
        {
            "dataset": dataset,
            "form": form,
            "page_obj": page,
            "total": total,
            "query": query.urlencode(),
        },
    )


@require_GET
@role_required
def concept_list(request: HttpRequest) -> HttpResponse:
    return render(request, "catalog/concept_list.html", {"rows": page_selectors.concept_rows()})
