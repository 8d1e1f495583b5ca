"""Rate limit on the public survey pages' submissions, per client address, without storing
addresses.

Why this shape:

* The count lives in the Django cache (Redis in production and in the tests), never in the
  database: a rate limit needs a number for a minute, not a record.
* The cache key is HMAC-SHA256(SECRET_KEY, "<window>:<address>"), not the address. A plain
  sha256 of an IPv4 address is no protection (all 2^32 of them hash in minutes), the keyed hash
  is: without the secret the key names no address. The window number is inside the hash, so
  the key changes every window: even someone reading the cache cannot follow one address from
  one minute to the next. Keys expire with their window.
* A fixed window (one counter per window, `cache.incr`, atomic in Redis) rather than DRF's
  sliding list of timestamps: the list is read, appended and written back, so 50 concurrent
  submits from one address could all pass; an atomic counter cannot. The price of fixed
  windows: up to twice the rate across a window boundary, which is fine for a flood guard.
* The client address comes from DRF's `get_ident` (REMOTE_ADDR, or the X-Forwarded-For entry
  added by the REST_FRAMEWORK["NUM_PROXIES"] trusted proxies; a client-forged header is not
  trusted by default), and the rate is parsed by DRF's `parse_rate` ("30/min"), so surveys
  read addresses and rates the way the sign-in throttle does (apps.accounts.throttles).

The rate: settings.KASAUTI_SURVEY_SUBMIT_RATE, else the environment variable of that name,
else "30/min"; "off" turns the limit off (a benchmark measuring submits, not 429s).
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from rest_framework.throttling import SimpleRateThrottle

DEFAULT_RATE = "30/min"
SCOPE = "survey_submit"


def submit_rate() -> str:
    return str(
        getattr(settings, "KASAUTI_SURVEY_SUBMIT_RATE", None)
        or os.environ.get("KASAUTI_SURVEY_SUBMIT_RATE")
        or DEFAULT_RATE
    )


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    # Seconds until the window ends (Retry-After) when not allowed; 0 when allowed.
    retry_after: int = 0


class SurveySubmitThrottle(SimpleRateThrottle):
    """DRF's rate parsing and client identification, with an atomic fixed-window counter."""

    scope = SCOPE
    # The rate is read per request (tests and benches change it), not from DRF's settings.
    THROTTLE_RATES: dict[str, str] = {}

    def __init__(self) -> None:
        self.rate = submit_rate()
        if self.rate.strip().lower() in ("off", "none", "0"):
            self.num_requests = self.duration = None
        else:
            self.num_requests, self.duration = self.parse_rate(self.rate)

    def key_for(self, request: HttpRequest, window: int) -> str:
        message = f"{window}:{self.get_ident(request)}".encode("utf-8", "replace")
        digest = hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()
        return f"{SCOPE}:{digest}"

    def check(self, request: HttpRequest, *, now: float | None = None) -> Verdict:
        """Count this submission; whether it is within the rate."""
        if self.num_requests is None:
            return Verdict(True)
        now = time.time() if now is None else now
        window = int(now // self.duration)
        key = self.key_for(request, window)
        ends_in = max(1, math.ceil((window + 1) * self.duration - now))
        # The usual case: incr() the window's counter (INCR is atomic in Redis). The window's
        # first submission finds none and starts it with add(), which sets the expiry; if
        # another process started it first, add() fails and incr() counts this one.
        try:
            count = cache.incr(key)
        except ValueError:
            count = 1 if cache.add(key, 1, timeout=self.duration + 1) else cache.incr(key)
        if count > self.num_requests:
            return Verdict(False, ends_in)
        return Verdict(True)


def submit_allowed(request: HttpRequest) -> Verdict:
    """Count one submission from the request's address; over the rate -> not allowed."""
    return SurveySubmitThrottle().check(request)
