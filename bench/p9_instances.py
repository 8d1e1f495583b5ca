"""P9 benchmark: the instance API at 1,000,000 instances, 8 concurrent clients, gunicorn.

Run (PostgreSQL on 127.0.0.1:5432, trust auth, user postgres):

    .venv/bin/python bench/p9_instances.py                      # ~1 minute once the data exists
    .venv/bin/python bench/p9_instances.py --baseline 6c2a1c6   # + the old code, same run
    .venv/bin/python bench/p9_instances.py --rebuild            # reload the 1M rows (~1 min)

Data: a dedicated database (kasauti_bench_p9) with --total instances loaded by one INSERT ...
SELECT generate_series, a dataset "other" first and "demo" (--demo rows) last, so that demo's
rows sit at the end of the table, behind everything else. It is kept between runs and reused
when it holds exactly that (--drop removes it at the end, --rebuild reloads it).

Server: gunicorn (gthread, --workers x --threads, default 2 x 4 for the machine's 2 cores:
one process per core, since Python serves a request on one core at a time, and threads so a
worker keeps serving while one of its requests waits on PostgreSQL) with the production
settings (kasauti.settings.production: persistent database connections, DEBUG off), on
loopback. --baseline REV serves the same data, same settings, from the code of git revision
REV (extracted with git archive), before the current code: old and new in one run, on the same
machine load.

Load: --clients separate client processes (not threads: no client waits for another's GIL),
each with its own keep-alive HTTP connection and a researcher's API token. Each one asks for
GET /api/instances/?dataset=demo (a first page), follows `next` --depth times (next pages),
and again, for --seconds after --warmup unmeasured seconds. `next` is read from the head of the
body (the page is not parsed as a whole on the measured path; each client checks one full page
while warming up). The report: p50/p95/p99 latency and requests/s for first and next pages,
the CPU seconds spent per request by gunicorn, by the PostgreSQL backends serving it and by the
clients (is the load generator the bottleneck?), the load average, and, in-process, the
queries one first page and one next page run with EXPLAIN ANALYZE of the page query.

Goal: p95 <= 100 ms for first and next pages.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import re
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _db import ROOT, baseline_tree, bench_database  # noqa: E402 (bench/ is not a package)
from _server import backend_pids, gunicorn_pids, gunicorn_process  # noqa: E402

DB_NAME = "kasauti_bench_p9"
USERNAME = "bench"

INSERT_SQL = """
INSERT INTO catalog_instance (
    dataset_id, template_version_id, category_id, language, example_id, question_index,
    combination, name_order, context_condition, question_polarity, pairing, proper_noun,
    placeholder_values, context, question, ans0, ans1, ans2, option_roles, answer_info, label,
    retired_at, created_at
)
SELECT %(dataset)s, %(version)s, %(category)s, 'hi', g, '1', g, '12',
       CASE WHEN g %% 2 = 0 THEN 'ambig' ELSE 'disambig' END,
       CASE WHEN g %% 4 < 2 THEN 'neg' ELSE 'nonneg' END, 'stereotypical', false,
       jsonb_build_object('NAME1', 'दादा ' || g, 'NAME2', 'पोता ' || g),
       'दादा ' || g || ' और पोता ' || g || ' बहुत देर से बस स्टॉप पर इंतज़ार कर रहे थे।',
       'कौन धीमा था?', 'अज्ञात', 'दादा ' || g, 'पोता ' || g,
       '["unknown", "stereotyped", "non_stereotyped"]'::jsonb,
       jsonb_build_object('ans0', jsonb_build_array('अज्ञात', 'unknown'),
                          'ans1', jsonb_build_array('दादा ' || g, 'old'),
                          'ans2', jsonb_build_array('पोता ' || g, 'young')),
       g %% 3, NULL, now()
