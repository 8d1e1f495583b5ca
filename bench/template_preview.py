"""Authoring preview benchmark (issue 21): p95 <= 150 ms for a template of 10,000 combinations,
through the real endpoints, with the full enumeration of the same template as the baseline.

Run (PostgreSQL on 127.0.0.1:5432, trust auth, user postgres):

    .venv/bin/python bench/template_preview.py              # ~1 minute
    .venv/bin/python bench/template_preview.py --requests 400 --runs 3

Data: a dedicated database (kasauti_bench_template_preview, dropped at the end) with Hindi
unknown expressions, a researcher and a dataset.

Templates (Hindi texts, 10,000 combinations = 40,000 instances each):
  * names: NAME1 100 values x NAME2 100 values (with group labels and -def forms);
  * words: NAME1 20 x NAME2 25 x WORD1 4 x WORD2 5.

Measured: --requests POSTs per run and template, through Django's test client (the whole
request path: middleware, session authentication, URL routing, DRF parsing and rendering, the
form, the preview) to both endpoints: the API (`POST /api/templates/preview/`, JSON) and the
page's (`POST /templates/preview/`, the form the browser posts). Every answer must be 200 with
the exact count and 12 instances. p50/p95 per run; the figure is the median of --runs runs.
With --http the API endpoint is also measured through the real server (gunicorn, one worker,
two threads, bench/_server.py) over one keep-alive HTTP connection with an API token: the
"http" rows.

Baseline, same run, same template: the full enumeration the preview avoids: every
combination drawn from the generator (`generators.combinations`, the instantiation job's own
loop without the database write), what a count by enumeration would cost per keystroke.
Reported: preview p50/p95 per endpoint, p95 against the goal, and enumeration / preview p50.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._db import bench_database  # noqa: E402

GOAL_MS = 150.0


def _names(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i:03d}" for i in range(n)]


def templates() -> dict[str, dict]:
    base = {
        "language": "hi",
        "disambiguating_context": "{{NAME1}} टिकट भूल गया था; {{NAME2}} के पास दो टिकट थे।",
        "question_negative": "टिकट कौन भूल गया?",
        "question_non_negative": "कौन तैयार था?",
        "answer_negative": "{{NAME1}}",
        "answer_non_negative": "{{NAME2}}",
        "target_placeholder": "NAME1",
        "pairing": "stereotypical",
        "stereotyped_groups": ["बुज़ुर्ग"],
    }
    elders, young = _names("दादा-", 100), _names("पोता-", 100)
    names = {
        **base,
        "ambiguous_context": "{{NAME1-def}} और {{NAME2}} बस स्टॉप पर इंतज़ार कर रहे थे।",
        "placeholders": {
            "NAME1": elders,
            "NAME1-def": [f"श्री {v}" for v in elders],
            "NAME2": young,
        },
        "placeholder_groups": {"NAME1": ["बुज़ुर्ग"] * 100, "NAME2": ["युवा"] * 100},
    }
    words = {
        **base,
        "ambiguous_context": "{{NAME1}} और {{NAME2}} {{WORD1}} {{WORD2}} इंतज़ार कर रहे थे।",
        "placeholders": {
            "NAME1": _names("दादा-", 20),
            "NAME2": _names("पोता-", 25),
            "WORD1": ["सुबह", "दोपहर", "शाम", "रात"],
            "WORD2": ["बस स्टॉप पर", "स्टेशन पर", "बाज़ार में", "घर पर", "मंदिर के पास"],
        },
        "placeholder_groups": {"NAME1": ["बुज़ुर्ग"] * 20, "NAME2": ["युवा"] * 25},
    }
    return {"names": names, "words": words}


def form_data(content: dict) -> dict:
    """The page's form fields for a content (as static/js/template_editor.js posts them)."""
    from apps.catalog.forms_authoring import TemplateAuthoringForm
    from apps.catalog.models import TemplateVersion

    return TemplateAuthoringForm.data_from(TemplateVersion(**content))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def measure(client, url: str, body, *, requests: int, expected: int, as_json: bool) -> list[float]:
    times = []
    for _ in range(requests):
        started = time.perf_counter()
        if as_json:
            response = client.post(url, body, content_type="application/json")
        else:
            response = client.post(url, body)
        elapsed = (time.perf_counter() - started) * 1000
        answer = response.json()
        assert response.status_code == 200, (url, response.status_code, answer)
        assert answer["count"] == expected and len(answer["instances"]) == 12, answer["count"]
        assert answer["error_count"] == 0, answer["findings"]
        times.append(elapsed)
    return times


