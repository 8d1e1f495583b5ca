"""A small OpenAI-protocol completions server for tests: the real protocol, a real model.

``POST /v1/completions`` with ``echo=True, logprobs=1, max_tokens=0`` (a string or a list of
strings as ``prompt``) answers what vLLM answers for prompt scoring: per prompt a choice with
``index``, the echoed ``text`` and ``logprobs`` {``tokens``, ``token_logprobs``,
``text_offset``, ``top_logprobs``}, the first token's log-probability null (nothing conditions
it). The log-probabilities come from a causal LM loaded with transformers (the suite's tiny
GPT-2, ``tests/conftest.py`` ``tiny_gpt2_dir``); ``text_offset`` holds character offsets into
the echoed text, from the fast tokenizer's ``offset_mapping`` (a byte-level piece inside a
Devanagari character starts at that character), and ``"".join(tokens)`` is the text.
``GET /v1/models`` lists the one model. Requests for another model answer 404, anything but
prompt scoring 400 (this server does not generate).

For the client's retry and concurrency tests it can misbehave on purpose: `Fault` entries
queued with `inject` (or ``--fail-first N --fail-status 429`` on the command line) are taken by
the next requests in arrival order (answer a status, with ``Retry-After`` if given; or sleep,
then answer normally, past the client's timeout if it is short). ``accept_lists=False`` refuses
a list prompt with 400, as servers without batch support do; ``reverse_choices=True`` returns
the choices of a list last-first (their ``index`` says which is which); ``gather=k`` holds each
request until k are in flight at once (or ``gather_wait`` seconds pass), so that a client that
sends k concurrent requests is seen doing so. It counts requests in flight and their maximum.

In a test: ``with OpenAICompletionsServer(tiny_gpt2_dir, model_name="tiny") as server:`` (a
thread on 127.0.0.1, a free port; ``server.url`` is ``http://127.0.0.1:PORT``). From a shell:
``python -m tests.support_openai_server MODEL_DIR --port 8000 --model-name tiny``.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


@dataclass(frozen=True)
class Fault:
    """What one request gets instead of a plain answer: `sleep` seconds first, then `status`
    (with a ``Retry-After: retry_after`` header when given), or the normal answer when
    `status` is None."""

    status: int | None = None
    retry_after: str | None = None
    sleep: float = 0.0


class OpenAICompletionsServer:
    def __init__(
        self,
        model_dir: str | Path,
        *,
        model_name: str = "tiny",
        host: str = "127.0.0.1",
        port: int = 0,
        accept_lists: bool = True,
        reverse_choices: bool = False,
        gather: int = 1,
        gather_wait: float = 0.5,
    ) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self._torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(model_dir)
        if not self.tokenizer.is_fast:
            raise ValueError("the test server needs a fast tokenizer (offset_mapping)")
        self.model = AutoModelForCausalLM.from_pretrained(model_dir).eval()
        self.model_name = model_name
        self.accept_lists = accept_lists
        self.reverse_choices = reverse_choices
        self.gather = gather
        self.gather_wait = gather_wait
        self._faults: deque[Fault] = deque()
        self._state = threading.Condition()
        self._model_lock = threading.Lock()  # one forward pass at a time, like one GPU
        self.reset()
        self.httpd = ThreadingHTTPServer((host, port), self._handler())
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://{host}:{self.port}"
        self._thread: threading.Thread | None = None

    # ---------------------------------------------------------------- control
    def start(self) -> OpenAICompletionsServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        with self._state:
            self._wake.set()  # sleeping faults and gathering requests stop waiting
            self._state.notify_all()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> OpenAICompletionsServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def inject(self, *faults: Fault) -> None:
        """The next len(faults) completion requests (in arrival order) get these."""
        with self._state:
            self._faults.extend(faults)

    def reset(self) -> None:
        """Forget counts, recorded requests and pending faults. Requests still sleeping on a
        fault are woken and no longer counted: a test's leftovers never reach the next one."""
        with self._state:
            self._generation = getattr(self, "_generation", 0) + 1
            if hasattr(self, "_wake"):
                self._wake.set()
            self._wake = threading.Event()
            self._faults.clear()
            self.requests: list[dict] = []  # completion payloads, in arrival order
            self.arrivals: list[float] = []  # time.monotonic() of each, same order
            self.statuses: list[int] = []  # the status each request got, in answer order
            self.answered: list[object] = []  # the prompt of each 200 answer, in answer order
            self.in_flight = 0
            self.max_in_flight = 0

    @property
    def faults_left(self) -> int:
        with self._state:
            return len(self._faults)

    # ---------------------------------------------------------------- the model
    def echo(self, text: str) -> dict:
        """The OpenAI ``logprobs`` block of `text` scored by the model, as vLLM returns it
        for ``echo=True, logprobs=1, max_tokens=0``."""
        torch = self._torch
        encoded = self.tokenizer(text, return_offsets_mapping=True)
        ids, spans = encoded["input_ids"], encoded["offset_mapping"]
        if not ids:
            return {"tokens": [], "token_logprobs": [], "text_offset": [], "top_logprobs": []}
        with self._model_lock, torch.inference_mode():
            logits = self.model(torch.tensor([ids])).logits[0].float().log_softmax(-1)
        token_logprobs: list[float | None] = [None]
        top_logprobs: list[dict | None] = [None]
        for position in range(1, len(ids)):
            row = logits[position - 1]
            best = int(row.argmax())
            token_logprobs.append(float(row[ids[position]]))
            top_logprobs.append(
                {
                    self.tokenizer.decode([ids[position]]): float(row[ids[position]]),
                    self.tokenizer.decode([best]): float(row[best]),
                }
            )
        tokens, seen = [], 0
        for start, end in spans:
            # Byte-level pieces of one character share its span: the first carries the text.
            tokens.append(text[max(start, seen) : max(end, seen)])
            seen = max(seen, end)
        return {
            "tokens": tokens,
            "token_logprobs": token_logprobs,
            "text_offset": [start for start, _ in spans],
            "top_logprobs": top_logprobs,
        }

    def _complete(self, payload: dict) -> tuple[int, dict]:
        model = payload.get("model")
        if model != self.model_name:
            message = f"The model `{model}` does not exist."
            return 404, {"error": {"message": message, "type": "NotFoundError", "code": 404}}
        prompt = payload.get("prompt")
        is_list = isinstance(prompt, list)
        prompts = prompt if is_list else [prompt]
        if is_list and not self.accept_lists:
            return 400, _bad_request("prompt must be a string (this server takes one prompt)")
        if not prompts or not all(isinstance(p, str) for p in prompts):
            return 400, _bad_request("prompt must be a string or a list of strings")
        if not (payload.get("echo") is True and payload.get("max_tokens") == 0):
            return 400, _bad_request("this server only scores prompts: echo=true, max_tokens=0")
        if not isinstance(payload.get("logprobs"), int):
            return 400, _bad_request("logprobs must be an integer")
        choices = []
        for index, text in enumerate(prompts):
            block = self.echo(text)
            choices.append(
                {"index": index, "text": text, "logprobs": block, "finish_reason": "length"}
            )
        if self.reverse_choices:
            choices.reverse()
        used = sum(len(c["logprobs"]["tokens"]) for c in choices)
        return 200, {
            "id": f"cmpl-{len(self.requests)}",
            "object": "text_completion",
            "created": int(time.time()),
            "model": self.model_name,
            "choices": choices,
            "usage": {"prompt_tokens": used, "completion_tokens": 0, "total_tokens": used},
        }

    # ---------------------------------------------------------------- HTTP
    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # test output stays quiet
                pass

            def do_GET(self):  # noqa: N802
                if self.path.rstrip("/") != "/v1/models":
                    self._send(404, {"error": {"message": "not found", "code": 404}})
                    return
                model = {"id": server.model_name, "object": "model", "owned_by": "kasauti-tests"}
                self._send(200, {"object": "list", "data": [model]})

            def do_POST(self):  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.path.rstrip("/") != "/v1/completions":
                    self._send(404, {"error": {"message": "not found", "code": 404}})
                    return
                try:
                    payload = json.loads(raw)
                except ValueError:
                    self._send(400, _bad_request("the body is not JSON"))
                    return
                code, body, headers = server._serve(payload)
                self._send(code, body, headers)

            def _send(self, code, body, headers=()):
                data = json.dumps(body).encode("utf-8")
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in headers:
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and left: what a real server sees too

        return Handler

    def _serve(self, payload: dict) -> tuple[int, dict, list[tuple[str, str]]]:
        with self._state:
            generation, wake = self._generation, self._wake
            self.requests.append(payload)
            self.arrivals.append(time.monotonic())
            fault = self._faults.popleft() if self._faults else None
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self._state.notify_all()
            if self.gather > 1:
                self._state.wait_for(
                    lambda: self.in_flight >= self.gather or wake.is_set(),
                    timeout=self.gather_wait,
                )
        try:
            if fault is not None and fault.sleep:
                wake.wait(fault.sleep)
            if fault is not None and fault.status is not None:
                headers = [("Retry-After", fault.retry_after)] if fault.retry_after else []
                body = {"error": {"message": "injected by the test", "code": fault.status}}
                code = fault.status
            else:
                code, body = self._complete(payload)
                headers = []
        finally:
            # Out of flight before the answer is written: the client may send its next request
            # as soon as it reads this one, and must never be counted twice.
            with self._state:
                if generation == self._generation:
                    self.in_flight -= 1
                    self.statuses.append(code)
                    if code == 200:
                        self.answered.append(payload.get("prompt"))
        return code, body, headers


def _bad_request(message: str) -> dict:
    return {"error": {"message": message, "type": "BadRequestError", "code": 400}}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model_dir")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0: a free port (printed)")
    parser.add_argument("--model-name", default="tiny")
    parser.add_argument("--no-lists", action="store_true", help="refuse list prompts (400)")
    parser.add_argument("--fail-first", type=int, default=0, metavar="N")
    parser.add_argument("--fail-status", type=int, default=503, help="429, 503, ...")
    parser.add_argument("--retry-after", default=None, help="Retry-After of those answers")
    parser.add_argument("--sleep", type=float, default=0.0, help="seconds those requests wait")
    args = parser.parse_args(argv)
    server = OpenAICompletionsServer(
        args.model_dir,
        model_name=args.model_name,
        host=args.host,
        port=args.port,
        accept_lists=not args.no_lists,
    )
    status = None if args.sleep and args.fail_status == 0 else args.fail_status
    server.inject(*[Fault(status, args.retry_after, args.sleep)] * args.fail_first)
    print(server.url, flush=True)
    try:
        server.httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.httpd.server_close()


if __name__ == "__main__":
    main()
