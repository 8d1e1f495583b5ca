"""Account API: the token endpoint, rate-limited like the sign-in page."""

from __future__ import annotations

from rest_framework.authtoken.views import ObtainAuthToken

from .throttles import PASSWORD_THROTTLES


class TokenObtainApi(ObtainAuthToken):
    """POST username + password -> {"token": ...}; 429 with Retry-After when over the limit."""

    throttle_classes = PASSWORD_THROTTLES
