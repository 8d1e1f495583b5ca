"""Production settings refuse unsafe defaults."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_production(**env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG"}}
    clean.update(DJANGO_SETTINGS_MODULE="kasauti.settings.production", **env)
    code = "import django; django.setup(); from django.conf import settings; print(settings.DEBUG)"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=clean, capture_output=True, text=True
    )


def test_production_requires_a_secret_key():
    result = load_production(ALLOWED_HOSTS="kasauti.example")
    assert result.returncode != 0 and "SECRET_KEY must be set" in result.stderr


def test_production_refuses_debug():
    result = load_production(SECRET_KEY="x" * 50, DEBUG="1", ALLOWED_HOSTS="kasauti.example")
    assert result.returncode != 0 and "DEBUG must not be enabled" in result.stderr


def test_production_starts_with_safe_settings():
    result = load_production(SECRET_KEY="x" * 50, ALLOWED_HOSTS="kasauti.example")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
