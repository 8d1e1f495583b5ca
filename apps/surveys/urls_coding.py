"""Researcher pages: coding answers into concepts (the queue, one POST per decision, bulk
actions, and queuing the suggestion job)."""

from __future__ import annotations

from django.urls import path

from . import views_coding

urlpatterns: list = [
    path("<slug:slug>/coding/", views_coding.coding_queue, name="coding"),
    path("<slug:slug>/coding/bulk/", views_coding.coding_bulk, name="coding-bulk"),
    path("<slug:slug>/coding/suggest/", views_coding.coding_suggest, name="coding-suggest"),
    path("<slug:slug>/coding/<int:answer_id>/code/", views_coding.coding_code, name="coding-code"),
    path(
        "<slug:slug>/coding/<int:answer_id>/uncode/",
        views_coding.coding_uncode,
        name="coding-uncode",
    ),
    path(
        "<slug:slug>/coding/<int:answer_id>/invalid/",
        views_coding.coding_invalid,
        name="coding-invalid",
    ),
    path(
        "<slug:slug>/coding/<int:answer_id>/reopen/",
        views_coding.coding_reopen,
        name="coding-reopen",
    ),
]
