"""Test settings on SQLite, the `make run` default: the import tests also run here (see the
Makefile's `test` target), because SQLite lacks features PostgreSQL has (DISTINCT ON, ...)."""

import os

from .test import *  # noqa: F403
from .test import VAR_DIR

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        # A file, not :memory:, so that a worker subprocess could share it; pytest-django
        # creates and removes "test_<NAME>" itself.
        "NAME": str(VAR_DIR / f"{os.environ.get('KASAUTI_TEST_DB_NAME', 'test')}.sqlite3"),
        "OPTIONS": {"timeout": 30, "transaction_mode": "IMMEDIATE"},
        "TEST": {
            "NAME": str(VAR_DIR / f"{os.environ.get('KASAUTI_TEST_DB_NAME', 'test')}.sqlite3")
        },
    }
}