FROM generate_series(1, %(count)s) g
"""

NEXT_LINK = re.compile(rb'^\{"next":(?:null|"([^"]*)")')


# --- data ----------------------------------------------------------------------------------


def _database_holds(total: int, demo: int) -> bool:
    """Whether the kept database already holds exactly the data this run asks for."""
    import psycopg

    try:
        conn = psycopg.connect(f"host=127.0.0.1 user=postgres dbname={DB_NAME}")
    except psycopg.OperationalError:
        return False
    with conn:
        try:
            counts = dict(
                conn.execute(
                    "SELECT d.name, count(*) FROM catalog_instance i JOIN catalog_dataset d "
                    "ON d.id = i.dataset_id GROUP BY d.name"
                ).fetchall()
            )
            user = conn.execute(
                "SELECT 1 FROM authtoken_token t JOIN auth_user u ON u.id = t.user_id "
                "WHERE u.username = %s",
                [USERNAME],
            ).fetchone()
        except psycopg.Error:
            return False
    return counts == {"other": total - demo, "demo": demo} and user is not None


def _drop_database() -> None:
    import psycopg

    with psycopg.connect("host=127.0.0.1 user=postgres dbname=postgres", autocommit=True) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')


def _load(total: int, demo: int) -> None:
    from django.db import connection

    from apps.accounts.roles import RESEARCHER
    from apps.accounts.services import user_create_with_role
    from apps.catalog.models import Category, Dataset, Template, TemplateVersion

    category = Category.objects.create(name="Age-bench")
    for name, count in (("other", total - demo), ("demo", demo)):
        dataset = Dataset.objects.create(name=name)
        template = Template.objects.create(
            dataset=dataset, external_id=f"{name}-T1", question_index="1", category=category
        )
        version = TemplateVersion.objects.create(
            template=template,
            number=1,
            language="hi",
            ambiguous_context="x",
            disambiguating_context="y",
            question_negative="q",
            question_non_negative="q",
            placeholders={"NAME1": ["a"], "NAME2": ["b"]},
        )
        with connection.cursor() as cursor:
            cursor.execute(
                INSERT_SQL,
                {"dataset": dataset.pk, "version": version.pk, "category": category.pk,
                 "count": count},
            )  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE catalog_instance")
    user_create_with_role(username=USERNAME, role=RESEARCHER, password=secrets.token_hex(16))


# --- server --------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_gunicorn(code: Path, port: int, args) -> subprocess.Popen:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "kasauti.settings.production",
        "SECRET_KEY": secrets.token_urlsafe(48),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "KASAUTI_TLS": "0",  # plain HTTP on loopback
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{DB_NAME}",
        "PYTHONPATH": str(code),
    }
    return gunicorn_process(
        cwd=code, port=port, env=env, workers=args.workers, threads=args.threads
    )


def _wait_until_warm(port: int, token: str, clients: int) -> float:
    """Until every worker has loaded the application: bursts of `clients` concurrent first
    pages until a whole burst is answered within 2 s. A cold worker imports the URLconf,
    the API and opens its database connections on its first request (seconds on a loaded
    machine): without this the first measured requests waited for that (seconds-long p99s
    of the first page in earlier runs of this bench)."""
    import concurrent.futures

    def one(_) -> float:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        start = time.perf_counter()
        connection.request("GET", "/api/instances/?dataset=demo",
                           headers={"Authorization": f"Token {token}"})  # fmt: skip
        response = connection.getresponse()
        response.read()
        connection.close()
        if response.status != 200:
            raise SystemExit(f"the server answered {response.status}")
        return time.perf_counter() - start

    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        while max(pool.map(one, range(clients))) > 2:
            if time.perf_counter() - started > 180:
                raise SystemExit("the server did not warm up in 3 minutes")
    return time.perf_counter() - started


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _cpu_seconds(pids) -> tuple[float, float]:
    """(user, system) CPU seconds of these processes (those still running). System time is
    mostly the loopback socket work of sending ~100 KB pages, user time is Python's."""
    ticks = os.sysconf("SC_CLK_TCK")
    user = system = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        user, system = user + int(fields[11]), system + int(fields[12])
    return user / ticks, system / ticks


# --- clients -------------------------------------------------------------------------------


