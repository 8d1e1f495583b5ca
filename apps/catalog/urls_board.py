"""The studio's board pages, included by apps/catalog/urls.py ("web:" namespace)."""

from django.urls import path

from . import views_board

urlpatterns: list = [
    path(
        "datasets/<int:pk>/adaptation/",
        views_board.adaptation_board,
        name="adaptation-board",
    ),
    path(
        "datasets/<int:pk>/adaptation/source/",
        views_board.adaptation_source_set,
        name="adaptation-source",
    ),
    path(
        "datasets/<int:pk>/adaptation/start/",
        views_board.adaptation_start_view,
        name="adaptation-start",
    ),
    path(
        "datasets/<int:pk>/adaptation/remove/",
        views_board.adaptation_remove_view,
        name="adaptation-remove",
    ),
    path(
        "datasets/<int:pk>/adaptation/restore/",
        views_board.adaptation_restore_view,
        name="adaptation-restore",
    ),
    path(
        "datasets/<int:pk>/adaptation/link/",
        views_board.adaptation_link_view,
        name="adaptation-link",
    ),
    path("datasets/<int:pk>/coverage/", views_board.dataset_coverage, name="coverage"),
]
