"""The completions-endpoint client against a real OpenAI-protocol server (a thread in the test,
tests/support_openai_server.py) that scores with the tiny GPT-2, as vLLM answers
echo=True, logprobs=1, max_tokens=0; and that server's own protocol."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request

import pytest

from tests.support_openai_server import Fault
from worker.engines.endpoint import EndpointError, EndpointScorer
from worker.engines.errors import ModelConfigurationError
from worker.engines.lm_scorer import load_causal_lm

ITEMS = [
    (
        "Context: The doctor and the nurse waited.\nWho was careless? Answer:",
        [" The doctor", " The nurse", " Unknown"],
    ),
    ("डॉक्टर और नर्स अस्पताल में थे। कौन लापरवाह था? उत्तर:", [" डॉक्टर", " नर्स", " अज्ञात"]),
]
HINDI = "डॉक्टर और नर्स अस्पताल में इंतज़ार कर रहे थे। कौन लापरवाह था?"


def _post(url: str, payload: dict) -> dict:
    request = urllib.request.Request(
        url + "/v1/completions",
        data=json.dumps(payload).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_endpoint_scores_equal_the_local_scorer(server, tiny_gpt2_dir):
    scorer = EndpointScorer(server.url, model="tiny", concurrency=2, prompts_per_request=3)
    remote = scorer.score_options(ITEMS)
    local = load_causal_lm(tiny_gpt2_dir).score_options(ITEMS, batch_size=2)
    for r, loc in zip(remote, local, strict=True):
        assert r.n_tokens == loc.n_tokens
        assert r.sum_logprob == pytest.approx(loc.sum_logprob, abs=1e-4)
    request = server.requests[-1]
    assert request["echo"] is True and request["logprobs"] == 1 and request["max_tokens"] == 0
    assert sorted(len(r["prompt"]) for r in server.requests) == [3, 3]  # lists of 3 texts


def test_one_prompt_per_request_sends_strings_by_default(server):
    EndpointScorer(server.url, model="tiny").score_options(ITEMS[:1])
    assert [type(r["prompt"]) for r in server.requests] == [str, str, str]
    assert server.max_in_flight == 1


def test_the_server_echoes_character_offsets_aligned_with_the_tokenizer(server):
    """Devanagari: byte-level pieces inside one character start at that character; the tokens
    put together are the text; the first token has no log-probability (as vLLM)."""
    block = server.echo(HINDI)
    ids = server.tokenizer(HINDI)["input_ids"]
    tokens, offsets, values = block["tokens"], block["text_offset"], block["token_logprobs"]
    assert len(tokens) == len(offsets) == len(values) == len(ids) > len(HINDI.split())
    assert "".join(tokens) == HINDI
    assert offsets[0] == 0 and offsets == sorted(offsets) and offsets[-1] < len(HINDI)
    for token, offset in zip(tokens, offsets, strict=True):
        assert HINDI[offset : offset + len(token)] == token
    assert values[0] is None and all(isinstance(v, float) and v < 0 for v in values[1:])
    # A prefix ending on a word boundary is scored on the same tokens as the whole text.
    cut = HINDI.index(" कौन")
    prefix = server.echo(HINDI[:cut])
    assert prefix["text_offset"] == offsets[: len(prefix["text_offset"])]
    assert all(o >= cut for o in offsets[len(prefix["text_offset"]) :])


def test_the_server_speaks_the_protocol(server):
    with urllib.request.urlopen(server.url + "/v1/models", timeout=30) as response:
        models = json.loads(response.read())
    assert models["object"] == "list" and [m["id"] for m in models["data"]] == ["tiny"]
    scoring = {"model": "tiny", "echo": True, "logprobs": 1, "max_tokens": 0}
    single = _post(server.url, {**scoring, "prompt": HINDI})
    both = _post(server.url, {**scoring, "prompt": ["वह लड़का", HINDI]})
    assert single["object"] == "text_completion" and len(single["choices"]) == 1
    assert [c["index"] for c in both["choices"]] == [0, 1]
    assert both["choices"][1]["text"] == HINDI
    assert both["choices"][1]["logprobs"] == single["choices"][0]["logprobs"]
    assert single["usage"]["completion_tokens"] == 0
    with pytest.raises(urllib.error.HTTPError) as refused:
        _post(server.url, {**scoring, "prompt": "x", "max_tokens": 5})  # no generation here
    assert refused.value.code == 400


def test_sentence_logprob_skips_the_unscored_first_token(server):
    scorer = EndpointScorer(server.url, model="tiny", concurrency=2, prompts_per_request=2)
    texts = ["वह लड़का", "The doctor waited.", HINDI]
    scored = scorer.sentence_logprob(texts)
    for (total, n), text in zip(scored, texts, strict=True):
        block = server.echo(text)
        assert n == len(block["token_logprobs"]) - 1
        assert total == pytest.approx(sum(block["token_logprobs"][1:]), abs=1e-6)


def test_a_slow_server_times_out_with_a_clear_error(server):
    server.inject(Fault(sleep=5), Fault(sleep=5))
    scorer = EndpointScorer(server.url, model="tiny", timeout=0.3, retries=1, backoff=0)
    with pytest.raises(EndpointError, match=r"failed after 2 attempt\(s\): timed out") as err:
        scorer.score_options(ITEMS[:1])
    assert "127.0.0.1" in str(err.value) and "/v1/completions" in str(err.value)
    assert isinstance(err.value, ConnectionError) and err.value.attempts == 2


def test_an_unknown_model_is_a_configuration_error_not_retried(server):
    with pytest.raises(ModelConfigurationError, match="HTTP 404 Not Found"):
        EndpointScorer(server.url, model="nope", retries=3).score_options(ITEMS[:1])
    assert len(server.requests) == 1


def test_a_refused_connection_is_retried_then_named(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    scorer = EndpointScorer(f"http://127.0.0.1:{port}", model="m", retries=2, backoff=0.01)
    with pytest.raises(EndpointError) as err:
        scorer.score_options(ITEMS[:1])
    message = str(err.value)
    assert f"endpoint http://127.0.0.1:{port}/v1/completions failed after 3 attempt(s)" in message
    assert "ConnectionRefusedError" in message
    with pytest.raises(ModelConfigurationError, match="http"):
        EndpointScorer("localhost:8000", model="m")
    with pytest.raises(ModelConfigurationError, match="at least 1"):
        EndpointScorer("http://127.0.0.1:1", model="m", concurrency=0)
