"""The coding queue page with 10,000 answers and 1,000 concepts: GET
/surveys/<slug>/coding/ from gunicorn over loopback (bench/_server.py; the real PostgreSQL
database), signed in as a researcher, requests one after another.

Data (a bench database, built in bulk; bench/survey_suggestions.py builds the survey): 10,000
answers by 5,000 respondents, 1,000 concepts; 3,000 answers coded (one or two concepts each,
with their coding events and derived counts), 500 invalid, 5 suggestions for every answer.

Measured in one run, each variant loaded at least 30 times (after 3 warm-up loads), median and
p95: the first page of the pending queue (the goal: p95 <= 300 ms), the coded answers, a search,
a later page (keyset cursor), a filtered concept side list. Named baseline, same run: the same
first page of a small survey (20 answers, 10 concepts) in the same database, i.e. what the
page costs whatever the size.

Run: python bench/survey_coding_queue.py [--loads 40] [--keep]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import time
import urllib.request

from _db import bench_database
from _server import gunicorn, session_cookie
from survey_suggestions import build

DB = "kasauti_bench_survey_queue"
GOAL_MS = 300.0


def decorate(survey, *, coded: int, invalid: int, seed: int = 3) -> None:
    """Codings, events, invalid answers and suggestions, in bulk; counts derived."""
    from apps.catalog.models import StereotypeConcept
    from apps.surveys.models import Answer, AnswerConcept, AnswerSuggestion, CodingEvent
    from apps.surveys.services.counts import survey_counts_refresh

    if AnswerSuggestion.objects.filter(answer__survey=survey).exists():
        return
    rng = random.Random(seed)
    answers = list(Answer.objects.filter(survey=survey).order_by("id").values_list("id", flat=True))
    concepts = list(
        StereotypeConcept.objects.filter(dataset=survey.dataset_id).values_list("id", flat=True)
    )
    rng.shuffle(answers)
    links, events = [], []
    for answer_id in answers[:coded]:
        chosen = rng.sample(concepts, 2 if rng.random() < 0.1 else 1)
        links += [AnswerConcept(answer_id=answer_id, concept_id=c) for c in chosen]
        events.append(CodingEvent(answer_id=answer_id, action="code", concept_ids=chosen))
    for answer_id in answers[coded : coded + invalid]:
        events.append(CodingEvent(answer_id=answer_id, action="invalid", reason="spam"))
    AnswerConcept.objects.bulk_create(links, batch_size=5000)
    CodingEvent.objects.bulk_create(events, batch_size=5000)
    Answer.objects.filter(pk__in=answers[:coded]).update(status="coded")
    Answer.objects.filter(pk__in=answers[coded : coded + invalid]).update(
        status="invalid", invalid_reason="spam"
    )
    AnswerSuggestion.objects.bulk_create(
        (
            AnswerSuggestion(answer_id=a, concept_id=c, rank=rank, score=0.9 - rank / 10)
            for a in answers
            for rank, c in enumerate(rng.sample(concepts, 5), start=1)
        ),
        batch_size=10000,
    )
    survey_counts_refresh(concept_ids=concepts)


def small_survey():
    """The baseline: a survey of 20 answers and 10 concepts, same shape."""
    from survey_suggestions import build as build_any

    from apps.surveys.models import Survey

    existing = Survey.objects.filter(slug="bench-small").first()
    if existing is not None:
        return existing
    survey = build_any(20, 10, seed=99, slug="bench-small")
    decorate(survey, coded=6, invalid=1)
    return survey


def measure(base: str, cookie: str, url: str, loads: int) -> list[float]:
    import urllib.request

    def get() -> None:
        request = urllib.request.Request(base + url, headers={"Cookie": cookie})
        with urllib.request.urlopen(request, timeout=120) as response:
            assert response.status == 200, (url, response.status)
            response.read()

    for _ in range(3):
        get()
    times = []
    for _ in range(loads):
        t0 = time.perf_counter()
        get()
        times.append((time.perf_counter() - t0) * 1000)
    return times


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=10000)
    parser.add_argument("--concepts", type=int, default=1000)
    parser.add_argument("--loads", type=int, default=40)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    assert args.loads >= 30
    with bench_database(DB, keep=args.keep):
        from django.contrib.auth import get_user_model

        from apps.accounts.roles import RESEARCHER
        from apps.accounts.services import user_create_with_role
        from apps.surveys.models import Answer

        t0 = time.perf_counter()
        survey = build(args.answers, args.concepts)
        decorate(survey, coded=3000, invalid=500)
        small = small_survey()
        print(
            f"data: {Answer.objects.filter(survey=survey).count():,} answers, "
            f"{args.concepts:,} concepts ({time.perf_counter() - t0:.1f} s to build)"
        )
        user = get_user_model().objects.filter(username="bench-rekha").first()
        user = user or user_create_with_role(
            username="bench-rekha", role=RESEARCHER, password="bench-pass-123"
        )
        cookie = session_cookie(user)
        with gunicorn(workers=1, threads=2) as base:
            request = urllib.request.Request(
                f"{base}/surveys/{survey.slug}/coding/", headers={"Cookie": cookie}
            )
            first = urllib.request.urlopen(request).read().decode()
            cursor = re.search(r'href="[?]([^"]+)" id="next-page"', first).group(1)
            cursor = cursor.replace("&amp;", "&")
            variants = [
                ("pending, first page", f"/surveys/{survey.slug}/coding/"),
                ("coded", f"/surveys/{survey.slug}/coding/?status=coded"),
                ("search 'lazy'", f"/surveys/{survey.slug}/coding/?status=all&q=lazy"),
                ("second page (cursor)", f"/surveys/{survey.slug}/coding/?{cursor}"),
                ("concept filter", f"/surveys/{survey.slug}/coding/?cq=greedy"),
            ]
            small_times = measure(base, cookie, f"/surveys/{small.slug}/coding/", args.loads)
            print(
                f"baseline (20 answers, 10 concepts): median {statistics.median(small_times):.1f}"
                f" ms, p95 {p95(small_times):.1f} ms over {args.loads} loads"
            )
            for label, url in variants:
                times = measure(base, cookie, url, args.loads)
                ratio = statistics.median(times) / statistics.median(small_times)
                print(
                    f"{label}: median {statistics.median(times):.1f} ms, p95 {p95(times):.1f} "
                    f"ms over {args.loads} loads; p95 / goal {p95(times) / GOAL_MS:.2f}; median "
                    f"/ baseline median {ratio:.2f}"
                )
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
