"""Option and sentence scoring against an OpenAI-compatible ``/v1/completions`` endpoint
(vLLM, llama.cpp server, TGI's OpenAI route) with ``echo=True, logprobs=1, max_tokens=0``: the
server returns the log-probability of every prompt token, and the tokens of an option are the
ones whose ``text_offset`` lies at or after the end of the prompt.

Same interface as ``worker.engines.lm_scorer.CausalLMScorer`` (``score_options``,
``sentence_logprob``, ``model_info``). Standard library only (urllib, concurrent.futures).

At scale (docs/evaluation.md, "Endpoint models at scale"):

* up to ``concurrency`` requests are in flight at once (a thread pool; vLLM batches concurrent
  requests itself), and results come back in input order whatever order requests finish in;
* up to ``prompts_per_request`` texts go in one request (``prompt`` as a list; ``choices[i]``
  is matched back by its ``index``). A server that refuses a list (a 4xx answer to a list
  request) is asked one prompt per request from then on, once logged;
* every request has a timeout; 429, 5xx, timeouts and refused or dropped connections are
  retried ``retries`` times after an exponential back-off with jitter (``backoff`` × 2^k,
  at most ``backoff_max`` seconds; a 429's ``Retry-After`` is honoured, capped the same way),
  then `EndpointError` (a ``ConnectionError``) names the URL, the last status and the number
  of attempts. Any other 4xx (unknown model, a server that does not support ``echo``) is a
  configuration problem: `ModelConfigurationError`, not retried.

Server-side requests go only where the deployment allows: `endpoint_url_problem` checks a URL
against an allow-list of ``host`` or ``host:port`` entries (Kasauti passes
``KASAUTI_EVAL_ENDPOINT_HOSTS``), http/https only, no credentials, query or fragment. Redirects
are never followed (a 3xx is a configuration error). Errors keep the HTTP status and its short
reason; a response body goes to this module's logger only, never into the error text (which
ends up in a run's error, readable by annotators).
"""

from __future__ import annotations

import email.utils
import http.client
import json
import logging
import random
import threading
import time
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Hashable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from worker.engines.errors import ModelConfigurationError
from worker.engines.lm_scorer import OptionScore, OptionScores

logger = logging.getLogger(__name__)

ALLOW_LIST_SETTING = "KASAUTI_EVAL_ENDPOINT_HOSTS"
_DEFAULT_PORTS = {"http": 80, "https": 443}


class EndpointError(ConnectionError):
    """The endpoint did not answer usefully after every retry. When raised at the end of the
    retry budget, ``url``, ``status`` (the last answer: ``HTTP 503 Service Unavailable``,
    ``timed out after 60s``, ...) and ``attempts`` say what happened."""

    url: str | None = None
    status: str | None = None
    attempts: int | None = None


