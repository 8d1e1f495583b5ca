"""The completions-endpoint client at scale, against the real OpenAI-protocol test server
(tests/support_openai_server.py, the tiny GPT-2): at most `concurrency` requests in flight,
answers in input order whatever order they finish in, back-off and retries on 429 (its
Retry-After honoured, capped), 5xx, timeouts, a clear error once the budget is spent, lists of
prompts matched back by index, and the fallback to one prompt per request."""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from tests.support_openai_server import Fault
from worker.engines.endpoint import EndpointError, EndpointScorer, retry_after_seconds
from worker.engines.errors import ModelConfigurationError

WORDS = ["doctor", "nurse", "farmer", "banker", "teacher", "engineer", "किसान", "बैंकर", "डॉक्टर"]
# Nine items, 27 distinct texts: English and Devanagari.
ITEMS = [
    (
        f"Context: The {w} waited at the hospital.\nWho was careless? Answer:"
        if w.isascii()
        else f"संदर्भ: {w} अस्पताल में इंतज़ार कर रहे थे। कौन लापरवाह था? उत्तर:",
        [f" The {w}", " Someone else", " Unknown"]
        if w.isascii()
        else [f" {w}", " कोई और", " अज्ञात"],
    )
    for w in WORDS
]
TEXTS = [prompt + option for prompt, options in ITEMS for option in options]


@pytest.fixture(scope="module")
def reference(completions_server):
    """The scores one request at a time, one prompt per request (the plain client)."""
    scored = EndpointScorer(completions_server.url, model="tiny").score_options(ITEMS)
    return [(s.sum_logprob, s.n_tokens) for s in scored]


def _flat(scored) -> list[tuple[float, int]]:
    return [(s.sum_logprob, s.n_tokens) for s in scored]


def _same(scored, reference) -> None:
    got = _flat(scored)
    assert len(got) == len(reference)
    for (total, n), (want_total, want_n) in zip(got, reference, strict=True):
        assert n == want_n
        assert total == pytest.approx(want_total, abs=1e-6)


def _scorer(server, **options) -> EndpointScorer:
    return EndpointScorer(server.url, model="tiny", **options)


# ------------------------------------------------------------------------- concurrency, order
@pytest.mark.parametrize(("concurrency", "wait"), [(1, 0.05), (3, 2.0)])
def test_requests_in_flight_never_exceed_the_concurrency(server, reference, concurrency, wait):
    """The server holds each request until 3 are in flight (or `wait` seconds pass): a client
    that allows 3 is seen with exactly 3 at once, one that allows 1 never with more."""
    server.gather, server.gather_wait = 3, wait
    scored = _scorer(server, concurrency=concurrency).score_options(ITEMS)
    _same(scored, reference)
    assert len(server.requests) == len(TEXTS)
    assert server.max_in_flight == concurrency


def test_answers_come_back_in_input_order_whatever_order_requests_finish(server, reference):
    # The first request to arrive is answered 1 s late: others finish before it.
    server.inject(Fault(sleep=1.0))
    scored = _scorer(server, concurrency=4, prompts_per_request=2).score_options(ITEMS)
    _same(scored, reference)
    first = server.requests[0]["prompt"]
    assert server.answered.index(first) > 0
    assert server.answered != [r["prompt"] for r in server.requests]
    assert server.statuses == [200] * len(server.requests)


# ------------------------------------------------------------------------- retries
def test_a_429_waits_for_its_retry_after(server, reference):
    server.inject(Fault(429, retry_after="1"))
    scorer = _scorer(server, retries=2, backoff=0, prompts_per_request=3)  # no back-off of its own
    _same(scorer.score_options(ITEMS[:1]), reference[:1])
    assert server.statuses == [429, 200]
    waited = server.arrivals[1] - server.arrivals[0]
    assert 1.0 <= waited < 2.0


def test_a_long_retry_after_is_capped(server, reference):
    server.inject(Fault(429, retry_after="120"))
    scorer = _scorer(server, retries=1, backoff=0, backoff_max=0.3, prompts_per_request=3)
    started = time.monotonic()
    _same(scorer.score_options(ITEMS[:1]), reference[:1])
    assert server.statuses == [429, 200]
    assert server.arrivals[1] - server.arrivals[0] >= 0.3 and time.monotonic() - started < 5


def test_server_errors_are_retried_with_a_growing_back_off_then_succeed(server, reference):
    server.inject(Fault(503), Fault(502), Fault(500))
    scorer = _scorer(server, retries=3, backoff=0.3, prompts_per_request=3)
    _same(scorer.score_options(ITEMS[:1]), reference[:1])
    assert server.statuses == [503, 502, 500, 200]
    gaps = [b - a for a, b in zip(server.arrivals, server.arrivals[1:], strict=False)]
    # Equal jitter: retry k waits between half and all of 0.3 x 2^(k-1) seconds (the upper
    # bound of the first leaves room for a busy machine).
    assert 0.15 <= gaps[0] < 0.6 and gaps[1] >= 0.3 and 0.6 <= gaps[2] < 3


