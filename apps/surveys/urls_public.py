"""The public pages respondents use (no account): /s/<slug>/... (views_public.py)."""

from __future__ import annotations

from django.urls import path

from . import views_public

app_name = "survey_public"
urlpatterns = [
    path("<slug:slug>/", views_public.start, name="start"),
    path("<slug:slug>/about-you/", views_public.demographics, name="demographics"),
    path("<slug:slug>/answer/", views_public.answer, name="answer"),
    path("<slug:slug>/thanks/", views_public.thanks, name="thanks"),
    path("<slug:slug>/done/", views_public.done, name="done"),
    path("<slug:slug>/delete/", views_public.delete, name="delete"),
]
