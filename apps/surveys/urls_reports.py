"""Researcher pages: reports."""

from __future__ import annotations

urlpatterns: list = []
