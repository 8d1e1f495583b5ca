"""Researcher pages under /surveys/, one module of routes per area (editor, import, coding,
reports), all in the `surveys` namespace. The respondents' public pages are urls_public.py."""

from __future__ import annotations

from . import urls_coding, urls_editor, urls_import, urls_reports

app_name = "surveys"
urlpatterns = [
    *urls_editor.urlpatterns,
    *urls_import.urlpatterns,
    *urls_coding.urlpatterns,
    *urls_reports.urlpatterns,
]
