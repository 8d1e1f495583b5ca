"""The studio's vocabulary pages, included by apps/catalog/urls.py ("web:" namespace)."""

from django.urls import path

from . import views_vocabulary

urlpatterns: list = [
    path("vocabularies/", views_vocabulary.vocabulary_list, name="vocabularies"),
    path("vocabularies/new/", views_vocabulary.vocabulary_create_view, name="vocabulary-create"),
    path("vocabularies/<int:pk>/", views_vocabulary.vocabulary_detail, name="vocabulary"),
    path(
        "vocabularies/<int:pk>/revisions/<int:number>/restore/",
        views_vocabulary.vocabulary_restore,
        name="vocabulary-restore",
    ),
    path(
        "vocabularies/unknown-answers/",
        views_vocabulary.unknown_expression_add,
        name="unknown-expression-add",
    ),
    path(
        "vocabularies/unknown-answers/<int:pk>/delete/",
        views_vocabulary.unknown_expression_remove,
        name="unknown-expression-delete",
    ),
]
