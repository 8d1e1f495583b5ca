"""Survey submit benchmark: POST /s/<slug>/answer/ with 50 concurrent respondents, gunicorn,
production settings, PostgreSQL. Goal (issue 20): p95 <= 100 ms.

Run (PostgreSQL on 127.0.0.1:5432, trust auth, user postgres; Redis on 127.0.0.1:6379):

    .venv/bin/python bench/survey_submit.py                  # ~1.5 minutes
    .venv/bin/python bench/survey_submit.py --think 0        # closed loop: no pause at all

Data: a dedicated database (kasauti_bench_survey_submit, dropped at the end) with an open
survey in Hindi and Spanish, a response cap (so every submit takes the capped path: the
survey row locked, the answers counted, the answer inserted) and --existing answers already
in it (default 10,000: the cap's count is not run on an empty table).

Server: gunicorn (gthread, --workers x --threads, default 2 x 4 for the 2-core machine) with
kasauti.settings.production (DEBUG off, persistent connections, static files collected into a
temporary STATIC_ROOT as a deployment would), the cache (throttle counters) in Redis as
production runs it (KASAUTI_CACHE_URL), behind one trusted proxy (KASAUTI_NUM_PROXIES=1): each
respondent comes from its own address in X-Forwarded-For, as 50 people would. The throttle
stays on, its rate raised (KASAUTI_SURVEY_SUBMIT_RATE, default here 100000/min) so the bench
measures submits, not 429s; a 429 would count as an error.

Load: --clients separate client processes (not threads), each a respondent with its own
keep-alive connection: it opens the start page (CSRF cookie), consents (respondent cookie),
skips the demographic questions, then submits answers (a Hindi stereotype, a group, exposure,
an experience) for --seconds after --warmup unmeasured seconds, pausing a random
0.5-1.5 x --think seconds between submits (default 1 s: each of 50 respondents answering once
a second, ~50 submits/s, far more than people typing answers produce). Every submit must
answer 303 to the thanks page.

Baseline, same run, same load shape: GET /healthz (no database, no template): the floor of
a request through gunicorn and the middleware on this machine at this moment. The report:
p50/p95/p99 and req/s for both, submit p95 against the goal, submit p50 over the floor's p50,
CPU per submit in gunicorn and PostgreSQL, and the answers counted in the database afterwards.
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing
import os
import random
import re
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _db import ROOT, bench_database  # noqa: E402 (bench/ is not a package)
from _server import backend_pids, gunicorn_pids, gunicorn_process  # noqa: E402

DB_NAME = "kasauti_bench_survey_submit"
SLUG = "bench-survey"
GOAL_P95 = 0.100
CSRF_RE = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')
ANSWER = "फलाँ जगह के लोग कंजूस होते हैं, ऐसा मैंने दफ़्तर में कई बार सुना है।"
EXPERIENCE = "बस में दो लोग यही कह रहे थे, और किसी ने उन्हें नहीं टोका।"


# --- data ----------------------------------------------------------------------------------


def _load(existing: int) -> None:
    from django.utils import timezone

    from apps.catalog.models import Dataset
    from apps.surveys.models import Answer, Respondent
    from apps.surveys.questionnaire import content_problems, default_content
    from apps.surveys.services.surveys import survey_create, survey_open

    categories = [
        {
            "key": "religion",
            "category": "Religion",
            "labels": {"hi": "धर्म", "es": "Religión"},
            "allow_other": True,
            "groups": [
                {"key": "muslim", "labels": {"hi": "मुसलमान", "es": "Musulmanes"}},
                {"key": "hindu", "labels": {"hi": "हिंदू", "es": "Hindúes"}},
            ],
        },
        {
            "key": "region",
            "category": "Region",
            "labels": {"hi": "क्षेत्र", "es": "Región"},
            "allow_other": True,
            "groups": [{"key": "bihar", "labels": {"hi": "बिहार", "es": "Bihar"}}],
        },
    ]
    content = default_content(languages=["hi", "es"], categories=categories)
    assert content_problems(content) == [], content_problems(content)
    dataset = Dataset.objects.create(name="survey-bench", inclusion_rule="bharatbbq")
    survey = survey_create(
        dataset=dataset, slug=SLUG, languages=["hi", "es"], content=content,
        response_cap=10_000_000,
    )  # fmt: skip
    survey = survey_open(survey=survey)
    now = timezone.now()
    for start in range(0, existing, 1000):
        respondents = Respondent.objects.bulk_create(
            Respondent(survey=survey, token_hash=secrets.token_hex(32), demographics_asked=True)
            for _ in range(min(1000, existing - start) // 4 + 1)
        )
        Answer.objects.bulk_create(
            Answer(
                survey=survey, version=survey.current_version,
                respondent=respondents[i % len(respondents)], language="hi",
                category_key="religion", group_keys=["muslim"], text=f"{ANSWER} {start + i}",
                heard=True, submitted_at=now,
            )
            for i in range(min(1000, existing - start))
        )  # fmt: skip
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE surveys_answer")
        cursor.execute("VACUUM ANALYZE surveys_respondent")


def _answers() -> int:
    from apps.surveys.models import Answer

    return Answer.objects.filter(survey__slug=SLUG).count()


# --- server --------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server_env(static_root: str, rate: str) -> dict:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "kasauti.settings.production",
        "SECRET_KEY": secrets.token_urlsafe(48),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "KASAUTI_TLS": "0",  # plain HTTP on loopback
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{DB_NAME}",
        "KASAUTI_CACHE_URL": os.environ.get("KASAUTI_BENCH_CACHE_URL", "redis://127.0.0.1:6379/3"),
        "KASAUTI_NUM_PROXIES": "1",
        "KASAUTI_SURVEY_SUBMIT_RATE": rate,
        "KASAUTI_STATIC_ROOT": static_root,
        "PYTHONPATH": str(ROOT),
    }


def _collectstatic(env: dict) -> None:
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
                   cwd=ROOT, env=env, check=True)  # fmt: skip


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _cpu_seconds(pids) -> float:
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / ticks


# --- clients -------------------------------------------------------------------------------


class Respondent:
    """One person's browser: a keep-alive connection, its cookies, its own address."""

    def __init__(self, port: int, number: int) -> None:
        self.port = port
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.cookies: dict[str, str] = {}
        self.address = f"10.{number // 250}.{number % 250}.{1 + number % 200}"
        self.csrf = ""

    def request(self, method: str, path: str, form: dict | None = None):
        headers = {"X-Forwarded-For": self.address}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode({**form, "csrfmiddlewaretoken": self.csrf}, doseq=True)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException):
            self.connection.close()  # reconnects on the next request
            raise
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, data

    def begin(self) -> None:
        status, page = self.request("GET", f"/s/{SLUG}/?lang=hi")
        assert status == 200, status
        self.csrf = CSRF_RE.search(page).group(1).decode()
        status, _ = self.request("POST", f"/s/{SLUG}/", {"consent": "yes", "lang": "hi"})
        assert status == 303, status
        status, _ = self.request("POST", f"/s/{SLUG}/about-you/", {"lang": "hi", "skip": "1"})
        assert status == 303, status

    def submit(self, n: int) -> int:
        status, _ = self.request("POST", f"/s/{SLUG}/answer/", {
            "lang": "hi", "version": "1", "category": "religion",
            "group": ["religion/muslim"], "text": f"{ANSWER} #{n}", "heard": "1",
            "affected": "1" if n % 3 == 0 else "", "experience": EXPERIENCE,
        })  # fmt: skip
        return status


