"""The releases app's own registrations (apps/releases/registry.py) for issue 22. To be built."""

from __future__ import annotations


def register() -> None:
    """Called from ReleasesConfig.ready()."""
