"""Pages: start a translation job and list them. A job's own page is core's job page (one page
for every kind of job), which includes this app's strings table (translation/job_extra.html)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from apps.accounts.decorators import researcher_required, role_required
from apps.core.errors import KasautiError

from . import selectors, services
from .forms import TranslationJobForm
from .models import TranslationJob


@require_GET
@role_required
def job_list(request: HttpRequest) -> HttpResponse:
    jobs = selectors.translation_job_list()[:100]
    return render(request, "translation/job_list.html", {"jobs": jobs})


@require_http_methods(["GET", "POST"])
@researcher_required
def job_new(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        form = TranslationJobForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
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
                return redirect("jobs:detail", pk=job.core_job_id)
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
    """Old address of a translation job: its page is the job page."""
    job = get_object_or_404(TranslationJob, pk=pk)
    return redirect("jobs:detail", pk=job.core_job_id)
