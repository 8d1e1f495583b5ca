"""Run the real WSGI app under gunicorn on loopback for the HTTP benchmarks (same database
as the bench script: the settings read KASAUTI_TEST_DB_NAME)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def gunicorn(*, workers: int = 2, threads: int = 4):
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "kasauti.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            "--threads",
            str(threads),
            # The shared 2-core machine can stall a worker for seconds; don't let gunicorn
            # kill it mid-request (the default is 30 s).
            "--timeout",
            "300",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=2).read()
                break
            except OSError:
                time.sleep(0.2)
        else:
            raise RuntimeError("gunicorn did not start")
        yield base
    finally:
        process.terminate()
        try:
            # Graceful stop; on a loaded machine the workers may take longer than this to
            # finish their last requests: the measured run is over, so do not lose its figures.
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def session_cookie(user) -> str:
    """A signed-in session for `user`, as the login page would create it."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}"


def gunicorn_process(*, cwd: Path, port: int, env: dict, workers: int, threads: int):
    """gunicorn (gthread, preloaded, keep-alive) serving the app in `cwd` on `port`, returned
    once it accepts connections; the load benches (p9, survey_submit) start it this way so
    they can read its workers' CPU time (gunicorn_pids)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "kasauti.wsgi:application", "--bind",
         f"127.0.0.1:{port}", "--worker-class", "gthread", "--workers", str(workers),
         "--threads", str(threads), "--keep-alive", "30", "--log-level", "warning",
         "--preload"],
        cwd=cwd, env=env,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"gunicorn exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("gunicorn did not start")


def gunicorn_pids(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return [master, *map(int, children)]


def backend_pids(database: str) -> list[int]:
    """The PostgreSQL backends connected to `database` (the server's connections)."""
    import psycopg

    with psycopg.connect("host=127.0.0.1 user=postgres dbname=postgres") as c:
        rows = c.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [database],
        ).fetchall()
    return [row[0] for row in rows]
