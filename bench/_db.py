"""Shared set-up for benchmark scripts: a dedicated PostgreSQL database, migrated, dropped at
the end. Benchmarks are scripts, not tests: run them with `python bench/<name>.py`."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


@contextmanager
def bench_database(name: str = "kasauti_bench", *, keep: bool = False):
    """A migrated database `name`, dropped at the end. With `keep`, an existing one is reused
    (migrated forward) and it stays afterwards; yields whether it existed before."""
    import psycopg

    admin = psycopg.connect("host=127.0.0.1 user=postgres dbname=postgres", autocommit=True)
    existed = keep and bool(
        admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
    )
    if not existed:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    os.environ["DJANGO_SETTINGS_MODULE"] = "kasauti.settings.test"
    os.environ["KASAUTI_TEST_DB_NAME"] = name
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    try:
        yield existed
    finally:
        from django.db import connections

        connections.close_all()
        if not keep:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


def baseline_tree(revision: str, into: Path) -> Path:
    """The code of git revision `revision` extracted into `into` (git archive): a benchmark's
    baseline measured in the same run as the working tree."""
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, check=True,
                             capture_output=True).stdout  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into
