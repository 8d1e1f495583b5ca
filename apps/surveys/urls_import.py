"""Researcher pages: import a Google Forms or Typeform export (views_import.py)."""

from __future__ import annotations

from django.urls import path

from . import views_import

urlpatterns = [
    path("<slug:slug>/import/", views_import.import_upload, name="import"),
    path(
        "<slug:slug>/import/<str:upload_id>/",
        views_import.import_preview,
        name="import_preview",
    ),
    path(
        "<slug:slug>/import/<str:upload_id>/result/",
        views_import.import_result,
        name="import_result",
    ),
]
