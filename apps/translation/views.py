"""Pages: start a translation job, watch it, see its translations. Views check access and call
a service or a selector; the rules live there."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.accounts.roles import is_researcher
from apps.catalog.models import LANGUAGE_NAMES
from apps.catalog.views import role_required
from apps.core.errors import KasautiError

from . import selectors, services
from .forms import TranslationJobForm
from .models import TranslationJob

STRINGS_PER_PAGE = 50


def _require_researcher(request: HttpRequest) -> None:
    if not is_researcher(request.user):
        raise PermissionDenied("Only researchers and admins can run translation jobs.")


@require_GET
@role_required
def job_list(request: HttpRequest) -> HttpResponse:
    jobs = selectors.translation_job_list()[:100]
    return render(request, "translation/job_list.html", {"jobs": jobs})


@require_http_methods(["GET", "POST"])
@role_required
def job_new(request: HttpRequest) -> HttpResponse:
    _require_researcher(request)
    if request.method == "POST":
        form = TranslationJobForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                with transaction.atomic():
                    job = services.translation_job_create(
                        dataset=data["dataset"],
                        languages=data["languages"],
                        threshold=data["threshold"],
                        source=data["source"],
                        created_by=request.user,
                    )
            except KasautiError as exc:
                form.add_error(None, str(exc))
            else:
                return redirect("translation:job", pk=job.pk)
    else:
        # A calibration campaign links here with its suggested threshold and language.
        initial = {"dataset": request.GET.get("dataset")}
        if request.GET.get("threshold"):
            initial["threshold"] = request.GET["threshold"]
        if request.GET.get("language"):
            initial["languages"] = [request.GET["language"]]
        form = TranslationJobForm(initial=initial)
    return render(request, "translation/job_new.html", {"form": form})


@require_GET
@role_required
def job_detail(request: HttpRequest, pk: int) -> HttpResponse:
    job = get_object_or_404(TranslationJob.objects.select_related("dataset", "created_by"), pk=pk)
    language = request.GET.get("language", "")
    passed = {"1": True, "0": False}.get(request.GET.get("passed", ""))
    strings = selectors.translated_string_list(job=job, language=language, passed=passed)
    page = Paginator(strings, STRINGS_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    progress = job.progress_by_language or {}
    languages = [
        (
            code,
            LANGUAGE_NAMES.get(code, code),
            progress.get(code, {}).get("done", 0),
            progress.get(code, {}).get("total", 0),
        )
        for code in job.languages
    ]
    return render(
        request,
        "translation/job_detail.html",
        {
            "job": job,
            "languages": languages,
            "page_obj": page,
            "language": language,
            "passed": request.GET.get("passed", ""),
            "query": query.urlencode(),
            "can_control": is_researcher(request.user),
            "is_stale": selectors.translation_job_is_stale(job),
        },
    )


@require_POST
@role_required
def job_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    _require_researcher(request)
    try:
        services.translation_job_cancel(job=get_object_or_404(TranslationJob, pk=pk))
    except KasautiError as exc:
        messages.error(request, str(exc))
    return redirect("translation:job", pk=pk)


@require_POST
@role_required
def job_resume(request: HttpRequest, pk: int) -> HttpResponse:
    _require_researcher(request)
    job = get_object_or_404(TranslationJob, pk=pk)
    try:
        with transaction.atomic():
            queued = services.translation_job_resume(job=job)
        messages.info(request, f"Resumed: {queued} task(s) queued.")
    except KasautiError as exc:
        messages.error(request, str(exc))
    return redirect("translation:job", pk=pk)
