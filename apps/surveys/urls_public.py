"""The public pages respondents use (no account): /s/<slug>/..."""

from __future__ import annotations

app_name = "survey_public"
urlpatterns: list = []