def test_a_timeout_is_retried_then_succeeds(server, reference):
    server.inject(Fault(sleep=30))  # past the client's 1.5 s: it gives up and asks again
    scorer = _scorer(server, timeout=1.5, retries=1, backoff=0, prompts_per_request=3)
    started = time.monotonic()
    _same(scorer.score_options(ITEMS[:1]), reference[:1])
    assert len(server.requests) == 2 and time.monotonic() - started < 10
    assert server.statuses == [200]  # the first is still asleep


@pytest.mark.parametrize(
    ("status", "said"), [(429, "HTTP 429 Too Many Requests"), (503, "HTTP 503 Service Unavailable")]
)
def test_the_spent_budget_names_the_url_the_status_and_the_attempts(server, status, said):
    server.inject(*[Fault(status, retry_after="0")] * 3)
    scorer = _scorer(server, retries=2, backoff=0.01, prompts_per_request=3)
    with pytest.raises(EndpointError) as err:
        scorer.score_options(ITEMS[:1])
    assert str(err.value) == (
        f"endpoint {server.url}/v1/completions failed after 3 attempt(s): {said}"
    )
    assert (err.value.url, err.value.status, err.value.attempts) == (
        f"{server.url}/v1/completions",
        said,
        3,
    )
    assert server.statuses == [status] * 3


def test_one_request_out_of_budget_stops_the_others(server):
    """Every answer is a 503: the first request to spend its budget fails the call; requests
    not yet sent are dropped and the others give up their retries."""
    server.inject(*[Fault(503)] * 200)
    scorer = _scorer(server, concurrency=2, retries=2, backoff=0.05)
    with pytest.raises(EndpointError, match=r"failed after 3 attempt\(s\): HTTP 503"):
        scorer.score_options(ITEMS)
    time.sleep(0.3)  # any request still on its way has arrived by now
    assert len(server.requests) <= 6  # not 27 texts x 3 attempts
    assert server.faults_left >= 200 - 6


def test_a_4xx_other_than_429_is_not_retried(server):
    server.inject(Fault(422))
    with pytest.raises(ModelConfigurationError, match="HTTP 422 Unprocessable"):
        _scorer(server, retries=3).score_options(ITEMS[:1])
    assert server.statuses == [422]


def test_retry_after_reads_seconds_and_dates():
    assert retry_after_seconds("7") == 7.0 and retry_after_seconds(" 0 ") == 0.0
    assert retry_after_seconds(None) is None and retry_after_seconds("soon") is None
    now = datetime(2026, 1, 1, tzinfo=UTC)
    date = format_datetime(now + timedelta(seconds=30), usegmt=True)
    assert retry_after_seconds(date, now=now.timestamp()) == pytest.approx(30)
    assert retry_after_seconds(format_datetime(now, usegmt=True), now=now.timestamp() + 5) == 0


# ------------------------------------------------------------------------- batching
def test_lists_of_prompts_are_matched_back_by_index(server, reference):
    server.reverse_choices = True  # the server may return a list's choices in any order
    scorer = _scorer(server, concurrency=2, prompts_per_request=4)
    _same(scorer.score_options(ITEMS), reference)
    sizes = sorted(
        len(r["prompt"]) if isinstance(r["prompt"], list) else 1 for r in server.requests
    )
    assert sizes == [3] + [4] * 6  # 27 texts: six lists of 4 and the last three
    assert scorer.lists_accepted


def test_a_server_refusing_lists_gets_one_prompt_per_request_from_then_on(
    server, reference, caplog
):
    server.accept_lists = False
    scorer = _scorer(server, prompts_per_request=4)
    with caplog.at_level(logging.WARNING, logger="worker.engines.endpoint"):
        _same(scorer.score_options(ITEMS), reference)
        _same(scorer.score_options(ITEMS), reference)  # the next call asks singly at once
    lists = [r for r in server.requests if isinstance(r["prompt"], list)]
    assert len(lists) == 1 and server.statuses.count(400) == 1
    assert len(server.requests) == 1 + 2 * len(TEXTS)
    assert not scorer.lists_accepted
    said = [r.getMessage() for r in caplog.records if "refused a list" in r.getMessage()]
    assert len(said) == 1 and "one prompt per request from now on" in said[0]
    assert "HTTP 400 Bad Request" in said[0]


def test_the_fallback_also_holds_with_concurrent_requests(server, reference, caplog):
    server.accept_lists = False
    scorer = _scorer(server, concurrency=3, prompts_per_request=3)
    with caplog.at_level(logging.WARNING, logger="worker.engines.endpoint"):
        _same(scorer.score_options(ITEMS), reference)
    assert sum("refused a list" in r.getMessage() for r in caplog.records) == 1
    assert 1 <= server.statuses.count(400) <= 3  # the lists in flight when the first came back
    assert server.statuses.count(200) == len(TEXTS)
