"""Load test: 20 concurrent annotators x 500 submissions against the running server.

A tuple-vote campaign of 5,000 tuples with 2 annotators per item gives each of the 20
annotators exactly 500 items. Each annotator (one thread, token auth, gunicorn on loopback)
asks for the next item and submits it; on top of that, 10% of submissions are sent twice in
a row (a retry after a lost response) and 5% twice at the same moment from two threads (a
double-click), always with the same idempotency key. At the end the database must hold every
judgement exactly once: 10,000 judgements, one per assignment, no key twice, every item
complete with both votes.

Run: nice -n 10 python bench/load_annotators.py [annotators] [per_annotator]
The run itself (server and clients) is raised back to normal priority when allowed: a niced
server on a busy shared machine is starved and the run would take an hour.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import threading
import time

from _db import bench_database
from _server import gunicorn

ANNOTATORS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
PER_ANNOTATOR = int(sys.argv[2]) if len(sys.argv) > 2 else 500


def build():
    from rest_framework.authtoken.models import Token

    from apps.accounts.roles import ANNOTATOR
    from apps.accounts.services import user_create_with_role
    from apps.annotation.services import annotator_update, campaign_create
    from apps.catalog.models import Category, Dataset, StereotypeTuple

    dataset = Dataset.objects.create(name="load")
    category = Category.objects.get_or_create(name="Load")[0]
    items = ANNOTATORS * PER_ANNOTATOR // 2
    StereotypeTuple.objects.bulk_create(
        StereotypeTuple(dataset=dataset, category=category, identity_term=f"id{i}", attribute="x")
        for i in range(items)
    )
    users = []
    for i in range(ANNOTATORS):
        user = user_create_with_role(username=f"load{i}", role=ANNOTATOR, password="load-pass")
        annotator_update(user=user, languages=["en"])
        users.append(user)
    campaign = campaign_create(
        dataset=dataset, kind="tuple_vote", annotators=users, annotators_per_item=2
    )
    tokens = [Token.objects.get(user=u).key for u in users]
    return campaign, tokens, items


def main() -> None:
    with bench_database("kasauti_bench_load"):
        import requests

        from apps.annotation.models import Assignment, CampaignItem, Judgement

        campaign, tokens, items = build()
        try:
            os.setpriority(os.PRIO_PROCESS, 0, 0)
        except OSError:
            print("(could not raise priority: running at the inherited nice level)")
        stats = {"submitted": 0, "replays": 0, "double_clicks": 0, "errors": [], "latency": []}
        lock = threading.Lock()

        def annotator(index: int, base: str) -> None:
            rng = random.Random(index)
            session = requests.Session()
            session.headers["Authorization"] = f"Token {tokens[index]}"
            while True:
                r = session.get(f"{base}/api/annotation/campaigns/{campaign.pk}/next/")
                if r.status_code == 204:
                    return
                if r.status_code != 200:
                    with lock:
                        stats["errors"].append(("next", r.status_code, r.text[:200]))
                    return
                data = r.json()
                url = f"{base}/api/annotation/assignments/{data['assignment']}/judgements/"
                body = {
                    "answers": {"stereotypical": rng.choice(["yes", "no"])},
                    "idempotency_key": data["idempotency_key"],
                }
                roll = rng.random()
                start = time.perf_counter()
                if roll < 0.05:
                    # Double-click: the same request twice at the same moment.
                    results = []

                    def send(results=results, url=url, body=body):
                        s = requests.Session()
                        s.headers["Authorization"] = f"Token {tokens[index]}"
                        results.append(s.post(url, json=body).status_code)

                    pair = [threading.Thread(target=send) for _ in range(2)]
                    for t in pair:
                        t.start()
                    for t in pair:
                        t.join()
                    codes = sorted(results)
                    ok = codes == [200, 201]
                    kind = "double_clicks"
                else:
                    first = session.post(url, json=body).status_code
                    codes = [first]
                    ok = first == 201
                    kind = None
                    if roll < 0.15:
                        # Retry after a lost response: same key, must not store a second row.
                        codes.append(session.post(url, json=body).status_code)
                        ok = ok and codes[1] == 200
                        kind = "replays"
                elapsed = (time.perf_counter() - start) * 1000
                with lock:
                    stats["latency"].append(elapsed)
                    stats["submitted"] += 1
                    if kind:
                        stats[kind] += 1
                    if not ok:
                        stats["errors"].append(("submit", codes))

        with gunicorn(workers=2, threads=8) as base:
            threads = [
                threading.Thread(target=annotator, args=(i, base)) for i in range(ANNOTATORS)
            ]
            start = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - start

        expected = ANNOTATORS * PER_ANNOTATOR
        judgements = Judgement.objects.filter(assignment__campaign=campaign)
        distinct_keys = judgements.values("idempotency_key").distinct().count()
        per_assignment = judgements.values("assignment").distinct().count()
        complete = CampaignItem.objects.filter(campaign=campaign, status="complete").count()
        pending = Assignment.objects.filter(campaign=campaign, done_at__isnull=True).count()
        latency = sorted(stats["latency"])
        print(
            f"{ANNOTATORS} annotators x {PER_ANNOTATOR} submissions in {wall:.1f}s "
            f"({stats['submitted'] / wall:.1f} submissions/s)"
        )
        print(
            f"  retries (same key, sequential): {stats['replays']}, "
            f"double-clicks (same key, concurrent): {stats['double_clicks']}"
        )
        print(
            f"  submit latency p50 {statistics.median(latency):.1f} ms, "
            f"p95 {latency[int(0.95 * len(latency)) - 1]:.1f} ms"
        )
        print(
            f"  judgements stored: {judgements.count()} (expected {expected}), distinct keys "
            f"{distinct_keys}, assignments with a judgement {per_assignment}, pending {pending}"
        )
        print(
            f"  items complete: {complete} of {items}; errors: {len(stats['errors'])} "
            f"{stats['errors'][:5]}"
        )
        exact = (
            judgements.count() == expected == distinct_keys == per_assignment
            and stats["submitted"] == expected
            and complete == items
            and pending == 0
            and not stats["errors"]
        )
        print("LOAD TEST:", "PASS, every judgement stored exactly once" if exact else "FAIL")
        if not exact:
            sys.exit(1)


if __name__ == "__main__":
    main()
