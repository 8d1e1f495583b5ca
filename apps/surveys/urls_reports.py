"""Researcher pages: reports (the funnel, responses over time, demographics) and exports."""

from __future__ import annotations

from django.urls import path

from . import views_reports

urlpatterns = [
    path("<slug:slug>/reports/", views_reports.report, name="report"),
    path(
        "<slug:slug>/reports/demographics.csv",
        views_reports.report_demographics_csv,
        name="report-demographics-csv",
    ),
    path(
        "<slug:slug>/reports/answers.csv",
        views_reports.report_answers_csv,
        name="report-answers-csv",
    ),
]
