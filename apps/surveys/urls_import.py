"""Researcher pages: import."""

from __future__ import annotations

urlpatterns: list = []
