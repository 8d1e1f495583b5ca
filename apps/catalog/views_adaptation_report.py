"""The adaptation report page (docs/studio/adaptation-report.md): how a dataset adapted its
source, per source category, with the Newly-Created templates and the category
reconstruction (EsBBQ Table 1 and Figure 2). Read by everyone with a role."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from apps.accounts.decorators import role_required
from apps.core.errors import KasautiError

from .adaptation_report import OUTCOMES, TO_DO, adaptation_report
from .models import Dataset

HEADINGS = {
    "simply_transferred": ("Simply-Transferred", "ST"),
    "target_modified": ("Target-Modified", "TM"),
    "culturally_transformed": ("Culturally Transformed", "CT"),
    "sample_removed": ("Sample-Removed", "SR"),
    "to_do": ("To do", "to do"),
}


@require_GET
@role_required
def adaptation_report_page(request: HttpRequest, pk: int) -> HttpResponse:
    dataset = get_object_or_404(Dataset.objects.select_related("adapted_from"), pk=pk)
    context: dict = {"dataset": dataset}
    try:
        report = adaptation_report(dataset=dataset)
    except KasautiError as error:
        context["error"] = str(error)
        return render(request, "catalog/adaptation_report.html", context)
    keys = OUTCOMES + ((TO_DO,) if report.has_to_do else ())
    total = report.total
    context.update(
        report=report,
        columns=[(key, *HEADINGS[key]) for key in keys],
        rows=[{**row, "cells": [row[key] for key in keys]} for row in report.rows()],
        total_cells=[total[key] for key in keys],
        total_units=sum(total[key] for key in keys),
        adapted=sum(total[key] for key in OUTCOMES if key != "sample_removed"),
        reconstruction=[
            {
                "category": name,
                "targets": sorted(feeds.items(), key=lambda item: -item[1]),
                "removed": report.by_category[name]["sample_removed"],
                "to_do": report.by_category[name][TO_DO],
            }
            for name, feeds in report.reconstruction.items()
        ],
        twins=[unit for unit in report.units if unit.twins_by_question],
        disagreements=[(unit, HEADINGS[unit.outcome][0]) for unit in report.disagreements],
    )
    return render(request, "catalog/adaptation_report.html", context)
