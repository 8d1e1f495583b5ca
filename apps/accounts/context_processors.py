"""Template context every page gets from the accounts app."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from .roles import is_researcher


def roles(request: HttpRequest) -> dict:
    """`user_is_researcher` for the top bar (researcher-only links); evaluated only on a page
    that uses it."""
    return {"user_is_researcher": SimpleLazyObject(lambda: is_researcher(request.user))}
