"""Researcher pages: a survey's reports (the funnel, responses over time, demographics) and
their CSV exports. Everything is computed by services/reports.py; these views only pick the
survey and the language and hand the figures to the templates."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from apps.accounts.decorators import researcher_required

from . import svg
from .models import Survey
from .services.reports import (
    report_answers_csv_rows,
    report_demographics,
    report_demographics_csv_rows,
    report_funnel,
    report_languages,
    report_min_cell,
    report_responses_over_time,
)

# Excel opens a CSV without a byte-order mark as the machine's legacy code page, which turns
# Devanagari into mojibake; with the UTF-8 BOM it reads UTF-8. Python reads it back with
# encoding="utf-8-sig" (docs/surveys/reports.md).
BOM = "\ufeff"


def _language(request: HttpRequest, survey: Survey) -> str:
    languages = report_languages(survey=survey)
    wanted = request.GET.get("lang", "")
    return wanted if wanted in languages else (languages[0] if languages else "")


@require_GET
@researcher_required
def report(request: HttpRequest, slug: str) -> HttpResponse:
    survey = get_object_or_404(Survey.objects.select_related("dataset"), slug=slug)
    language = _language(request, survey)
    k = report_min_cell()
    funnel = report_funnel(survey=survey)
    overall = funnel.overall
    funnel_chart = svg.hbars(
        [
            ("Answers", overall.answers, str(overall.answers)),
            ("Valid stereotypes", overall.valid, str(overall.valid)),
            ("Unique concepts", overall.unique, str(overall.unique)),
            ("Kept (pass the inclusion rule)", overall.kept, str(overall.kept)),
        ]
    )
    days = report_responses_over_time(survey=survey)
    questions = report_demographics(survey=survey, language=language, k=k)
    charts = [
        {
            "question": question,
            "chart": svg.hbars(
                [
                    # Our own cells ("not answered", pooled values) are labelled in English.
                    (
                        cell.label,
                        cell.count,
                        cell.display(k),
                        "en" if cell.key[0] == "_" else language,
                    )
                    for cell in question.cells
                ]
            ),
        }
        for question in questions
    ]
    return render(
        request,
        "surveys/reports/report.html",
        {
            "survey": survey,
            "k": k,
            "funnel": funnel,
            "funnel_chart": funnel_chart,
            "funnel_desc": (
                f"Answers {overall.answers}, valid stereotypes {overall.valid}, unique concepts "
                f"{overall.unique}, kept {overall.kept}. The table below gives the same "
                "figures by category."
            ),
            "demographics_desc": (
                f"Respondents per answer; a count under {k} is shown as '< {k}' with no bar. "
                "The table below gives the same counts."
            ),
            "days": days,
            "time_chart": svg.columns(days),
            "total_respondents": sum(d.new_respondents for d in days),
            "demographics": charts,
            "language": language,
            "languages": report_languages(survey=survey),
        },
    )


class _Echo:
    """A file-like object whose write returns the line: csv.writer then yields lines."""

    def write(self, value: str) -> str:
        return value


def _csv_response(rows: Iterable[list[str]], filename: str) -> StreamingHttpResponse:
    writer = csv.writer(_Echo())

    def lines() -> Iterator[str]:
        yield BOM
        for row in rows:
            yield writer.writerow(row)

    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_GET
@researcher_required
def report_demographics_csv(request: HttpRequest, slug: str) -> StreamingHttpResponse:
    """Counts only, suppressed cells as "< K" or "hidden", never a respondent's row."""
    survey = get_object_or_404(Survey, slug=slug)
    language = _language(request, survey)
    questions = report_demographics(survey=survey, language=language)
    return _csv_response(
        report_demographics_csv_rows(questions=questions),
        f"{survey.slug}-demographics-{language}.csv",
    )


@require_GET
@researcher_required
def report_answers_csv(request: HttpRequest, slug: str) -> StreamingHttpResponse:
    """The answers with their coding, without demographics or respondents."""
    survey = get_object_or_404(Survey, slug=slug)
    return _csv_response(report_answers_csv_rows(survey=survey), f"{survey.slug}-answers.csv")
