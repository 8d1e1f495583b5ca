"""The studio's adaptation_report pages, included by apps/catalog/urls.py ("web:" namespace)."""

from django.urls import path

from . import views_adaptation_report

urlpatterns: list = [
    path(
        "datasets/<int:pk>/adaptation-report/",
        views_adaptation_report.adaptation_report_page,
        name="adaptation-report",
    ),
]
