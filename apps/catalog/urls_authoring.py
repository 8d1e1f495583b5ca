"""The studio's authoring pages, included by apps/catalog/urls.py ("web:" namespace)."""

from django.urls import path

from . import views_authoring

urlpatterns: list = [
    path("templates/new/", views_authoring.template_new, name="template-new"),
    path("templates/preview/", views_authoring.template_preview, name="template-preview"),
    path(
        "datasets/<int:pk>/templates/new/",
        views_authoring.dataset_template_new,
        name="dataset-template-new",
    ),
    path("templates/<int:pk>/edit/", views_authoring.template_edit, name="template-edit"),
    path(
        "templates/<int:pk>/preview/",
        views_authoring.template_edit_preview,
        name="template-edit-preview",
    ),
]
