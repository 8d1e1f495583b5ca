"""Production: nothing unsafe is defaulted. SECRET_KEY and ALLOWED_HOSTS must be given."""

import os

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import env_bool, env_list

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if len(SECRET_KEY) < 32:
    raise ImproperlyConfigured("SECRET_KEY must be set to a random string of 32+ characters.")
DEBUG = env_bool("DEBUG", False)
if DEBUG:
    raise ImproperlyConfigured("DEBUG must not be enabled with production settings.")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [])
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must list the host names this site serves.")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Production is served over TLS (directly or by a proxy that sets X-Forwarded-Proto), so the
# HTTPS protections are on unless turned off: KASAUTI_TLS=0 switches all of them off for a
# site that is deliberately plain HTTP (an internal test box); each can also be set alone.
_tls = env_bool("KASAUTI_TLS", True)
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", _tls)
# Load balancers probe /healthz over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(31536000 if _tls else 0)))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", _tls)
# The preload directive only makes the site eligible for browsers' preload lists; it takes
# effect once someone submits the domain. SECURE_HSTS_PRELOAD=0 leaves it out.
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", _tls)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", _tls)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", _tls)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
