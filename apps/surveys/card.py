"""What the surveys app tells a release's dataset card
(apps/releases/registry.py, issue 22). To be built."""

from __future__ import annotations


def register() -> None:
    """Called from the app's ready()."""
