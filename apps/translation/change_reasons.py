"""Why a translated instance changed between two releases (apps/releases/registry.py,
issue 22). To be built."""

from __future__ import annotations


def register() -> None:
    """Called from TranslationConfig.ready()."""
