"""What the translation app tells a release's instance provenance
(apps/releases/registry.py, issue 22). To be built."""

from __future__ import annotations


def register() -> None:
    """Called from the app's ready()."""
