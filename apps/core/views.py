"""The one job page (and list) for every kind of background job."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views import defaults
from django.views.decorators.http import require_GET, require_POST

from apps.accounts.decorators import researcher_required, role_required
from apps.accounts.roles import is_researcher

from . import selectors, services
from .errors import KasautiError
from .models import Job
from .registry import job_kind_get, job_kinds

JOBS_PER_PAGE = 50


def healthz(request: HttpRequest) -> JsonResponse:
    """For load balancers and docker-compose health checks: the database and the task broker,
    each "ok" or why not; 503 when one is down."""
    checks = services.health_check()
    healthy = all(value == "ok" for value in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "unavailable", **checks}, status=200 if healthy else 503
    )


@require_GET
@role_required
def job_list(request: HttpRequest) -> HttpResponse:
    kind = request.GET.get("kind", "")
    status = request.GET.get("status", "")
    page = Paginator(selectors.job_list(kind=kind, status=status), JOBS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return render(
        request,
        "core/job_list.html",
        {
            "page_obj": page,
            "kinds": job_kinds(),
            "statuses": Job.Status.choices,
            "kind": kind,
            "status": status,
        },
    )


@require_GET
@role_required
def job_detail(request: HttpRequest, pk: int) -> HttpResponse:
    job = get_object_or_404(Job.objects.select_related("created_by"), pk=pk)
    kind = job_kind_get(job.kind, default=None)
    extra = kind.page_context(job, request) if kind and kind.page_template else {}
    return render(
        request,
        "core/job_detail.html",
        {
            "view": selectors.job_view(job=job),
            "job": job,
            "can_control": is_researcher(request.user),
            "page_template": kind.page_template if kind else "",
            **extra,
        },
    )


@require_POST
@researcher_required
def job_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        services.job_cancel(job=get_object_or_404(Job, pk=pk))
        messages.info(request, "Cancelled. Work already done stays valid; resume to go on.")
    except KasautiError as exc:
        messages.error(request, str(exc))
    return redirect("jobs:detail", pk=pk)


@require_POST
@researcher_required
def job_resume(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        services.job_resume(job=get_object_or_404(Job, pk=pk))
        messages.info(request, "Resumed: what is left of the job is queued again.")
    except KasautiError as exc:
        messages.error(request, str(exc))
    return redirect("jobs:detail", pk=pk)


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def not_found(request: HttpRequest, exception: Exception):
    """404 for a path no route matches (e.g. /api/datasets/abc/): JSON under /api/, as every
    other API error, and the HTML page elsewhere."""
    if _is_api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest):
    if _is_api(request):
        return JsonResponse({"detail": "Server error."}, status=500)
    return defaults.server_error(request)
