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


@pytest.fixture
def running_app(tmp_path):
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
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            assert process.poll() is None, log.read_text()[-4000:]
            try:
                if call(f"{base}/healthz")["status"] == "ok":
                    break
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.5)
        else:
            pytest.fail(f"app did not start:\n{log.read_text()[-4000:]}")
        yield base, log, tmp_path / "var"
    finally:
        stop_group(process)


def stop_group(process: subprocess.Popen) -> None:
    """SIGTERM the script's process group (web server and worker), SIGKILL if it lingers."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
    except ProcessLookupError:
        return  # already gone
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
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
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        job = call(f"{base}/api/jobs/{job['id']}/", token=token)
        if job["status"] in {"succeeded", "failed"}:
            break
        time.sleep(0.5)
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
    translation_id, core_id = job["id"], job["job"]["id"]
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        job = call(f"{base}/api/jobs/{core_id}/", token=token)
        if job["status"] in {"succeeded", "failed", "cancelled"}:
            break
        time.sleep(0.5)
    assert job["status"] == "succeeded", (job, (var / "worker.log").read_text()[-3000:])
    assert job["progress_done"] == job["progress_total"] > 0
    strings = call(f"{base}/api/translated-strings/?job={translation_id}", token=token)["results"]
    assert strings and all(-1.0 <= s["similarity"] <= 1.0 for s in strings)
