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


SAFE_ENV = {
    "SECRET_KEY": "k" * 20 + "-production-secret-key-1234567890",
    "ALLOWED_HOSTS": "k.example",
}


def check_deploy(**env: str) -> subprocess.CompletedProcess:
    # DJANGO_ALLOW_ASYNC_UNSAFE is set in this process by the browser tests' fixture; a
    # deployment does not have it (check --deploy rightly refuses it).
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SECURE_", "KASAUTI_TLS")) and k != "DJANGO_ALLOW_ASYNC_UNSAFE"
    }
    clean.update(DJANGO_SETTINGS_MODULE="kasauti.settings.production", **SAFE_ENV, **env)
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
    )


def production_value(name: str, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("SECURE_", "KASAUTI_TLS"))}
    clean.update(DJANGO_SETTINGS_MODULE="kasauti.settings.production", **SAFE_ENV, **env)
    code = (
        f"import django; django.setup(); from django.conf import settings; print(settings.{name})"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=clean, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_check_deploy_is_clean_with_production_settings():
    result = check_deploy()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_flags_a_plain_http_production():
    # The check is not vacuous: switching TLS off brings the HSTS/redirect warnings back.
    result = check_deploy(KASAUTI_TLS="0")
    assert result.returncode != 0
    for code in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert code in result.stderr


def test_hsts_and_ssl_redirect_are_on_by_default_and_configurable():
    assert production_value("SECURE_SSL_REDIRECT") == "True"
    assert production_value("SECURE_HSTS_SECONDS") == "31536000"
    assert production_value("SECURE_SSL_REDIRECT", SECURE_SSL_REDIRECT="0") == "False"
    assert production_value("SECURE_HSTS_SECONDS", SECURE_HSTS_SECONDS="600") == "600"
    assert production_value("SECURE_HSTS_SECONDS", KASAUTI_TLS="0") == "0"


def test_production_redirects_http_and_sends_hsts(db, client, settings):
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_HSTS_SECONDS = 31536000
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    plain = client.get("/accounts/login/")
    assert plain.status_code == 301
    assert plain["Location"].startswith("https://")
    assert client.get("/healthz").status_code == 200  # probes stay on plain HTTP
    secure = client.get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https")
    assert secure.status_code == 200
    assert secure["Strict-Transport-Security"].startswith("max-age=31536000")