def _client(port, number, kind, think, start_at, stop_at, results) -> None:
    random.seed(number)
    person = Respondent(port, number)
    if kind == "submit":
        person.begin()
    times, errors, n = [], 0, 0
    while time.monotonic() < start_at:  # everyone begins together
        time.sleep(0.01)
    while time.monotonic() < stop_at:
        n += 1
        started = time.perf_counter()
        try:
            if kind == "submit":
                ok = person.submit(n) == 303
            else:
                ok = person.request("GET", "/healthz")[0] == 200
        except (OSError, http.client.HTTPException):
            ok = False
        elapsed = time.perf_counter() - started
        if ok:
            times.append(elapsed)
        else:
            errors += 1
        if think:
            time.sleep(think * random.uniform(0.5, 1.5))
    results.put({"times": times, "errors": errors})


def _run(args, port: int, kind: str, seconds: float) -> tuple[list[float], int, float]:
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    # Time for every client to open the start page, consent and skip the demographics.
    start_at = time.monotonic() + (max(5.0, args.clients * 0.15) if kind == "submit" else 1.0)
    stop_at = start_at + seconds
    processes = [
        context.Process(target=_client,
                        args=(port, n, kind, args.think, start_at, stop_at, results))
        for n in range(args.clients)
    ]  # fmt: skip
    for process in processes:
        process.start()
    collected = [results.get() for _ in processes]
    for process in processes:
        process.join()
    times = [t for c in collected for t in c["times"]]
    return times, sum(c["errors"] for c in collected), seconds


