"""Survey export formats (Google Forms, Typeform CSV)."""

from __future__ import annotations


def register() -> None:
    pass
