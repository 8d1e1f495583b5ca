"""Researcher pages: the survey editor (the list, a new survey, a survey's page, its
questionnaire's editors, and the forms that open, close and configure it). The survey's page
/surveys/<slug>/ links to the import, coding and reports pages by path."""

from __future__ import annotations

from django.urls import path

from . import views_editor as views

urlpatterns: list = [
    path("", views.survey_list, name="survey-list"),
    path("new/", views.survey_new, name="survey-new"),
    path("<slug:slug>/", views.survey_detail, name="survey"),
    path("<slug:slug>/open/", views.survey_open_view, name="survey-open"),
    path("<slug:slug>/close/", views.survey_close_view, name="survey-close"),
    path("<slug:slug>/delete/", views.survey_delete_view, name="survey-delete"),
    path("<slug:slug>/settings/", views.survey_settings_view, name="survey-settings"),
    path("<slug:slug>/languages/", views.survey_languages_view, name="survey-languages"),
    path("<slug:slug>/inclusion/", views.survey_inclusion_view, name="survey-inclusion"),
    path("<slug:slug>/edit/texts/<str:lang>/", views.survey_strings, name="survey-strings"),
    path("<slug:slug>/edit/questions/", views.survey_questions, name="survey-questions"),
    path("<slug:slug>/edit/demographics/", views.survey_demographics, name="survey-demographics"),
    path("<slug:slug>/versions/<int:number>/", views.survey_version, name="survey-version"),
]
