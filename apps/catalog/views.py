"""Server-rendered pages. Views only check access, call a page selector or a service, and
render; every rule lives in the services and selectors."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from apps.accounts.decorators import researcher_required, role_required
from apps.accounts.roles import is_researcher
from apps.core.error_pages import post_form
from apps.core.errors import ImportRejected, KasautiError

from . import page_selectors
from .forms import (
    BenchmarkImportForm,
    ConceptFilterForm,
    DatasetInclusionForm,
    EvidenceForm,
    InstanceFilterForm,
)
from .import_jobs import benchmark_files_import, benchmark_import_async, import_work_measure
from .importers import ImportFile, ImportReport
from .inclusion import DEFAULT_RULE, inclusion_rule_get
from .models import (
    LANGUAGE_NAMES,
    Dataset,
    EvidenceReference,
    Finding,
    StereotypeConcept,
    Template,
)
from .review import TUPLE_VOTES_RULE
from .services import (
    dataset_instantiate_async,
    evidence_add,
    evidence_validate,
    finding_kind_status_set,
    finding_status_set,
)
from .services.datasets import dataset_inclusion_set


@require_GET
@role_required
def home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "catalog/home.html",
        {
            "summaries": page_selectors.dataset_summaries(),
            "can_import": is_researcher(request.user),
        },
    )


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
            "tuple_votes_rule": TUPLE_VOTES_RULE,
        },
    )


@post_form("instantiates the dataset's templates into instances (a background job)")
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
            "can_review": is_researcher(request.user),
        },
    )


def _back_to_findings(request: HttpRequest, dataset: Dataset) -> HttpResponse:
    """Back to the findings page the form was on (its filters and page number kept)."""
    url = reverse("web:findings", args=[dataset.pk])
    # Rebuilt from the page's own parameters, never passed through as sent.
    sent = QueryDict(request.POST.get("back", ""))
    query = urlencode({k: sent[k] for k in ("kind", "status", "page") if sent.get(k)})
    return redirect(f"{url}?{query}" if query else url)


@post_form("accepts, resolves or reopens one import finding, with a note")
@researcher_required
def finding_review(request: HttpRequest, pk: int, finding_pk: int) -> HttpResponse:
    """Accept, resolve or reopen one finding, with a note (kept in its history)."""
    dataset = get_object_or_404(Dataset, pk=pk)
    finding = get_object_or_404(Finding, pk=finding_pk, dataset=dataset)
    status = request.POST.get("status", "")
    try:
        finding_status_set(
            finding=finding,
            status=status,
            note=request.POST.get("note", ""),
            reviewed_by=request.user,
        )
    except KasautiError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Finding {finding.pk} ({finding.kind}) is {status}.")
    return _back_to_findings(request, dataset)


@post_form("accepts or resolves every open finding of one kind, with a note")
@researcher_required
def finding_kind_review(request: HttpRequest, pk: int) -> HttpResponse:
    """Accept or resolve every open finding of one kind, with one note for them all."""
    dataset = get_object_or_404(Dataset, pk=pk)
    kind = request.POST.get("kind", "")
    status = request.POST.get("status", "")
    try:
        changed = finding_kind_status_set(
            dataset=dataset,
            kind=kind,
            status=status,
            note=request.POST.get("note", ""),
            reviewed_by=request.user,
        )
    except KasautiError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            f"{changed} open {kind} finding{'' if changed == 1 else 's'} marked {status}."
            if changed
            else f"No open {kind} findings: nothing changed.",
        )
    return _back_to_findings(request, dataset)


@require_http_methods(["GET", "POST"])
@researcher_required
def benchmark_import_page(request: HttpRequest) -> HttpResponse:
    """Upload benchmark files (format, dataset, files; strict on request); the report is shown
    as tables: findings grouped by kind, or the problems that rejected the import."""
    context: dict = {"datasets": Dataset.objects.order_by("name").values_list("name", flat=True)}
    if request.method == "GET":
        context["form"] = BenchmarkImportForm(initial={"language": "en", "seed": 0})
        return render(request, "catalog/import.html", context)
    form = BenchmarkImportForm(request.POST)
    context["form"] = form
    uploads = request.FILES.getlist("files")
    if not uploads:
        form.add_error(None, "Choose or drop at least one file.")
    if not form.is_valid():
        return render(request, "catalog/import.html", context, status=400)
    values = form.cleaned_data
    try:
        # Decided as the API decides: by what parsing will cost (a workbook's unpacked size
        # and declared cells), read before parsing; a large upload becomes a job.
        if not import_work_measure(uploads=uploads).inline:
            job = benchmark_import_async(
                dataset_name=values["dataset"],
                fmt=values["format"],
                uploads=uploads,
                created_by=request.user,
                language=values["language"] or "en",
                category=values["category"],
                seed=values["seed"] or 0,
                strict=values["strict"],
                adapted_from=values["adapted_from"],
            )
            return redirect("jobs:detail", pk=job.pk)
        files = [ImportFile(name=upload.name, data=upload.read()) for upload in uploads]
        report = benchmark_files_import(
            dataset_name=values["dataset"],
            fmt=values["format"],
            files=files,
            created_by=request.user,
            language=values["language"] or "en",
            category=values["category"],
            strict=values["strict"],
            seed=values["seed"] or 0,
            adapted_from=values["adapted_from"],
        )
    except ImportRejected as rejected:
        context["problems"] = page_selectors.problems_by_kind(rejected.problems)
        context["problem_count"] = len(rejected.problems)
        return render(request, "catalog/import.html", context, status=400)
    context["report"] = report
    # Template imports report findings in their own tables; instance imports count them.
    context["template_report"] = isinstance(report, ImportReport)
    context["summary_lines"] = (
        report.counts_summary() if isinstance(report, ImportReport) else report.summary()
    )
    context["imported_dataset"] = Dataset.objects.filter(name=report.dataset).first()
    return render(request, "catalog/import.html", context)


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
    """Every concept with its live verdict under its dataset's inclusion rule and why not;
    filtered to one dataset, the page also shows (and lets a researcher set) that rule."""
    form = ConceptFilterForm(request.GET or None)
    dataset_filter = form.dataset_filter()
    dataset = (
        Dataset.objects.get(pk=dataset_filter)
        if dataset_filter and dataset_filter != "none"
        else None
    )
    rows = page_selectors.concept_rows(dataset=dataset_filter)
    return render(
        request,
        "catalog/concept_list.html",
        {
            "rows": rows,
            "kept": sum(1 for row in rows if row.usable),
            "form": form,
            "dataset": dataset,
            "rule": inclusion_rule_get(dataset.inclusion_rule) if dataset else None,
            "default_rule": inclusion_rule_get(DEFAULT_RULE),
            "inclusion_form": DatasetInclusionForm(
                initial={
                    "rule": dataset.inclusion_rule,
                    "evidence_required": dataset.evidence_required,
                }
            )
            if dataset and is_researcher(request.user)
            else None,
        },
    )


@post_form("sets a dataset's inclusion rule and whether evidence is required")
@researcher_required
def dataset_inclusion(request: HttpRequest, pk: int) -> HttpResponse:
    dataset = get_object_or_404(Dataset, pk=pk)
    form = DatasetInclusionForm(request.POST)
    if form.is_valid():
        try:
            dataset_inclusion_set(
                dataset=dataset,
                rule=form.cleaned_data["rule"],
                evidence_required=form.cleaned_data["evidence_required"],
            )
        except KasautiError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"Inclusion rule of {dataset.name} saved.")
    else:
        messages.error(
            request,
            "Inclusion rule: "
            + "; ".join(f"{name}: {' '.join(errors)}" for name, errors in form.errors.items()),
        )
    return redirect(f"{reverse('web:concepts')}?dataset={dataset.pk}")


def _concept(pk: int) -> StereotypeConcept:
    return get_object_or_404(StereotypeConcept.objects.select_related("category", "dataset"), pk=pk)


def _concept_page(request: HttpRequest, concept, *, form=None, status: int = 200) -> HttpResponse:
    researcher = is_researcher(request.user)
    return render(
        request,
        "catalog/concept_detail.html",
        {
            **page_selectors.concept_page(concept=concept),
            "can_edit": researcher,
            "form": form or (EvidenceForm() if researcher else None),
            "statuses": EvidenceReference.Validation.choices,
        },
        status=status,
    )


@require_GET
@role_required
def concept_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return _concept_page(request, _concept(pk))


@post_form("adds a typed evidence reference to a concept")
@researcher_required
def concept_evidence_add(request: HttpRequest, pk: int) -> HttpResponse:
    concept = _concept(pk)
    form = EvidenceForm(request.POST)
    if not form.is_valid():
        return _concept_page(request, concept, form=form, status=400)
    try:
        evidence_add(concept=concept, added_by=request.user, **form.cleaned_data)
    except KasautiError as exc:
        form.add_error(None, str(exc))
        return _concept_page(request, concept, form=form, status=400)
    messages.success(request, "Evidence added (pending validation).")
    return redirect("web:concept", pk=concept.pk)


@post_form("validates, rejects or reopens one evidence reference")
@researcher_required
def concept_evidence_validate(request: HttpRequest, pk: int, evidence_pk: int) -> HttpResponse:
    concept = _concept(pk)
    evidence = get_object_or_404(EvidenceReference, pk=evidence_pk, concept=concept)
    status = request.POST.get("status", "")
    try:
        evidence_validate(evidence=evidence, status=status, validated_by=request.user)
    except KasautiError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Evidence {evidence.pk} is {status}.")
    return redirect(f"{reverse('web:concept', args=[concept.pk])}#evidence-{evidence.pk}")


@role_required
def dataset_compare_published(request: HttpRequest, pk: int) -> HttpResponse:
    """Reproduction report: upload published instance files, see how the dataset compares.
    Reads only (nothing is stored), so every role may use it."""
    from apps.catalog.compare import FIELDS
    from apps.catalog.importers import INSTANCES, ImportFile, format_names
    from apps.catalog.importers.instances import published_compare
    from apps.core.errors import ImportRejected

    dataset = get_object_or_404(Dataset, pk=pk)
    context = {
        "dataset": dataset,
        "formats": format_names(kind=INSTANCES),
        "fields": FIELDS,
        "fmt": "",
        "report": None,
        "problems": [],
    }
    if request.method == "POST":
        uploads = [
            ImportFile(name=upload.name, data=upload.read())
            for upload in request.FILES.getlist("files")
        ]
        fmt = request.POST.get("format", "")
        context["fmt"] = fmt if fmt in context["formats"] else ""
        if not uploads:
            context["problems"] = ["Choose one or more published instance files."]
        else:
            try:
                report = published_compare(dataset=dataset, files=uploads, fmt=context["fmt"])
            except ImportRejected as rejected:
                context["problems"] = [str(problem) for problem in rejected.problems]
            else:
                context["report"] = report
                context["files"] = [upload.name for upload in uploads]
                context["groups"] = page_selectors.difference_groups(report=report)
                context["reworded"] = page_selectors.difference_groups(
                    report=report, rewordings=True
                )
    elif request.method != "GET":
        return HttpResponse(status=405)
    return render(request, "catalog/compare_published.html", context)
