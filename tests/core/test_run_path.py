"""Smoke test of the `make run` path: scripts/run.sh on the embedded default (SQLite file,
kombu filesystem broker, a real Celery worker, the web server), driven over HTTP."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def call(url: str, *, data: dict | None = None, token: str | None = None) -> dict:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    body = json.dumps(data).encode() if data is not None else None
    request = urllib.request.Request(url, data=body, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def wait_for(condition, *, what: str, progress, stall: float = 120.0, cap: float = 1200.0):
    """Poll `condition()` until it returns a truthy value (returned). Load-tolerant: the test
    fails only when `progress()` (a log's size, a job's progress and heartbeat) has not changed
    for `stall` seconds, or after `cap` seconds in all; a slow but moving app is waited for."""
    start = last_change = time.monotonic()
    seen = progress()
    while True:
        value = condition()
        if value:
            return value
        now = time.monotonic()
        current = progress()
        if current != seen:
            seen, last_change = current, now
        if now - last_change > stall or now - start > cap:
            pytest.fail(f"{what}: no progress for {now - last_change:.0f} s (last: {seen!r})")
        time.sleep(0.5)


def group_alive(pgid: int) -> bool:
    """Whether any process of the process group is still running (zombies excluded)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # exited meanwhile
        if fields[0] != "Z" and int(fields[2]) == pgid:
            return True
    return False


@pytest.fixture
def running_app(tmp_path, request):
    port = free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE="kasauti.settings.dev",
        KASAUTI_VAR_DIR=str(tmp_path / "var"),
        KASAUTI_ADDR=f"127.0.0.1:{port}",
        PYTHONUNBUFFERED="1",
    )
    log = tmp_path / "run.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            ["bash", "scripts/run.sh"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the script, worker, web server
        )
    # A finalizer, registered before anything can fail: it runs whatever happens to the test.
    request.addfinalizer(lambda: stop_group(process))
    base = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        assert process.poll() is None, log.read_text()[-4000:]
        try:
            return call(f"{base}/healthz")["status"] == "ok"
        except (urllib.error.URLError, ConnectionError, OSError):
            return False

    # migrate, load_demo and build_demo_models log as they go: a growing log is progress.
    wait_for(healthy, what="app start", progress=lambda: log.stat().st_size)
    return base, log, tmp_path / "var"


def stop_group(process: subprocess.Popen) -> None:
    """Stop the script's whole process group (web server, worker and its pool): SIGTERM, then
    SIGKILL to whatever is left once the script has exited or after 30 s, and wait until no
    process of the group remains."""
    pgid = process.pid
    try:
        os.killpg(pgid, signal.SIGTERM)
        process.wait(timeout=30)
    except ProcessLookupError:
        pass  # already gone
    except subprocess.TimeoutExpired:
        pass
    deadline = time.monotonic() + 60
    while group_alive(pgid):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            break
        if time.monotonic() > deadline:
            raise AssertionError(f"process group {pgid} survived SIGKILL")
        time.sleep(0.1)
    if process.poll() is None:
        process.wait(timeout=30)


def test_make_run_path_starts_and_a_task_round_trips(running_app):
    base, log, var = running_app
    output = log.read_text()
    assert "Celery worker started" in output
    # SQLite file and filesystem broker: no server was needed.
    assert (var / "kasauti.sqlite3").exists()
    assert (var / "broker" / "queue").is_dir()
    password = re.search(r"researcher\s+role=researcher\s+password=(\S+)", output).group(1)
    token = call(f"{base}/api/auth/token/", data={"username": "researcher", "password": password})[
        "token"
    ]

    datasets = call(f"{base}/api/datasets/", token=token)["results"]
    demo = next(d for d in datasets if d["name"] == "demo")
    plan = call(f"{base}/api/datasets/{demo['id']}/instantiation-plan/", token=token)
    assert plan["total"] > 0

    job = call(f"{base}/api/datasets/{demo['id']}/instantiate/", data={}, token=token)
    job = job_finished(base, token, job["id"], var)
    assert job["status"] == "succeeded", (job, (var / "worker.log").read_text()[-3000:])
    assert job["result"]["total"] == plan["total"]
    demo = call(f"{base}/api/datasets/{demo['id']}/", token=token)
    assert demo["live_instance_count"] == plan["total"]

    # The translation pipeline runs on the same serverless setup, on the random-weight demo
    # models that run.sh builds when no IndicTrans2 weights are configured.
    assert (var / "models" / "indictrans2-en-indic" / "model.bin").exists()
    job = call(
        f"{base}/api/translation-jobs/",
        data={"dataset": demo["id"], "languages": ["hi"], "source": "sentence_pairs"},
        token=token,
    )
    assert job["id"] == job["job"]["id"]  # one id: the core job id
    core_id = job["id"]
    job = job_finished(base, token, core_id, var)
    assert job["status"] == "succeeded", (job, (var / "worker.log").read_text()[-3000:])
    assert job["progress_done"] == job["progress_total"] > 0
    strings = call(f"{base}/api/translated-strings/?job={core_id}", token=token)["results"]
    assert strings and all(-1.0 <= s["similarity"] <= 1.0 for s in strings)


def job_finished(base: str, token: str, job_id: int, var: Path) -> dict:
    """Wait for a job to finish; it counts as stalled only when neither its status, progress
    nor heartbeat, nor the worker's log, has moved for the stall limit."""
    last: dict = {}

    def finished() -> dict | None:
        last.update(call(f"{base}/api/jobs/{job_id}/", token=token))
        return dict(last) if last["status"] in {"succeeded", "failed", "cancelled"} else None

    def progress() -> tuple:
        log = var / "worker.log"
        return (
            last.get("status"),
            last.get("progress_done"),
            last.get("heartbeat_at"),
            log.stat().st_size if log.exists() else 0,
        )

    return wait_for(finished, what=f"job {job_id}", progress=progress)


def test_make_run_path_shows_the_apps_pages_and_prints_the_reset_mail(running_app):
    """Under `make run` (DEBUG on): the app's own 404 and 405 pages, not Django's debug pages;
    "Forgot password?" works, and the mail is printed in the terminal (console backend)."""
    import http.cookiejar
    from urllib.parse import urlencode

    base, log, _ = running_app
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )

    def page(path: str, *, status: int) -> str:
        try:
            response = opener.open(f"{base}{path}", timeout=60)
            code, body = response.status, response.read()
        except urllib.error.HTTPError as error:
            code, body = error.code, error.read()
        html = body.decode()
        assert code == status, (path, code, html[:300])
        assert '<header class="topbar">' in html and "Using the URLconf" not in html
        return html

    assert "Page not found" in page("/no-such-page/", status=404)
    assert "registers a model" in page("/evaluation/models/new/", status=405)

    login = page("/accounts/login/", status=200)
    assert 'id="forgot-password"' in login
    form = page("/accounts/password_reset/", status=200)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    data = urlencode({"csrfmiddlewaretoken": token, "email": "researcher@example.org"})
    response = opener.open(f"{base}/accounts/password_reset/", data=data.encode(), timeout=60)
    assert response.url == f"{base}/accounts/password_reset/done/"

    def mailed() -> str | None:
        found = re.search(r"http://\S+/accounts/reset/\S+/", log.read_text())
        return found.group(0) if found else None

    link = wait_for(mailed, what="reset mail in the log", progress=lambda: log.stat().st_size)
    assert "Subject: Your Kasauti password" in log.read_text()
    assert "Choose your password" in page(link.replace(f"http://{base[7:]}", ""), status=200)
