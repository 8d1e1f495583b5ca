"""P8: the annotator's next-item page with 400,000 instances and 50,000 annotations.

Data (PostgreSQL, built in bulk): 6,250 templates x 64 instances = 400,000 instances; a
template-validation campaign over the 6,250 templates (3 annotators per item, 12 annotators:
18,750 assignments) and a tuple-vote campaign over 12,000 tuples (3 per item: 36,000
assignments); 50,000 of the assignments carry a judgement, each annotator's first items done
so that the pending ones are at the end of their list (the worst case for a scan).

Measured in one run:
  * the page: GET /annotate/campaigns/<id>/ (next pending item rendered in one round trip) on
    gunicorn over loopback, signed-in sessions of the 12 annotators in turn; p50/p95 latency
    of sequential requests and requests/s with 4 concurrent clients. Goal: p95 <= 150 ms.
  * the query alone, ours vs the named baseline: ours reads the precomputed assignment rows
    through the partial index on pending rows; the baseline ("no pending flag") finds the
    first assignment without a judgement with NOT EXISTS over the judgements.

Run: python bench/p8_next_item.py   (needs PostgreSQL on 127.0.0.1, trust auth)
"""

from __future__ import annotations

import statistics
import threading
import time

from _db import bench_database
from _server import gunicorn, session_cookie

TEMPLATES = 6250
TUPLES = 12000
ANNOTATORS = 12
JUDGEMENTS = 50000
REQUESTS = 400
CONCURRENT = 4


def build():
    from django.db import connection

    from apps.accounts.roles import ANNOTATOR
    from apps.accounts.services import user_create_with_role
    from apps.annotation.models import Assignment, Judgement
    from apps.annotation.services import annotator_update, campaign_create
    from apps.catalog.models import Category, Dataset, StereotypeTuple
    from apps.catalog.services import NewTemplate, dataset_instantiate, template_bulk_create

    dataset = Dataset.objects.create(name="p8")
    categories = [Category.objects.get_or_create(name=f"Bench {i}")[0] for i in range(13)]
    t0 = time.perf_counter()
    template_bulk_create(
        dataset=dataset,
        templates=[
            NewTemplate(
                external_id=f"T{i}",
                category=categories[i % 13],
                position=i,
                content={
                    "ambiguous_context": f"In scene {i}, a {{{{NAME1}}}} and a {{{{NAME2}}}} met.",
                    "disambiguating_context": "The {{NAME1}} shouted; the {{NAME2}} stayed calm.",
                    "question_negative": "Who shouted?",
                    "question_non_negative": "Who stayed calm?",
                    "answer_negative": "The {{NAME1}}",
                    "answer_non_negative": "The {{NAME2}}",
                    "placeholders": {
                        "NAME1": [f"g{i}-a{k}" for k in range(4)],
                        "NAME2": [f"g{i}-b{k}" for k in range(4)],
                    },
                },
            )
            for i in range(TEMPLATES)
        ],
    )
    created = dataset_instantiate(dataset=dataset)["created"]
    print(f"instances: {created:,} ({time.perf_counter() - t0:.1f}s)")
    StereotypeTuple.objects.bulk_create(
        StereotypeTuple(
            dataset=dataset, category=categories[i % 13], identity_term=f"id{i}", attribute="x"
        )
        for i in range(TUPLES)
    )
    users = []
    for i in range(ANNOTATORS):
        user = user_create_with_role(username=f"ann{i}", role=ANNOTATOR, password="bench-pass")
        annotator_update(user=user, languages=["en"])
        users.append(user)
    validation = campaign_create(
        dataset=dataset, kind="template_validation", annotators=users, annotators_per_item=3
    )
    campaign_create(dataset=dataset, kind="tuple_vote", annotators=users)
    total = Assignment.objects.count()
    # Each annotator's first assignments are done: rank within (annotator, campaign).
    done_ids = []
    per_user_campaign: dict = {}
    rows = Assignment.objects.order_by("annotator_id", "campaign_id", "position")
    share = JUDGEMENTS / total
    for pk, annotator_id, campaign_id in rows.values_list("pk", "annotator_id", "campaign_id"):
        per_user_campaign.setdefault((annotator_id, campaign_id), []).append(pk)
    for ids in per_user_campaign.values():
        done_ids.extend(ids[: round(len(ids) * share)])
    # Rounding per annotator leaves a few short of the target: top up from the rest.
    chosen = set(done_ids)
    rest = (pk for ids in per_user_campaign.values() for pk in ids if pk not in chosen)
    done_ids = (done_ids + [next(rest) for _ in range(max(0, JUDGEMENTS - len(done_ids)))])[
        :JUDGEMENTS
    ]
    owners = dict(Assignment.objects.filter(pk__in=done_ids).values_list("pk", "annotator_id"))
    Judgement.objects.bulk_create(
        (
            Judgement(
                assignment_id=pk,
                annotator_id=owners[pk],
                idempotency_key=f"bench-{pk}",
                action="submit",
                answers={"a": "yes", "b": "yes", "c": "yes", "stereotypical": "yes"},
                seconds=12.0,
            )
            for pk in done_ids
        ),
        batch_size=5000,
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE annotation_assignment a SET current_id = j.id, done_at = now() "
            "FROM annotation_judgement j WHERE j.assignment_id = a.id"
        )
        cursor.execute("VACUUM ANALYZE")
    print(
        f"assignments: {total:,}, judgements: {Judgement.objects.count():,}, "
        f"pending: {Assignment.objects.filter(done_at__isnull=True).count():,}"
    )
    return validation, users


