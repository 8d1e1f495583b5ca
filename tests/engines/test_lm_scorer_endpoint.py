"""The completions-endpoint client against a real HTTP server (a thread in the test) that
answers like vLLM with echo=True, logprobs=1, max_tokens=0, from the tiny GPT-2."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from worker.engines.endpoint import EndpointError, EndpointScorer
from worker.engines.errors import ModelConfigurationError
from worker.engines.lm_scorer import load_causal_lm

ITEMS = [
    (
        "Context: The doctor and the nurse waited.\nWho was careless? Answer:",
        [" The doctor", " The nurse", " Unknown"],
    ),  # noqa: E501
    ("डॉक्टर और नर्स अस्पताल में थे। कौन लापरवाह था? उत्तर:", [" डॉक्टर", " नर्स", " अज्ञात"]),
]


class _Server:
    def __init__(self, model_dir):
        self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
        self.model = AutoModelForCausalLM.from_pretrained(model_dir).eval()
        self.requests: list[dict] = []
        self.release = threading.Event()
        self.fail_first = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_POST(self):
                payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(payload)
                if self.path.startswith("/slow"):
                    server.release.wait(30)  # held until the test has seen its timeout
                if server.fail_first > 0:
                    server.fail_first -= 1
                    self._send(503, {"error": "warming up"})
                    return
                if payload.get("model") != "tiny":
                    self._send(404, {"error": f"model {payload.get('model')} not found"})
                    return
                choices = [
                    {"index": i, "text": "", "logprobs": server.echo(p)}
                    for i, p in enumerate(payload["prompt"])
                ]
                self._send(200, {"choices": choices})

            def _send(self, code, body):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def echo(self, text):
        enc = self.tokenizer(text, return_offsets_mapping=True)
        ids = enc["input_ids"]
        with torch.no_grad():
            lp = self.model(torch.tensor([ids])).logits.log_softmax(-1)[0]
        token_lps = [None] + [lp[i - 1, ids[i]].item() for i in range(1, len(ids))]
        return {
            "tokens": self.tokenizer.convert_ids_to_tokens(ids),
            "token_logprobs": token_lps,
            "text_offset": [start for start, _ in enc["offset_mapping"]],
        }

    def close(self):
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def server(tiny_gpt2_dir):
    s = _Server(tiny_gpt2_dir)
    yield s
    s.close()


def test_endpoint_scores_equal_the_local_scorer(server, tiny_gpt2_dir):
    remote = EndpointScorer(server.url, model="tiny").score_options(ITEMS, batch_size=1)
    local = load_causal_lm(tiny_gpt2_dir).score_options(ITEMS, batch_size=2)
    for r, loc in zip(remote, local, strict=True):
        assert r.n_tokens == loc.n_tokens
        assert r.sum_logprob == pytest.approx(loc.sum_logprob, abs=1e-4)
    request = server.requests[-1]
    assert request["echo"] is True and request["logprobs"] == 1 and request["max_tokens"] == 0
    assert len(request["prompt"]) == 3  # batch_size 1 item = its 3 options in one request


def test_sentence_logprob_skips_the_unscored_first_token(server):
    ((total, n),) = EndpointScorer(server.url, model="tiny").sentence_logprob(["वह लड़का"])
    block = server.echo("वह लड़का")
    assert n == len(block["token_logprobs"]) - 1
    assert total == pytest.approx(sum(block["token_logprobs"][1:]), abs=1e-6)


def test_a_slow_server_times_out_with_a_clear_error(server):
    scorer = EndpointScorer(server.url + "/slow", model="tiny", timeout=0.3, retries=1, backoff=0)
    try:
        with pytest.raises(EndpointError, match=r"failed after 2 attempt\(s\).*timed out") as err:
            scorer.score_options(ITEMS[:1])
        assert "/slow/v1/completions" in str(err.value)
        assert isinstance(err.value, ConnectionError)
    finally:
        server.release.set()


def test_server_errors_are_retried_then_succeed(server):
    server.fail_first = 2
    scorer = EndpointScorer(server.url, model="tiny", retries=2, backoff=0)
    assert len(scorer.score_options(ITEMS[:1])[0].options) == 3
    assert server.fail_first == 0


def test_an_unknown_model_is_a_configuration_error_not_retried(server):
    before = len(server.requests)
    with pytest.raises(ModelConfigurationError, match="HTTP 404 Not Found"):
        EndpointScorer(server.url, model="nope", retries=3).score_options(ITEMS[:1])
    assert len(server.requests) == before + 1


def test_a_refused_connection_and_a_bad_url_are_clear(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    with pytest.raises(EndpointError, match=f"127.0.0.1:{port}/v1/completions"):
        EndpointScorer(f"http://127.0.0.1:{port}", model="m", retries=0).score_options(ITEMS[:1])
    with pytest.raises(ModelConfigurationError, match="http"):
        EndpointScorer("localhost:8000", model="m")