def _client(port, token, path, depth, stop_at, check, results) -> None:
    """One client process: first page, `depth` next pages, again, until stop_at."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Authorization": f"Token {token}"}
    first, later, errors, checked = [], [], 0, not check
    cpu = time.process_time()
    while time.monotonic() < stop_at:
        target, hops = path, 0
        while target and time.monotonic() < stop_at:
            start = time.perf_counter()
            try:
                connection.request("GET", target, headers=headers)
                response = connection.getresponse()
                body = response.read()
            except (OSError, http.client.HTTPException):  # a timeout or a dropped connection
                errors += 1
                connection.close()  # reconnects on the next request
                break
            elapsed = time.perf_counter() - start
            if response.status != 200:
                errors += 1
                break
            (first if hops == 0 else later).append(elapsed)
            if not checked:  # once, unmeasured: the page is a page
                page = json.loads(body)
                assert len(page["results"]) == 100 and page["next"], "not a full page"
                checked = True
            link = NEXT_LINK.match(body)
            if link is None:
                errors += 1
                break
            hops += 1
            if not link.group(1) or hops > depth:
                break
            url = urlsplit(link.group(1).decode())
            target = f"{url.path}?{url.query}"
    connection.close()
    results.put({"first": first, "next": later, "errors": errors,
                 "cpu": time.process_time() - cpu})  # fmt: skip


def _run_clients(args, port: int, token: str, seconds: float, check: bool) -> tuple[list, float]:
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    path = f"/api/instances/?dataset={args.dataset}"
    stop_at = time.monotonic() + seconds
    processes = [
        context.Process(
            target=_client, args=(port, token, path, args.depth, stop_at, check, results)
        )
        for _ in range(args.clients)
    ]
    started = time.perf_counter()
    for process in processes:
        process.start()
    collected = [results.get() for _ in processes]
    for process in processes:
        process.join()
    return collected, time.perf_counter() - started


def _percentiles(values: list[float]) -> dict:
    if len(values) < 2:
        return {"p50": None, "p95": None, "p99": None}
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return {"p50": statistics.median(values), "p95": cuts[94], "p99": cuts[98]}


def _ms(value) -> str:
    return "   n/a" if value is None else f"{value * 1000:6.1f}"


def _measure(args, code: Path, token: str, label: str) -> dict:
    from django.db import connections

    connections.close_all()
    port = _free_port()
    server = _start_gunicorn(code, port, args)
    try:
        warm = _wait_until_warm(port, token, args.clients)
        _run_clients(args, port, token, args.warmup, check=True)  # unmeasured
        pids, backends = gunicorn_pids(server.pid), backend_pids(DB_NAME)
        load_before = os.getloadavg()[0]
        server_cpu, db_cpu = _cpu_seconds(pids), _cpu_seconds(backends)
        clients, elapsed = _run_clients(args, port, token, args.seconds, check=False)
        server_cpu = [b - a for a, b in zip(server_cpu, _cpu_seconds(pids), strict=True)]
        db_cpu = sum(_cpu_seconds(backends)) - sum(db_cpu)
        load_after = os.getloadavg()[0]
    finally:
        _stop(server)
    first = [v for c in clients for v in c["first"]]
    later = [v for c in clients for v in c["next"]]
    total, errors = len(first) + len(later), sum(c["errors"] for c in clients)
    client_cpu = sum(c["cpu"] for c in clients)
    result = {
        "rps": total / elapsed,
        "first": _percentiles(first),
        "next": _percentiles(later),
        "errors": errors,
    }
    print(f"\n[{label}] {args.clients} client processes, {args.workers} gunicorn workers x "
          f"{args.threads} threads, {elapsed:.1f} s, {total} requests, {result['rps']:.1f} "
          f"req/s, errors {errors}; load {load_before:.2f} -> {load_after:.2f}; workers warm "
          f"after {warm:.1f} s")  # fmt: skip
    for name, values in (("first page", first), ("next pages", later)):
        cuts = "  ".join(f"{k} {_ms(v)} ms" for k, v in _percentiles(values).items())
        print(f"  {name}: {len(values):6} req {len(values) / elapsed:6.1f} req/s  {cuts}")
    if total:
        user, system = (seconds / total * 1000 for seconds in server_cpu)
        result["gunicorn_cpu_ms"] = user + system
        print(f"  CPU per request: gunicorn {user + system:.1f} ms (user {user:.1f}, system "
              f"{system:.1f}), PostgreSQL "
              f"backends {db_cpu / total * 1000:.1f} ms, clients {client_cpu / total * 1000:.1f} "
              f"ms ({os.cpu_count()} cpus)")  # fmt: skip
    return result


# --- query plans ---------------------------------------------------------------------------


def _explain(args, token: str) -> None:
    """The queries one first page and one next page run (captured from real requests through
    the current code, token authentication), and EXPLAIN ANALYZE of the page query."""
    from django.db import connection
    from django.test import Client as DjangoClient
    from django.test.utils import CaptureQueriesContext

    client = DjangoClient(HTTP_AUTHORIZATION=f"Token {token}")
    url = f"/api/instances/?dataset={args.dataset}"
    client.get(url)  # connection set-up and first-use caches are not part of a page
    for label in ("first page", "next page (cursor)"):
        with CaptureQueriesContext(connection) as captured:
            response = client.get(url)
        assert response.status_code == 200, response.status_code
        queries = [q["sql"] for q in captured.captured_queries]
        print(f"\n  {label}: {len(queries)} queries")
        for sql in queries:
            print(f"    {sql[:150]}{' ...' if len(sql) > 150 else ''}")
        page = max((sql for sql in queries if "catalog_instance" in sql), key=len)
        with connection.cursor() as cursor:
            cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {page}")
            plan = "\n      ".join(row[0] for row in cursor.fetchall())
        print(f"    EXPLAIN ANALYZE of the page query:\n      {plan}")
        link = urlsplit(response.json()["next"])
        url = f"{link.path}?{link.query}"


# --- main ----------------------------------------------------------------------------------


def _uptime() -> str:
    return "uptime: " + subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--total", type=int, default=1_000_000)
    parser.add_argument("--demo", type=int, default=100_000)
    parser.add_argument("--dataset", default="demo")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--depth", type=int, default=5, help="next pages followed per first page")
    parser.add_argument("--warmup", type=float, default=5, help="unmeasured seconds first")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--baseline", metavar="REV", help="also measure git revision REV")
    parser.add_argument("--rebuild", action="store_true", help="reload the data")
    parser.add_argument("--drop", action="store_true", help="drop the database at the end")
    args = parser.parse_args()

    print(_uptime())
    reuse = not args.rebuild and _database_holds(args.total, args.demo)
    if not reuse:
        _drop_database()
    with bench_database(DB_NAME, keep=not args.drop), tempfile.TemporaryDirectory() as tmp:
        from rest_framework.authtoken.models import Token

        if reuse:
            print(f"reusing {DB_NAME}: {args.total:,} instances ({args.demo:,} in demo, last)")
        else:
            start = time.perf_counter()
            _load(args.total, args.demo)
            print(f"loaded {args.total:,} instances ({args.demo:,} in demo, stored last) in "
                  f"{time.perf_counter() - start:.0f} s")  # fmt: skip
        token = Token.objects.get(user__username=USERNAME).key
        results = {}
        if args.baseline:
            code = baseline_tree(args.baseline, Path(tmp))
            results["baseline"] = _measure(args, code, token, f"baseline: {args.baseline}")
        results["current"] = _measure(args, ROOT, token, "current code")
        _explain(args, token)
        current = results["current"]
        met = all(current[k]["p95"] is not None and current[k]["p95"] <= 0.1
                  for k in ("first", "next")) and not current["errors"]  # fmt: skip
        print(f"\nP9 goal (first and next pages p95 <= 100 ms, {args.clients} clients): "
              f"{'met' if met else 'NOT met'}")  # fmt: skip
        if "baseline" in results:
            old = results["baseline"]
            ratios = [f"req/s x{current['rps'] / old['rps']:.1f}"]
            for page in ("first", "next"):
                for cut in ("p50", "p95"):
                    if old[page][cut] and current[page][cut]:
                        ratios.append(f"{page} {cut} /{old[page][cut] / current[page][cut]:.1f}")
            if "gunicorn_cpu_ms" in old and "gunicorn_cpu_ms" in current:
                ratios.append(f"gunicorn CPU/request {old['gunicorn_cpu_ms']:.1f} -> "
                              f"{current['gunicorn_cpu_ms']:.1f} ms")  # fmt: skip
            print(f"vs baseline {args.baseline}: {', '.join(ratios)}")
        print(_uptime())
        if not args.drop:
            print(f"(database {DB_NAME} kept for the next run; --drop removes it)")


if __name__ == "__main__":
    main()
