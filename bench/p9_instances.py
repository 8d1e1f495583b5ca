"""P9 benchmark: the instance API at 1,000,000 instances, 8 concurrent clients, gunicorn.

Run (PostgreSQL on 127.0.0.1:5432, trust auth, user postgres):

    .venv/bin/python bench/p9_instances.py                 # 1M instances, 20 s per phase
    .venv/bin/python bench/p9_instances.py --seconds 10 --without-index

It makes a dedicated database (bench/_db.py), loads --total instances with one INSERT ...
SELECT generate_series: a dataset "other" first and the dataset "demo" (--demo rows) last, so
that demo's rows sit at the end of the table, behind everything else. Then it starts gunicorn
(gthread workers) on loopback and drives --clients client threads, each with its own
keep-alive HTTP connection and a researcher's token, for --seconds: GET
/api/instances/?dataset=demo (a first page), then follows `next` for --depth pages (next
pages, keyset cursors), and again. It prints p50/p95/p99 latency and requests/s for first and
next pages (goal: p95 <= 100 ms for both) and EXPLAIN ANALYZE of the page queries.

--without-index first measures the same with the (dataset, id) index dropped (the plan before
P9), then recreates it and measures again: before and after in one run.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _db import ROOT, bench_database  # noqa: E402 (bench/ is not a package)

DB_NAME = "kasauti_bench_p9"
INDEX = "instance_dataset_id"

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


def _load(total: int, demo: int) -> dict[str, int]:
    from django.db import connection

    from apps.catalog.models import Category, Dataset, Template, TemplateVersion

    category = Category.objects.create(name="Age-bench")
    ids = {}
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
        ids[name] = dataset.pk
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE catalog_instance")
    return ids


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_gunicorn(port: int, workers: int, threads: int) -> subprocess.Popen:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "kasauti.settings.test",
           "KASAUTI_TEST_DB_NAME": DB_NAME, "PYTHONPATH": str(ROOT)}  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "kasauti.wsgi:application", "--bind",
         f"127.0.0.1:{port}", "--worker-class", "gthread", "--workers", str(workers),
         "--threads", str(threads), "--keep-alive", "30", "--log-level", "warning"],
        cwd=ROOT, env=env,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("gunicorn did not start")


class Client(threading.Thread):
    def __init__(self, port: int, token: str, path: str, depth: int, stop_at: float) -> None:
        super().__init__(daemon=True)
        self.port, self.token, self.path = port, token, path
        self.depth, self.stop_at = depth, stop_at
        self.first: list[float] = []
        self.next: list[float] = []
        self.errors = 0

    def get(self, connection: http.client.HTTPConnection, path: str) -> dict | None:
        start = time.perf_counter()
        try:
            connection.request("GET", path, headers={"Authorization": f"Token {self.token}"})
            response = connection.getresponse()
            body = response.read()
        except (OSError, http.client.HTTPException):  # a timeout or a dropped connection
            self.errors += 1
            connection.close()  # reconnects on the next request
            return None
        elapsed = time.perf_counter() - start
        if response.status != 200:
            self.errors += 1
            return None
        return {"elapsed": elapsed, "data": json.loads(body)}

    def run(self) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        while time.perf_counter() < self.stop_at:
            page = self.get(connection, self.path)
            if page is None:
                continue
            self.first.append(page["elapsed"])
            for _ in range(self.depth):
                link = page["data"].get("next")
                if not link or time.perf_counter() >= self.stop_at:
                    break
                target = urlsplit(link)
                page = self.get(connection, f"{target.path}?{target.query}")
                if page is None:
                    break
                self.next.append(page["elapsed"])
        connection.close()


def _percentiles(values: list[float]) -> str:
    if len(values) < 2:
        return "n/a"
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return (f"p50 {statistics.median(values) * 1000:6.1f} ms  p95 {cuts[94] * 1000:6.1f} ms  "
            f"p99 {cuts[98] * 1000:6.1f} ms")  # fmt: skip


def _drive(args, port: int, token: str, label: str) -> dict:
    path = f"/api/instances/?dataset={args.dataset}"
    # Warm up every worker and thread (lazy imports, database connections), unmeasured.
    warm_until = time.perf_counter() + args.warmup
    warm = [Client(port, token, path, args.depth, warm_until) for _ in range(args.clients)]
    for client in warm:
        client.start()
    for client in warm:
        client.join()
    stop_at = time.perf_counter() + args.seconds
    clients = [Client(port, token, path, args.depth, stop_at) for _ in range(args.clients)]
    started = time.perf_counter()
    for client in clients:
        client.start()
    for client in clients:
        client.join()
    elapsed = time.perf_counter() - started
    first = [v for c in clients for v in c.first]
    later = [v for c in clients for v in c.next]
    errors = sum(c.errors for c in clients)
    total = len(first) + len(later)
    print(f"[{label}] {args.clients} clients, {elapsed:.1f} s, {total} requests "
          f"({total / elapsed:.1f} req/s), errors {errors}")  # fmt: skip
    for name, values in (("first page", first), ("next pages", later)):
        print(f"  {name}: {len(values):5} req {len(values) / elapsed:6.1f} req/s  "
              f"{_percentiles(values)}")  # fmt: skip
    return {"first_p95": _p95(first), "next_p95": _p95(later)}


def _p95(values: list[float]) -> float | None:
    return statistics.quantiles(values, n=100, method="inclusive")[94] if len(values) > 1 else None


def _explain(args, token_user) -> None:
    """EXPLAIN ANALYZE of the page queries the API runs (captured from a real request)."""
    from django.db import connection
    from django.test import Client as DjangoClient
    from django.test.utils import CaptureQueriesContext

    client = DjangoClient()
    client.force_login(token_user)
    url = f"/api/instances/?dataset={args.dataset}"
    for label in ("first page", "next page (cursor)"):
        with CaptureQueriesContext(connection) as captured:
            response = client.get(url)
        assert response.status_code == 200, response.status_code
        # The page query: the widest one on the instance table (the others look up the
        # dataset and its first id).
        sql = max((q["sql"] for q in captured.captured_queries if "catalog_instance" in q["sql"]),
                  key=len)  # fmt: skip
        print(f"  queries for the {label}: {len(captured.captured_queries)}")
        with connection.cursor() as cursor:
            cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql}")
            plan = "\n    ".join(row[0] for row in cursor.fetchall())
        print(f"  EXPLAIN ANALYZE, {label}:\n    {plan}")
        link = urlsplit(response.json()["next"])
        url = f"{link.path}?{link.query}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--total", type=int, default=1_000_000)
    parser.add_argument("--demo", type=int, default=100_000)
    parser.add_argument("--dataset", default="demo")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--depth", type=int, default=5, help="next pages followed per first page")
    parser.add_argument("--warmup", type=float, default=10, help="unmeasured seconds first")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--without-index", action="store_true")
    args = parser.parse_args()

    with bench_database(DB_NAME):
        from django.db import connection, connections
        from rest_framework.authtoken.models import Token

        from apps.accounts.roles import RESEARCHER
        from apps.accounts.services import user_create_with_role

        start = time.perf_counter()
        _load(args.total, args.demo)
        print(f"loaded {args.total:,} instances ({args.demo:,} in demo, stored last) in "
              f"{time.perf_counter() - start:.0f} s; {os.cpu_count()} cpus")  # fmt: skip
        user = user_create_with_role(username="bench", role=RESEARCHER, password="bench-pw-1")
        token = Token.objects.get(user=user).key
        phases = [("without the (dataset, id) index", False)] if args.without_index else []
        phases.append(("with the (dataset, id) index", True))
        results = {}
        for label, indexed in phases:
            with connection.cursor() as cursor:
                if indexed:
                    cursor.execute(
                        f"CREATE INDEX IF NOT EXISTS {INDEX} ON catalog_instance (dataset_id, id)"
                    )
                else:
                    cursor.execute(f"DROP INDEX IF EXISTS {INDEX}")
                cursor.execute("ANALYZE catalog_instance")
            connections.close_all()
            port = _free_port()
            server = _start_gunicorn(port, args.workers, args.threads)
            try:
                results[label] = _drive(args, port, token, label)
            finally:
                server.terminate()
                try:
                    server.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()
            _explain(args, user)
        final = results[phases[-1][0]]
        met = all(v is not None and v <= 0.1 for v in final.values())
        print(f"P9 goal (first and next pages p95 <= 100 ms, {args.clients} clients): "
              f"{'met' if met else 'NOT met'}")  # fmt: skip


if __name__ == "__main__":
    main()
