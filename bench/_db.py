"""Shared set-up for benchmark scripts: a dedicated PostgreSQL database, migrated, dropped at
the end. Benchmarks are scripts, not tests: run them with `python bench/<name>.py`."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


@contextmanager
def bench_database(name: str = "kasauti_bench"):
    import psycopg

    admin = psycopg.connect("host=127.0.0.1 user=postgres dbname=postgres", autocommit=True)
    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.execute(f'CREATE DATABASE "{name}"')
    os.environ["DJANGO_SETTINGS_MODULE"] = "kasauti.settings.test"
    os.environ["KASAUTI_TEST_DB_NAME"] = name
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    try:
        yield
    finally:
        from django.db import connections

        connections.close_all()
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
