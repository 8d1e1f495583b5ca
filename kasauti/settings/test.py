"""Test settings: real PostgreSQL and Redis, as CI has them."""

import os

from .base import *  # noqa: F403
from .base import KASAUTI_BROKER_CONNECT_TIMEOUT, VAR_DIR

DEBUG = False
SECRET_KEY = "kasauti-test-key"
ALLOWED_HOSTS = ["*"]

# pytest-django creates "test_<NAME>"; a worker subprocess started by a test is given that
# full name through KASAUTI_TEST_DB_NAME and connects to it directly.
_db_name = os.environ.get("KASAUTI_TEST_DB_NAME", "test")
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": _db_name,
        "USER": os.environ.get("KASAUTI_TEST_DB_USER", "postgres"),
        "HOST": os.environ.get("KASAUTI_TEST_DB_HOST", "127.0.0.1"),
        "PORT": os.environ.get("KASAUTI_TEST_DB_PORT", "5432"),
    }
}
CELERY_BROKER_URL = os.environ.get("KASAUTI_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
# The crash-recovery tests start their worker with a short KASAUTI_BROKER_VISIBILITY_TIMEOUT
# and KASAUTI_BROKER_RESTORE_INTERVAL so a killed worker's task is redelivered within seconds.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(os.environ.get("KASAUTI_BROKER_VISIBILITY_TIMEOUT", "3600")),
    "unacked_restore_interval": int(os.environ.get("KASAUTI_BROKER_RESTORE_INTERVAL", "10")),
    "unacked_restore_throttle": 1,
    "socket_connect_timeout": KASAUTI_BROKER_CONNECT_TIMEOUT,
}
CELERY_RESULT_BACKEND = CELERY_BROKER_URL
MEDIA_ROOT = VAR_DIR / "test-media"
# Pages are served by whitenoise straight from the app folders in tests (no collectstatic).
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