def _allowed(entry: str) -> tuple[str, int | None]:
    """An allow-list entry as (host, port or None for any port); ``[::1]:8000`` works too."""
    entry = entry.strip().lower()
    if entry.startswith("["):
        host, _, rest = entry[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    elif entry.count(":") == 1:
        host, port = entry.split(":")
    else:
        host, port = entry, ""
    return host, int(port) if port.isdigit() else None


def endpoint_url_problem(url: str, allowed_hosts: Iterable[str]) -> str | None:
    """Why a server-side request to `url` is not allowed (None: it is)."""
    try:
        parts = urllib.parse.urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return f"endpoint URL {url!r} is not a valid URL"
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return f"endpoint URL must be http:// or https:// with a host, got {url!r}"
    if parts.username or parts.password or parts.query or parts.fragment:
        return "endpoint URL must not carry credentials, a query (?...) or a fragment (#...)"
    host, port = parts.hostname.lower(), port or _DEFAULT_PORTS[parts.scheme]
    entries = [_allowed(e) for e in allowed_hosts if e and e.strip()]
    if not entries:
        return (
            f"endpoint models are disabled: no host is allowed ({ALLOW_LIST_SETTING} is empty; "
            "set it to the host or host:port of your completions server)"
        )
    if any(host == h and (p is None or p == port) for h, p in entries):
        return None
    return f"endpoint host {host}:{port} is not in {ALLOW_LIST_SETTING}"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # urllib then raises HTTPError with the 3xx status


_OPENER = urllib.request.build_opener(_NoRedirect)


def retry_after_seconds(value: str | None, *, now: float | None = None) -> float | None:
    """A ``Retry-After`` header as seconds from now: delta-seconds or an HTTP date (RFC 9110
    10.2.3); None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class _Refused(Exception):
    """A 4xx other than 429: the request itself is wrong (never retried)."""

    def __init__(self, status: str) -> None:
        super().__init__(status)
        self.status = status


class _ListRefused(Exception):
    """A list of prompts was refused (or lists are known to be): send them one by one."""

    def __init__(self, status: str | None) -> None:
        super().__init__(status)
        self.status = status


class _Stopped(Exception):
    """Another request of the same call failed for good: this one gives up its retries."""


class EndpointScorer:
    def __init__(
        self,
        url: str,
        *,
        model: str,
        timeout: float = 60.0,
        retries: int = 2,
        backoff: float = 0.5,
        backoff_max: float = 30.0,
        concurrency: int = 1,
        prompts_per_request: int = 1,
        api_key: str | None = None,
        allowed_hosts: Iterable[str] | None = None,
    ) -> None:
        base = url.rstrip("/")
        if not base.startswith(("http://", "https://")):
            raise ModelConfigurationError(f"endpoint URL must start with http(s)://, got {url!r}")
        if allowed_hosts is not None:
            problem = endpoint_url_problem(url, allowed_hosts)
            if problem:
                raise ModelConfigurationError(problem)
        if concurrency < 1 or prompts_per_request < 1 or retries < 0:
            raise ModelConfigurationError(
                "endpoint concurrency and prompts per request must be at least 1 and retries "
                f"at least 0, got {concurrency}, {prompts_per_request} and {retries}"
            )
        if not base.endswith("/completions"):
            base = base + ("/completions" if base.endswith("/v1") else "/v1/completions")
        self.url = base
        self.model = model
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.backoff_max = backoff_max
        self.concurrency = concurrency
        self.prompts_per_request = prompts_per_request
        self.api_key = api_key
        # False once the server refused a list of prompts: one prompt per request from then on.
        self.lists_accepted = prompts_per_request > 1
        self._lock = threading.Lock()

    # ---------------------------------------------------------------- transport
    def _delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds before retry `attempt` (1 = the first retry): the server's Retry-After when
        it gave one (never sooner, a little jitter later), else backoff × 2^(attempt-1) with
        equal jitter (between half and all of it); both capped at `backoff_max`."""
        if retry_after is not None:
            return min(retry_after * random.uniform(1.0, 1.1), self.backoff_max)
        step = min(self.backoff * 2 ** (attempt - 1), self.backoff_max)
        return random.uniform(step / 2, step)

    def _post(self, payload: dict, stop: threading.Event | None = None) -> dict:
        body = json.dumps(payload).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        attempts = self.retries + 1
        for attempt in range(1, attempts + 1):
            retry_after: float | None = None
            request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
            try:
                with _OPENER.open(request, timeout=self.timeout) as response:
                    return json.loads(response.read().decode("utf-8"))
            except urllib.error.HTTPError as exc:
                status = f"HTTP {exc.code} {exc.reason}".strip()
                # The body may hold anything the server chose to say: the log only.
                try:
                    said = exc.read(2000).decode("utf-8", "replace")
                except (OSError, http.client.HTTPException):
                    said = ""
                finally:
                    exc.close()
                logger.warning("endpoint %s answered %s: %s", self.url, status, said)
                if 300 <= exc.code < 400:
                    raise ModelConfigurationError(
                        f"endpoint {self.url} answered with a redirect ({status}); "
                        "redirects are not followed: register the final URL"
                    ) from None
                if 400 <= exc.code < 500 and exc.code != 429:
                    raise _Refused(status) from None
                retry_after = retry_after_seconds(exc.headers.get("Retry-After"))
                last = status
            except TimeoutError:
                last = f"timed out after {self.timeout:g}s"
            except urllib.error.URLError as exc:  # refused connection, unknown host, ...
                reason = exc.reason
                if isinstance(reason, TimeoutError):
                    last = f"timed out after {self.timeout:g}s"
                elif isinstance(reason, Exception):
                    last = f"{type(reason).__name__}: {reason}"
                else:
                    last = f"URLError: {reason}"
            except (ConnectionError, http.client.HTTPException, ValueError) as exc:
                # A dropped connection, a truncated or non-JSON answer.
                last = f"{type(exc).__name__}: {exc}"
            if attempt == attempts:
                break
            delay = self._delay(attempt, retry_after)
            logger.info(
                "endpoint %s: %s; retry %d of %d in %.2fs",
                self.url,
                last,
                attempt,
                self.retries,
                delay,
            )
            if stop is None:
                time.sleep(delay)
            elif stop.wait(delay):
                raise _Stopped
        error = EndpointError(f"endpoint {self.url} failed after {attempts} attempt(s): {last}")
        error.url, error.status, error.attempts = self.url, last, attempts
        raise error

    def _echo(self, prompts: list[str], stop: threading.Event | None = None) -> list[dict]:
        """Per prompt, the ``logprobs`` block: tokens, token_logprobs, text_offset. One prompt
        goes as a string (every server takes that), several as a list."""
        if len(prompts) > 1 and not self.lists_accepted:
            raise _ListRefused(None)
        try:
            data = self._post(
                {
                    "model": self.model,
                    "prompt": prompts if len(prompts) > 1 else prompts[0],
                    "echo": True,
                    "logprobs": 1,
                    "max_tokens": 0,
                    "temperature": 0,
                },
                stop,
            )
        except _Refused as exc:
            if len(prompts) > 1:
                # Remembered here, before this thread takes up its next list: once is enough.
                self._lists_refused(exc.status, len(prompts))
                raise _ListRefused(exc.status) from None
            raise ModelConfigurationError(
                f"endpoint {self.url} refused the request ({exc.status})"
            ) from None
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or len(choices) != len(prompts):
            count = len(choices) if isinstance(choices, list) else 0
            raise EndpointError(
                f"endpoint {self.url} returned {count} choices for {len(prompts)} prompts"
            )
        blocks: list[dict | None] = [None] * len(prompts)
        for position, choice in enumerate(choices):
            index = choice.get("index", position)
            known = isinstance(index, int) and 0 <= index < len(prompts)
            if not known or blocks[index] is not None:
                raise EndpointError(
                    f"endpoint {self.url} returned choice index {index!r} for "
                    f"{len(prompts)} prompts"
                )
            block = choice.get("logprobs") or {}
            offsets, values = block.get("text_offset"), block.get("token_logprobs")
            if not isinstance(offsets, list) or not isinstance(values, list):
                raise ModelConfigurationError(
                    f"endpoint {self.url} returned no echoed log-probabilities "
                    "(needs echo=True with logprobs; vLLM supports it)"
                )
            if len(offsets) != len(values):
                raise EndpointError(
                    f"endpoint {self.url} returned {len(values)} log-probabilities for "
                    f"{len(offsets)} tokens"
                )
            blocks[index] = block
        return blocks  # type: ignore[return-value]

    def _lists_refused(self, status: str, size: int) -> None:
        with self._lock:
            if self.lists_accepted:
                self.lists_accepted = False
                logger.warning(
                    "endpoint %s refused a list of %d prompts (%s): sending one prompt per "
                    "request from now on",
                    self.url,
                    size,
                    status,
                )

    def _blocks(self, texts: Sequence[str]) -> list[dict]:
        """The echo block of every text, in input order: requests of up to
        `prompts_per_request` texts, at most `concurrency` of them in flight. The first error
        that is not retried any more stops the rest (queued requests are dropped, retries
        waiting out a back-off give up) and is raised."""
        blocks: list[dict | None] = [None] * len(texts)
        size = self.prompts_per_request if self.lists_accepted else 1
        requests = [list(range(s, min(s + size, len(texts)))) for s in range(0, len(texts), size)]
        if not requests:
            return []
        stop = threading.Event()
        pool = ThreadPoolExecutor(
            max_workers=min(self.concurrency, len(requests)), thread_name_prefix="endpoint"
        )

        def echo(prompts: list[str]) -> list[dict]:
            if stop.is_set():
                raise _Stopped
            try:
                return self._echo(prompts, stop)
            except _ListRefused:
                raise
            except BaseException:
                stop.set()  # before this thread takes up the next request
                raise

        def send(request: list[int]) -> Future:
            return pool.submit(echo, [texts[i] for i in request])

        try:
            pending = {send(request): request for request in requests}
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    request = pending.pop(future)
                    try:
                        answer = future.result()
                    except _ListRefused:
                        pending.update({send([i]): [i] for i in request})
                        continue
                    except _Stopped:
                        continue  # the request that stopped it is raised when its turn comes
                    for i, block in zip(request, answer, strict=True):
                        blocks[i] = block
        except BaseException:
            # Raise now: requests still in flight end within their timeout, in the background.
            stop.set()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return blocks  # type: ignore[return-value]

    # ---------------------------------------------------------------- scoring
    def score_options(
        self,
        items: Sequence[tuple[str, Sequence[str]]],
        *,
        batch_size: int = 8,
        groups: Sequence[Hashable] | None = None,
    ) -> list[OptionScores]:
        """Σ log P(option tokens | prompt) and token counts for every option of every item, in
        item order. `batch_size` and `groups` (one hashable per item: items sharing a prompt
        prefix) are the local scorer's interface: requests are shaped by `prompts_per_request`
        and `concurrency`, and the server caches shared prefixes itself (vLLM)."""
        owners: list[tuple[int, int]] = []  # per text: (item, prompt length in characters)
        texts: list[str] = []
        for index, (prompt, options) in enumerate(items):
            prompt = unicodedata.normalize("NFC", prompt)
            for option in options:
                owners.append((index, len(prompt)))
                texts.append(prompt + unicodedata.normalize("NFC", option))
        per_item: list[list[OptionScore]] = [[] for _ in items]
        for (index, cut), block in zip(owners, self._blocks(texts), strict=True):
            pairs = zip(block["token_logprobs"], block["text_offset"], strict=True)
            values = [lp for lp, offset in pairs if offset >= cut]
            if not values or any(v is None for v in values):
                raise EndpointError(f"endpoint {self.url} scored no option tokens")
            per_item[index].append(OptionScore(float(sum(values)), len(values)))
        return [OptionScores(tuple(scores)) for scores in per_item]

    def sentence_logprob(
        self, texts: Sequence[str], *, batch_size: int = 16
    ) -> list[tuple[float, int]]:
        """(Σ log-prob, n) over the tokens the server scored (its first token has none unless
        the server's tokenizer adds BOS), in input order; `batch_size` as in `score_options`."""
        blocks = self._blocks([unicodedata.normalize("NFC", t) for t in texts])
        out: list[tuple[float, int]] = []
        for block in blocks:
            values = [lp for lp in block["token_logprobs"] if lp is not None]
            out.append((float(sum(values)), len(values)))
        return out

    def model_info(self) -> dict:
        return {
            "kind": "endpoint",
            "name": self.model,
            "url": self.url,
            "revision": None,
            "sha256": None,
            "dtype": None,
            "device": "remote",
        }
