"""Evaluation pages: runs list, new run, run page (live progress, then tables and plots),
runs side by side, the model registry with per-model bars."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from apps.accounts.decorators import researcher_required, role_required
from apps.accounts.roles import is_researcher
from apps.core.error_pages import post_form
from apps.core.errors import ImportRejected, KasautiError
from apps.core.models import Job
from apps.core.registry import job_kind_get

from . import selectors
from .forms import ModelEntryForm, PredictionImportForm, RunForm
from .services.imports import predictions_upload_import
from .services.models import model_entry_create
from .services.parts import run_parts_summary
from .services.runs import run_create


@require_GET
@role_required
def run_list(request: HttpRequest) -> HttpResponse:
    runs = list(selectors.run_list()[:200])
    return render(
        request,
        "evaluation/run_list.html",
        {"runs": runs, "can_start": is_researcher(request.user)},
    )


@require_http_methods(["GET", "POST"])
@researcher_required
def run_new(request: HttpRequest) -> HttpResponse:
    form = RunForm(request.POST or None, initial={"release": request.GET.get("release")})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            run = run_create(
                release=data["release"],
                model=data["model"],
                shots=data["shots"],
                instruction_language=data["instruction_language"],
                prompt_template=data["prompt_template"],
                created_by=request.user,
            )
        except KasautiError as exc:
            form.add_error(None, str(exc))
        else:
            return redirect("evaluation:run", pk=run.pk)
    return render(request, "evaluation/run_new.html", {"form": form})


@require_GET
@role_required
def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    run = selectors.run_get(run_id=pk)
    if run is None:
        raise Http404("No such evaluation run.")
    context = {
        "run": run,
        "job": run.job,
        "results": run.results or {},
        # A run split across workers: which worker scored which part.
        "parts": run_parts_summary(run_job=run.job) if run.job is not None else [],
    }
    if run.job is not None and run.job.is_finished:
        kind = job_kind_get(run.job.kind, default=None)
        context["job_summary"] = kind.summary(run.job) if kind else []
    return render(request, "evaluation/run_detail.html", context)


@require_GET
@role_required
def run_compare(request: HttpRequest) -> HttpResponse:
    ids = []
    for value in request.GET.getlist("runs"):
        for part in value.split(","):
            if part.strip().isdigit() and int(part) < 2**63:
                ids.append(int(part))
    ids = ids[:10]
    found = {run.pk: run for run in selectors.run_list().filter(pk__in=ids)}
    runs = [found[pk] for pk in ids if pk in found]
    comparison = selectors.runs_compare(runs=runs) if runs else None
    return render(request, "evaluation/run_compare.html", {"comparison": comparison, "runs": runs})


def _model_list_page(request: HttpRequest, form: ModelEntryForm | None, status: int = 200):
    runs = list(selectors.run_list().filter(kind__in=selectors.scored_by_prediction_kinds())[:500])
    bars = [selectors.model_bars(runs=runs, metric=m) for m in selectors.HEAT_MAP_METRICS]
    # Each entry with the reason it cannot be loaded now (a directory not copied yet), so the
    # researcher sees it here rather than when a run refuses to start.
    models = [(entry, entry.files_problem()) for entry in selectors.model_entry_list()]
    return render(
        request,
        "evaluation/model_list.html",
        {"models": models, "bars": bars, "form": form},
        status=status,
    )


@require_GET
@role_required
def model_list(request: HttpRequest) -> HttpResponse:
    return _model_list_page(request, ModelEntryForm() if is_researcher(request.user) else None)


@post_form("registers a model for evaluation runs")
@researcher_required
def model_new(request: HttpRequest) -> HttpResponse:
    form = ModelEntryForm(request.POST)
    if form.is_valid():
        try:
            model_entry_create(created_by=request.user, **form.cleaned_data)
        except KasautiError as exc:
            form.add_error(None, str(exc))
        else:
            return redirect("evaluation:models")
    return _model_list_page(request, form, status=400)


@require_http_methods(["GET", "POST"])
@researcher_required
def predictions_import_page(request: HttpRequest) -> HttpResponse:
    """Upload a predictions file: scored at once (then the run page), or by a background job
    when it is large (then the job page); a refused file lists its problems by line."""
    initial = {"dataset": request.GET.get("dataset"), "release": request.GET.get("release")}
    form = PredictionImportForm(request.POST or None, request.FILES or None, initial=initial)
    context: dict = {"form": form, "inline_max": settings.KASAUTI_IMPORT_INLINE_MAX_BYTES}
    if request.method == "GET":
        return render(request, "evaluation/import.html", context)
    if form.is_valid():
        values = form.cleaned_data
        try:
            run = predictions_upload_import(
                upload=values["file"], values=values, created_by=request.user
            )
            if isinstance(run, Job):
                return redirect("jobs:detail", pk=run.pk)
        except ImportRejected as rejected:
            context["problems"] = rejected.problems
        except KasautiError as exc:
            form.add_error(None, str(exc))
        else:
            return redirect("evaluation:run", pk=run.pk)
    return render(request, "evaluation/import.html", context, status=400)