class HttpClient:
    """POSTs JSON to the real server (gunicorn, production WSGI app) over one keep-alive
    connection, with the user's API token, as a script or another tool would."""

    def __init__(self, base: str, token: str) -> None:
        import http.client
        from urllib.parse import urlsplit

        self.connection = http.client.HTTPConnection(urlsplit(base).netloc, timeout=60)
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}

    def post(self, url: str, body: str, content_type: str = "application/json"):
        import json

        self.connection.request("POST", url, body=body.encode(), headers=self.headers)
        response = self.connection.getresponse()
        payload = response.read()

        class Answer:
            status_code = response.status

            @staticmethod
            def json():
                return json.loads(payload)

        return Answer()


def enumerate_all(content: dict, unknowns: list[str]) -> tuple[float, int]:
    from apps.catalog import authoring, generators

    spec = authoring._spec(dict(content), "bench")
    started = time.perf_counter()
    count = sum(
        len(combo.variants) for combo in generators.combinations(spec, unknowns, permutations=False)
    )
    return (time.perf_counter() - started) * 1000, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=250)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline-runs", type=int, default=5)
    parser.add_argument(
        "--http",
        action="store_true",
        help="also measure the API endpoint through gunicorn over HTTP (bench/_server.py)",
    )
    args = parser.parse_args()

    with bench_database("kasauti_bench_template_preview"):
        import json

        from django.test import Client

        from apps.accounts.roles import RESEARCHER
        from apps.accounts.services import user_create_with_role
        from apps.catalog.models import UnknownExpression

        for i, text in enumerate(["पता नहीं", "कहा नहीं जा सकता", "निश्चित नहीं"]):
            UnknownExpression.objects.get_or_create(
                language="hi", text=text, defaults={"position": i}
            )
        unknowns = list(
            UnknownExpression.objects.filter(language="hi").values_list("text", flat=True)
        )
        user = user_create_with_role(username="bench", role=RESEARCHER, password="x" * 20)
        client = Client()
        client.force_login(user)

        load_before = os.getloadavg()
        print(
            f"load average before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}"
        )
        print(f"{args.requests} requests per run, {args.runs} runs (median of the runs' figures)")
        results = {}
        from contextlib import ExitStack

        from _server import gunicorn
        from rest_framework.authtoken.models import Token

        token = Token.objects.get_or_create(user=user)[0].key
        stack = ExitStack()
        server = stack.enter_context(gunicorn(workers=1, threads=2)) if args.http else None
        for name, content in templates().items():
            expected = 40_000
            endpoints = {
                "api": ("/api/templates/preview/", json.dumps(content), True),
                "page": ("/templates/preview/", form_data(content), False),
            }
            for endpoint, (url, body, as_json) in endpoints.items():
                measure(client, url, body, requests=10, expected=expected, as_json=as_json)  # warm
                p50s, p95s = [], []
                for _ in range(args.runs):
                    times = measure(client, url, body, requests=args.requests, expected=expected,
                                    as_json=as_json)  # fmt: skip
                    p50s.append(statistics.median(times))
                    p95s.append(percentile(times, 0.95))
                results[(name, endpoint)] = (statistics.median(p50s), statistics.median(p95s), p95s)
            if server is not None:
                http = HttpClient(server, token)
                url, body = "/api/templates/preview/", json.dumps(content)
                measure(http, url, body, requests=10, expected=expected, as_json=True)  # warm
                p50s, p95s = [], []
                for _ in range(args.runs):
                    times = measure(http, url, body, requests=args.requests, expected=expected,
                                    as_json=True)  # fmt: skip
                    p50s.append(statistics.median(times))
                    p95s.append(percentile(times, 0.95))
                results[(name, "http")] = (statistics.median(p50s), statistics.median(p95s), p95s)
            enum_times = []
            for _ in range(args.baseline_runs):
                elapsed, count = enumerate_all(content, unknowns)
                assert count == expected, count
                enum_times.append(elapsed)
            results[(name, "enumeration")] = statistics.median(enum_times)

        stack.close()
        load_after = os.getloadavg()
        print()
        print(f"{'template':8} {'endpoint':6} {'p50 ms':>8} {'p95 ms':>8} {'p95/goal':>9} "
              f"{'enum ms':>9} {'enum/p50':>9}  p95 of each run")  # fmt: skip
        for (name, endpoint), value in results.items():
            if endpoint == "enumeration":
                continue
            p50, p95, runs = value
            enum = results[(name, "enumeration")]
            print(
                f"{name:8} {endpoint:6} {p50:8.1f} {p95:8.1f} {p95 / GOAL_MS:9.2f} {enum:9.0f} "
                f"{enum / p50:9.1f}  {', '.join(f'{r:.1f}' for r in runs)}"
            )
        print()
        print("baseline: full enumeration of the same template (generators.combinations, every "
              f"combination drawn), median of {args.baseline_runs}")  # fmt: skip
        print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
        worst = max(v[1] for k, v in results.items() if k[1] != "enumeration")
        print(f"worst p95 {worst:.1f} ms against the goal {GOAL_MS:.0f} ms: "
              f"{'met' if worst <= GOAL_MS else 'NOT met'}")  # fmt: skip


if __name__ == "__main__":
    main()
