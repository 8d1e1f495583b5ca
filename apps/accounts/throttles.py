"""Rate limits on password checks: the API token endpoint and the sign-in pages.

Both use DRF's throttling (rates in REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], counts in the
Django cache), so one setting governs every way a password can be tried. Two limits apply
together: per client address (one machine trying many accounts) and per username (many
machines trying one account).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from rest_framework.throttling import SimpleRateThrottle


class PasswordAttemptsByAddress(SimpleRateThrottle):
    scope = "password_address"

    def get_cache_key(self, request, view) -> str | None:
        if request.method != "POST":
            return None  # showing the form costs nothing; only password checks count
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class PasswordAttemptsByUsername(SimpleRateThrottle):
    scope = "password_username"

    def get_cache_key(self, request, view) -> str | None:
        if request.method != "POST":
            return None
        username = _posted_username(request)
        if not username:
            return None
        # Hashed: a username may hold any character, a cache key may not.
        ident = hashlib.sha256(username.casefold().encode("utf-8", "replace")).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": ident}


PASSWORD_THROTTLES = [PasswordAttemptsByAddress, PasswordAttemptsByUsername]


def _posted_username(request) -> str:
    data = getattr(request, "data", None)  # a DRF request
    if data is None:
        data = request.POST
    value = data.get("username", "") if hasattr(data, "get") else ""
    return value if isinstance(value, str) else ""


def throttle_wait(request: HttpRequest) -> float | None:
    """Seconds to wait if this password attempt is over a limit, else None (and counted)."""
    waits = []
    for throttle_class in PASSWORD_THROTTLES:
        throttle = throttle_class()
        if not throttle.allow_request(request, None):
            waits.append(throttle.wait() or 1.0)
    return max(waits) if waits else None


def login_rate_limited(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Wrap a sign-in page view: over the limit, answer 429 with the sign-in page and a
    Retry-After header instead of checking the password."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        wait = throttle_wait(request)
        if wait is None:
            return view(request, *args, **kwargs)
        seconds = max(1, int(round(wait)))
        response = TemplateResponse(
            request,
            "registration/login.html",
            {"throttled": True, "retry_after": seconds, "next": request.POST.get("next", "")},
            status=429,
        )
        response["Retry-After"] = str(seconds)
        return response

    return wrapped
