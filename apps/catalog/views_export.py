"""The export download: a dataset's templates as a .zip of a benchmark's own files (the same
files `manage.py export_templates` writes; apps/catalog/exporters.py)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from apps.accounts.decorators import role_required
from apps.core.errors import KasautiError

from .exporters import ExportRefused, dataset_templates_export, export_zip, exporter_get
from .models import Dataset


@require_GET
@role_required
def dataset_export_templates(request: HttpRequest, pk: int) -> HttpResponse:
    """GET ?format=<layout>[&approved_only=1]: the zip, or a page saying why not (400 for an
    unknown layout, 409 when there is nothing to export or a template cannot be written)."""
    dataset = get_object_or_404(Dataset, pk=pk)
    fmt = request.GET.get("format", "")
    approved_only = request.GET.get("approved_only") in ("1", "true", "on")
    try:
        exporter_get(name=fmt)
    except KasautiError as error:
        return _refused(request, dataset, str(error), [], status=400)
    try:
        files = dataset_templates_export(dataset=dataset, fmt=fmt, approved_only=approved_only)
    except ExportRefused as error:
        return _refused(request, dataset, "Nothing was written.", error.problems, status=409)
    except KasautiError as error:
        return _refused(request, dataset, str(error), [], status=409)
    name = f"{slugify(dataset.name) or 'dataset'}-{fmt}-templates.zip"
    response = HttpResponse(export_zip(files=files), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def _refused(request, dataset, message, problems, *, status: int) -> HttpResponse:
    context = {"dataset": dataset, "message": message, "problems": problems}
    return render(request, "catalog/export/refused.html", context, status=status)