def _percentiles(values: list[float]) -> dict:
    if len(values) < 2:
        return {"p50": None, "p95": None, "p99": None}
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return {"p50": statistics.median(values), "p95": cuts[94], "p99": cuts[98]}


def _ms(value) -> str:
    return "   n/a" if value is None else f"{value * 1000:6.1f}"


def _report(label: str, times: list[float], errors: int, seconds: float) -> dict:
    cuts = _percentiles(times)
    print(f"  {label:<22} {len(times):6} ok {errors:4} errors {len(times) / seconds:7.1f} req/s  "
          + "  ".join(f"{k} {_ms(v)} ms" for k, v in cuts.items()))  # fmt: skip
    return cuts


def _uptime() -> str:
    return "uptime: " + subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--warmup", type=float, default=5)
    parser.add_argument("--think", type=float, default=1.0,
                        help="mean seconds between one respondent's submits (0: none)")  # fmt: skip
    parser.add_argument("--existing", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--rate", default="100000/min", help="KASAUTI_SURVEY_SUBMIT_RATE")
    args = parser.parse_args()

    print(_uptime())
    with bench_database(DB_NAME), tempfile.TemporaryDirectory() as static_root:
        started = time.perf_counter()
        _load(args.existing)
        before = _answers()
        print(f"loaded a survey with {before:,} answers in {time.perf_counter() - started:.0f} s")
        env = _server_env(static_root, args.rate)
        _collectstatic(env)
        from django.db import connections

        connections.close_all()
        port = _free_port()
        server = gunicorn_process(
            cwd=ROOT, port=port, env=env, workers=args.workers, threads=args.threads
        )
        try:
            _run(args, port, "submit", args.warmup)  # unmeasured: workers warm, pools open
            during_warmup = _answers()
            pids, backends = gunicorn_pids(server.pid), backend_pids(DB_NAME)
            load_before = os.getloadavg()[0]
            floor_cpu = _cpu_seconds(pids)
            floor = _run(args, port, "healthz", args.seconds)
            floor_cpu = _cpu_seconds(pids) - floor_cpu
            cpu = _cpu_seconds(pids), _cpu_seconds(backends)
            submits = _run(args, port, "submit", args.seconds)
            cpu = _cpu_seconds(pids) - cpu[0], _cpu_seconds(backend_pids(DB_NAME)) - cpu[1]
            load_after = os.getloadavg()[0]
        finally:
            _stop(server)
        stored = _answers() - during_warmup
        print(f"\n{args.clients} respondents (client processes), think {args.think} s, "
              f"{args.workers} gunicorn workers x {args.threads} threads, "
              f"{args.seconds:.0f} s each; load {load_before:.2f} -> {load_after:.2f} on "
              f"{os.cpu_count()} cpus")  # fmt: skip
        base = _report("baseline GET /healthz", *floor)
        cuts = _report("POST answer (submit)", *submits)
        if submits[0] and floor[0]:
            print(f"  CPU per request in gunicorn: submit {cpu[0] / len(submits[0]) * 1000:.1f} "
                  f"ms (+ PostgreSQL {cpu[1] / len(submits[0]) * 1000:.1f} ms), healthz "
                  f"{floor_cpu / len(floor[0]) * 1000:.1f} ms")  # fmt: skip
        print(f"  answers stored during the measured run: {stored:,} (303s counted: "
              f"{len(submits[0]):,})")  # fmt: skip
        p95 = cuts["p95"]
        met = p95 is not None and p95 <= GOAL_P95 and submits[1] == 0
        if p95 is not None:
            print(f"\nsubmit p50 {_ms(cuts['p50']).strip()} ms, p95 {_ms(p95).strip()} ms; "
                  f"p95 / goal (100 ms) = {p95 / GOAL_P95:.2f}; submit p50 / healthz p50 = "
                  f"{cuts['p50'] / base['p50']:.1f}x")  # fmt: skip
        print(f"Goal (submit p95 <= 100 ms, {args.clients} respondents): "
              f"{'met' if met else 'NOT met'}")  # fmt: skip
        print(_uptime())


if __name__ == "__main__":
    main()
