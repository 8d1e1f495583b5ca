"""Option and sentence scoring against an OpenAI-compatible ``/v1/completions`` endpoint
(vLLM, llama.cpp server, TGI's OpenAI route) with ``echo=True, logprobs=1, max_tokens=0``: the
server returns the log-probability of every prompt token, and the tokens of an option are the
ones whose ``text_offset`` lies at or after the end of the prompt.

Same interface as ``worker.engines.lm_scorer.CausalLMScorer`` (``score_options``,
``sentence_logprob``, ``model_info``). Standard library only (urllib). Each request has a
timeout; timeouts, refused connections and 5xx answers are retried ``retries`` times with a
doubling back-off, then raise `EndpointError` (a ``ConnectionError``) naming the URL. A 4xx
answer (unknown model, a server that does not support ``echo``) is a configuration problem:
`ModelConfigurationError`, not retried.

Server-side requests go only where the deployment allows: `endpoint_url_problem` checks a URL
against an allow-list of ``host`` or ``host:port`` entries (Kasauti passes
``KASAUTI_EVAL_ENDPOINT_HOSTS``), http/https only, no credentials, query or fragment. Redirects
are never followed (a 3xx is a configuration error). Errors keep the HTTP status and its short
reason; a response body goes to this module's logger only, never into the error text (which
ends up in a run's error, readable by annotators).
"""

from __future__ import annotations

import json
import logging
import time
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Hashable, Iterable, Sequence

from worker.engines.errors import ModelConfigurationError
from worker.engines.lm_scorer import OptionScore, OptionScores

logger = logging.getLogger(__name__)

ALLOW_LIST_SETTING = "KASAUTI_EVAL_ENDPOINT_HOSTS"
_DEFAULT_PORTS = {"http": 80, "https": 443}


class EndpointError(ConnectionError):
    """The endpoint did not answer usefully after every retry."""


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


class EndpointScorer:
    def __init__(
        self,
        url: str,
        *,
        model: str,
        timeout: float = 60.0,
        retries: int = 2,
        backoff: float = 0.5,
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
        if not base.endswith("/completions"):
            base = base + ("/completions" if base.endswith("/v1") else "/v1/completions")
        self.url = base
        self.model = model
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.api_key = api_key

    # ---------------------------------------------------------------- transport
    def _post(self, payload: dict) -> dict:
        body = json.dumps(payload).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last: Exception | None = None
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
            try:
                with _OPENER.open(request, timeout=self.timeout) as response:
                    return json.loads(response.read().decode("utf-8"))
            except urllib.error.HTTPError as exc:
                status = f"HTTP {exc.code} {exc.reason}".strip()
                # The body may hold anything the server chose to say: the log only.
                logger.warning(
                    "endpoint %s answered %s: %s",
                    self.url,
                    status,
                    exc.read(2000).decode("utf-8", "replace"),
                )
                if 300 <= exc.code < 400:
                    raise ModelConfigurationError(
                        f"endpoint {self.url} answered with a redirect ({status}); "
                        "redirects are not followed: register the final URL"
                    ) from None
                if 400 <= exc.code < 500:
                    raise ModelConfigurationError(
                        f"endpoint {self.url} refused the request ({status})"
                    ) from None
                last = EndpointError(status)
            except TimeoutError as exc:
                last = TimeoutError(f"timed out after {self.timeout:g}s")
                last.__cause__ = exc
            except urllib.error.URLError as exc:
                last = exc.reason if isinstance(exc.reason, Exception) else exc
            except (ConnectionError, json.JSONDecodeError) as exc:
                last = exc
        raise EndpointError(
            f"endpoint {self.url} failed after {self.retries + 1} attempt(s): "
            f"{type(last).__name__}: {last}"
        )

    def _echo(self, prompts: list[str]) -> list[dict]:
        """Per prompt, the ``logprobs`` block: tokens, token_logprobs, text_offset."""
        data = self._post(
            {
                "model": self.model,
                "prompt": prompts,
                "echo": True,
                "logprobs": 1,
                "max_tokens": 0,
                "temperature": 0,
            }
        )
        choices = data.get("choices")
        if not isinstance(choices, list) or len(choices) != len(prompts):
            raise EndpointError(
                f"endpoint {self.url} returned {len(choices or [])} choices for "
                f"{len(prompts)} prompts"
            )
        blocks: list[dict | None] = [None] * len(prompts)
        for position, choice in enumerate(choices):
            block = choice.get("logprobs") or {}
            if "token_logprobs" not in block or "text_offset" not in block:
                raise ModelConfigurationError(
                    f"endpoint {self.url} returned no echoed log-probabilities "
                    "(needs echo=True with logprobs; vLLM supports it)"
                )
            blocks[choice.get("index", position)] = block
        return blocks  # type: ignore[return-value]

    # ---------------------------------------------------------------- scoring
    def score_options(
        self,
        items: Sequence[tuple[str, Sequence[str]]],
        *,
        batch_size: int = 8,
        groups: Sequence[Hashable] | None = None,
    ) -> list[OptionScores]:
        """`groups` (one hashable per item: items sharing a prompt prefix) is accepted for the
        local scorer's interface; the server caches shared prefixes itself (vLLM)."""
        texts: list[tuple[int, int, str]] = []  # (item, prompt length, prompt + option)
        for index, (prompt, options) in enumerate(items):
            prompt = unicodedata.normalize("NFC", prompt)
            for option in options:
                texts.append((index, len(prompt), prompt + unicodedata.normalize("NFC", option)))
        per_item: list[list[OptionScore]] = [[] for _ in items]
        step = max(1, batch_size) * 3
        for start in range(0, len(texts), step):
            chunk = texts[start : start + step]
            blocks = self._echo([text for _, _, text in chunk])
            for (index, cut, _), block in zip(chunk, blocks, strict=True):
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
        the server's tokenizer adds BOS)."""
        out: list[tuple[float, int]] = []
        for start in range(0, len(texts), batch_size):
            chunk = [unicodedata.normalize("NFC", t) for t in texts[start : start + batch_size]]
            for block in self._echo(chunk):
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