def time_query(fn, runs: int = 200) -> float:
    samples = []
    for i in range(runs):
        start = time.perf_counter()
        fn(i)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    with bench_database("kasauti_bench_p8"):
        import requests
        from django.db.models import Exists, OuterRef

        from apps.annotation.models import Assignment, Judgement
        from apps.annotation.selectors import assignment_next

        campaign, users = build()

        def ours(i):
            return assignment_next(campaign_id=campaign.pk, annotator=users[i % len(users)])

        def baseline(i):
            return (
                Assignment.objects.filter(annotator=users[i % len(users)], campaign=campaign)
                .exclude(Exists(Judgement.objects.filter(assignment=OuterRef("pk"))))
                .order_by("position")
                .first()
            )

        assert ours(0).pk == baseline(0).pk
        q_ours, q_base = time_query(ours), time_query(baseline)
        print(f"next-item query median: ours {q_ours:.2f} ms, baseline {q_base:.2f} ms")

        cookies = [session_cookie(u) for u in users]
        url = f"/annotate/campaigns/{campaign.pk}/"
        with gunicorn() as base:
            sessions = []
            for cookie in cookies:
                s = requests.Session()
                s.headers["Cookie"] = cookie
                sessions.append(s)
            for i in range(24):  # warm-up: connections, template cache
                r = sessions[i % len(sessions)].get(base + url)
                assert r.status_code == 200 and "judgement-form" in r.text, r.status_code
            latencies = []
            start_all = time.perf_counter()
            for i in range(REQUESTS):
                start = time.perf_counter()
                r = sessions[i % len(sessions)].get(base + url)
                latencies.append((time.perf_counter() - start) * 1000)
                assert r.status_code == 200
            sequential_rps = REQUESTS / (time.perf_counter() - start_all)

            counter = {"n": 0}
            lock = threading.Lock()

            def client(k: int) -> None:
                s = requests.Session()
                s.headers["Cookie"] = cookies[k]
                for _ in range(REQUESTS // CONCURRENT):
                    assert s.get(base + url).status_code == 200
                    with lock:
                        counter["n"] += 1

            threads = [threading.Thread(target=client, args=(k,)) for k in range(CONCURRENT)]
            start_all = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            concurrent_rps = counter["n"] / (time.perf_counter() - start_all)

        latencies.sort()
        p50 = statistics.median(latencies)
        p95 = latencies[int(0.95 * len(latencies)) - 1]
        print()
        print(f"P8 next-item page over HTTP ({REQUESTS} sequential requests, 12 annotators):")
        print(f"  p50 {p50:.1f} ms, p95 {p95:.1f} ms (goal p95 <= 150 ms)")
        print(
            f"  {sequential_rps:.1f} requests/s sequential, {concurrent_rps:.1f} requests/s "
            f"with {CONCURRENT} concurrent clients"
        )
        print(
            f"P8 query ratio baseline/ours: {q_base / q_ours:.1f}x "
            f"(ours {q_ours:.2f} ms, NOT EXISTS baseline {q_base:.2f} ms)"
        )


if __name__ == "__main__":
    main()
