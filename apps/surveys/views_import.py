"""Researcher pages to import a Google Forms or Typeform export into a survey:

    /surveys/<slug>/import/                      upload: format and file
    /surveys/<slug>/import/<upload>/             preview: columns with samples, a select per
                                                 field (the guess pre-filled), problems and
                                                 findings; "Check again" or "Import"
    /surveys/<slug>/import/<upload>/result/      what the import did

The file stays on the server between the preview and the confirm (services/imports.py says
why): the browser holds only a random id, which must also be in its session, and the stored
copy is checked against the user and the survey. Nothing the browser sends back is trusted as
the file."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from apps.accounts.decorators import researcher_required
from apps.core.errors import ImportRejected, KasautiError

from .forms_import import MAX_SECTIONS, SurveyImportMappingForm, SurveyImportUploadForm
from .importers import Mapping, exposure_words, survey_format_get
from .models import Survey
from .services.imports import (
    survey_import,
    survey_import_columns,
    survey_import_fields,
    survey_import_preview,
    survey_import_upload_discard,
    survey_import_upload_get,
    survey_import_upload_save,
)

SESSION_UPLOADS = "survey_import_uploads"
SESSION_RESULTS = "survey_import_results"


@require_http_methods(["GET", "POST"])
@researcher_required
def import_upload(request: HttpRequest, slug: str) -> HttpResponse:
    survey = get_object_or_404(Survey.objects.select_related("current_version"), slug=slug)
    form = SurveyImportUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        upload_id = survey_import_upload_save(
            survey=survey,
            format=form.cleaned_data["format"],
            data=upload.read(),
            filename=upload.name,
            user=request.user,
        )
        uploads = request.session.get(SESSION_UPLOADS, {})
        uploads[upload_id] = survey.slug
        request.session[SESSION_UPLOADS] = dict(list(uploads.items())[-20:])
        return redirect("surveys:import_preview", slug=survey.slug, upload_id=upload_id)
    return render(
        request,
        "surveys/import/upload.html",
        {"survey": survey, "form": form},
        status=400 if form.errors else 200,
    )


def _stored(request: HttpRequest, survey: Survey, upload_id: str):
    """The upload, if this session made it for this survey; None when it is gone (expired,
    imported already, another person's)."""
    if request.session.get(SESSION_UPLOADS, {}).get(upload_id) != survey.slug:
        return None
    try:
        return survey_import_upload_get(upload_id=upload_id, survey=survey, user=request.user)
    except KasautiError:
        return None


@require_http_methods(["GET", "POST"])
@researcher_required
def import_preview(request: HttpRequest, slug: str, upload_id: str) -> HttpResponse:
    survey = get_object_or_404(Survey.objects.select_related("current_version"), slug=slug)
    stored = _stored(request, survey, upload_id)
    if stored is None:
        return render(request, "surveys/import/gone.html", {"survey": survey}, status=410)
    content = survey.current_version.content
    _, _, demographics = survey_import_fields(content=content)
    labels = survey_import_columns(format=stored.format, data=stored.data, filename=stored.filename)

    def mapping_form(data=None, *, sections: int, initial=None) -> SurveyImportMappingForm:
        return SurveyImportMappingForm(
            data,
            initial=initial,
            columns=labels,
            sections=sections,
            demographics=demographics,
            languages=content["languages"],
            exposure_defaults=exposure_words(Mapping(), content),
        )

    form = None
    mapping = None
    sections = 1
    action = request.POST.get("action", "")
    if request.method == "POST":
        try:
            sections = max(1, min(int(request.POST.get("sections", "1")), MAX_SECTIONS))
        except ValueError:
            sections = 1
        # The researcher's choices are read through the form (known fields only, only the
        # file's own column labels) before they reach the service.
        form = mapping_form(request.POST, sections=sections)
        if form.is_valid():
            mapping = form.mapping()
        if action == "add_section" and sections < MAX_SECTIONS:
            sections += 1
            form = mapping_form(request.POST, sections=sections)
            form.is_valid()
    rejected: list = []
    if action == "import" and mapping is not None:
        # Straight to the import (it checks everything the preview would, and writes nothing
        # when anything is wrong): a 10,000-row file is then read and planned once, not twice.
        try:
            result = survey_import(
                survey=survey,
                format=stored.format,
                data=stored.data,
                filename=stored.filename,
                mapping=mapping,
                imported_by=request.user,
            )
        except ImportRejected as exc:
            rejected = exc.problems
        else:
            survey_import_upload_discard(upload_id=upload_id)
            uploads = request.session.get(SESSION_UPLOADS, {})
            uploads.pop(upload_id, None)
            request.session[SESSION_UPLOADS] = uploads
            results = request.session.get(SESSION_RESULTS, {})
            summary = {"slug": survey.slug, **result.as_dict()}
            summary["findings"] = summary["findings"][:50]
            results[upload_id] = summary
            request.session[SESSION_RESULTS] = dict(list(results.items())[-10:])
            return redirect("surveys:import_result", slug=survey.slug, upload_id=upload_id)
    preview = survey_import_preview(
        survey=survey,
        format=stored.format,
        data=stored.data,
        filename=stored.filename,
        mapping=mapping,
    )
    problems = rejected or preview.problems
    if form is None:
        sections = preview.sections
        form = mapping_form(sections=sections, initial=preview.mapping)
    samples = {c.label: c.samples for c in preview.columns}
    return render(
        request,
        "surveys/import/preview.html",
        {
            "survey": survey,
            "upload_id": upload_id,
            "preview": preview,
            "form": form,
            "sections": sections,
            "groups": [
                (key, heading, [(field, samples.get(field.value() or "", [])) for field in fields])
                for key, heading, fields in form.groups()
            ],
            "problems": problems,
            "format": survey_format_get(name=stored.format),
        },
        status=400 if action == "import" else 200,
    )


@require_GET
@researcher_required
def import_result(request: HttpRequest, slug: str, upload_id: str) -> HttpResponse:
    survey = get_object_or_404(Survey, slug=slug)
    result = request.session.get(SESSION_RESULTS, {}).get(upload_id)
    if not result or result.get("slug") != survey.slug:
        raise Http404("No import result here: it belongs to another session.")
    return render(request, "surveys/import/result.html", {"survey": survey, "result": result})
