"""The model registry reaches only what the deployment allows: endpoint hosts on
KASAUTI_EVAL_ENDPOINT_HOSTS (http/https, no redirects, bodies kept out of run errors) and local
paths under KASAUTI_MODEL_ROOT (the error does not say whether other folders exist)."""

from __future__ import annotations

import http.server
import json
import logging
import threading

import pytest
from django.urls import reverse

from apps.core.errors import KasautiError
from apps.evaluation.models import ModelEntry, ModelKind
from apps.evaluation.services.runs import run_create
from tests.evaluation.bbq_data import bbq_release
from tests.evaluation.run_jobs import run_job_execute
from tests.evaluation.test_run_execute import Recorder
from worker.engines.endpoint import EndpointScorer, endpoint_url_problem
from worker.engines.errors import ModelConfigurationError

pytestmark = pytest.mark.django_db

SECRET = "internal-secret-token-4711"


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.startswith("/redirect"):
            self.send_response(302)
            self.send_header("Location", "http://127.0.0.1:1/elsewhere/v1/completions")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = json.dumps({"error": f"denied: {SECRET}"}).encode()
        self.send_response(403 if self.path.startswith("/forbidden") else 500)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_registration_of_an_endpoint_needs_its_host_on_the_allow_list(researcher_client, settings):
    url = reverse("evaluation-model-list")
    settings.KASAUTI_EVAL_ENDPOINT_HOSTS = []
    body = {"name": "e", "kind": "endpoint", "endpoint_url": "http://127.0.0.1:8399/v1"}
    refused = researcher_client.post(url, body, format="json")
    assert refused.status_code == 400
    assert "KASAUTI_EVAL_ENDPOINT_HOSTS" in refused.json()["detail"]
    settings.KASAUTI_EVAL_ENDPOINT_HOSTS = ["gpu.lab.example:8000", "127.0.0.1:8000"]
    for bad in (
        "http://127.0.0.1:8399/any?x=/completions",  # another port, and a query
        "http://127.0.0.1:8000/v1?x=/completions",  # allowed port, but a query
        "http://gpu.lab.example.evil.example:8000/v1",
        "ftp://gpu.lab.example:8000/v1",
        "http://user:pw@gpu.lab.example:8000/v1",
    ):
        response = researcher_client.post(url, {**body, "endpoint_url": bad}, format="json")
        assert response.status_code == 400, bad
    ok = researcher_client.post(
        url, {**body, "endpoint_url": "http://gpu.lab.example:8000/v1"}, format="json"
    )
    assert ok.status_code == 201, ok.content
    assert list(ModelEntry.objects.values_list("name", flat=True)) == ["e"]


def test_allow_list_entries_are_host_or_host_and_port():
    allowed = ["gpu-host", "10.0.0.5:8443"]
    assert endpoint_url_problem("http://gpu-host:9000/v1", allowed) is None
    assert endpoint_url_problem("https://GPU-HOST/v1", allowed) is None
    assert endpoint_url_problem("https://10.0.0.5:8443/v1", allowed) is None
    assert "10.0.0.5:443" in endpoint_url_problem("https://10.0.0.5/v1", allowed)
    assert "KASAUTI_EVAL_ENDPOINT_HOSTS" in endpoint_url_problem("http://other/v1", allowed)


def test_the_allow_list_is_checked_again_when_a_run_starts(settings):
    settings.KASAUTI_EVAL_ENDPOINT_HOSTS = ["127.0.0.1"]
    entry = ModelEntry.objects.create(
        name="remote", kind=ModelKind.ENDPOINT, endpoint_url="http://127.0.0.1:9/v1"
    )
    release = bbq_release(languages=("en",))
    run = run_create(release=release, model=entry)
    settings.KASAUTI_EVAL_ENDPOINT_HOSTS = []
    with pytest.raises(KasautiError, match="KASAUTI_EVAL_ENDPOINT_HOSTS"):
        run_create(release=release, model=entry)
    # A queued run whose host was removed meanwhile fails at execution, before any request.
    with pytest.raises(KasautiError, match="KASAUTI_EVAL_ENDPOINT_HOSTS"):
        run_job_execute(run=run, progress=Recorder())


def test_redirects_are_not_followed(server):
    scorer = EndpointScorer(f"{server}/redirect/v1", model="m", retries=0)
    with pytest.raises(ModelConfigurationError, match="HTTP 302") as caught:
        scorer.sentence_logprob(["a"])
    assert "elsewhere" not in str(caught.value)


def test_errors_keep_status_and_reason_and_bodies_go_to_the_log_only(server, caplog):
    caplog.set_level(logging.WARNING, logger="worker.engines.endpoint")
    with pytest.raises(ModelConfigurationError) as refused:
        EndpointScorer(f"{server}/forbidden/v1", model="m", retries=0).sentence_logprob(["a"])
    assert "HTTP 403 Forbidden" in str(refused.value) and SECRET not in str(refused.value)
    with pytest.raises(ConnectionError) as failed:
        EndpointScorer(f"{server}/v1", model="m", retries=0).sentence_logprob(["a"])
    assert "HTTP 500" in str(failed.value) and SECRET not in str(failed.value)
    assert SECRET in caplog.text


def test_the_engine_refuses_a_host_off_its_allow_list():
    with pytest.raises(ModelConfigurationError, match="KASAUTI_EVAL_ENDPOINT_HOSTS"):
        EndpointScorer("http://127.0.0.1:8399/v1", model="m", allowed_hosts=["gpu-host"])


def test_local_paths_stay_under_the_model_root(researcher_client, settings, tmp_path):
    root = tmp_path / "models"
    (root / "tiny").mkdir(parents=True)
    (tmp_path / "secret-folder").mkdir()
    settings.KASAUTI_MODEL_ROOT = root
    url = reverse("evaluation-model-list")

    def post(name, path):
        return researcher_client.post(
            url, {"name": name, "kind": "causal_lm", "path": path}, format="json"
        )

    answers = {
        path: post(f"m{i}", path)
        for i, path in enumerate(
            (
                str(tmp_path / "secret-folder"),  # exists, outside the root
                str(tmp_path / "no-such-folder"),  # does not exist, outside the root
                "../secret-folder",
                "tiny/../../secret-folder",
                "~/secret-folder",
            )
        )
    }
    for path, response in answers.items():
        assert response.status_code == 400, path
        assert "KASAUTI_MODEL_ROOT" in response.json()["detail"]
    # The same words whether the folder exists or not.
    details = {r.json()["detail"].replace(p, "") for p, r in answers.items()}
    assert len({d for d in details if "exist" in d}) == 0
    outside = [
        answers[str(tmp_path / s)].json()["detail"] for s in ("secret-folder", "no-such-folder")
    ]
    assert outside[0].replace("secret", "X") == outside[1].replace("no-such", "X")
    assert post("rel", "tiny").status_code == 201
    assert post("abs", str(root / "tiny")).status_code == 201
    assert not ModelEntry.objects.filter(name__startswith="m").exists()
