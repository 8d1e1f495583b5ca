"""The studio's export pages, included by apps/catalog/urls.py ("web:" namespace)."""

from django.urls import path

from . import views_export

urlpatterns: list = [
    path(
        "datasets/<int:pk>/export-templates/",
        views_export.dataset_export_templates,
        name="dataset-export-templates",
    ),
]
