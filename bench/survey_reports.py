"""Survey reports with 10,000 answers and 1,000 concepts: the report page and survey_funnel.

Data (PostgreSQL, built in bulk): one survey, 3,000 respondents with demographics (gender, age,
a free-text region), 10,000 answers over 60 days (8 % invalid, 10 % pending, the rest coded
into 1 concept, every eighth into 2: about 9,000 valid links), 1,000 concepts in 10 categories
(half validated, with evidence), derived counts refreshed; ANALYZE after the first
measurement (as autovacuum would do within minutes).

Measured in one run:
  * the page: GET /surveys/<slug>/reports/ on gunicorn over loopback, a signed-in researcher,
    sequential requests: p50/p95. Aim (no hard goal in the issue): p95 < 500 ms.
  * survey_funnel --json (the command, in process): median.
  * the funnel alone, ours vs the named baseline "kept over a subquery" (usable() filtered by
    a subquery of the unique concepts rather than a list of their ids), right after the load
    (no planner statistics yet) and after ANALYZE.
  * the funnel's "kept" figure, ours vs the named baseline "per-concept verdict": ours is one
    query over StereotypeConcept.objects.usable(); the baseline loads each unique concept and
    calls inclusion.concept_verdict on it (the obvious loop, one evidence query per concept).
  * the demographics alone, ours (one jsonb_each_text aggregate) vs the baseline "respondent
    rows" (load every respondent's demographics and count in Python).

Run: python bench/survey_reports.py [--keep]   (PostgreSQL on 127.0.0.1, trust auth)
"""

from __future__ import annotations

import json
import statistics
import sys
import time
import urllib.request
from collections import Counter
from io import StringIO

from _db import bench_database
from _server import gunicorn, session_cookie

DB = "kasauti_bench_survey_reports"
ANSWERS = 10_000
CONCEPTS = 1_000
RESPONDENTS = 3_000
CATEGORIES = 10
PAGE_REQUESTS = 40
REPEATS = 15


def build():
    from datetime import UTC, datetime, timedelta

    from apps.accounts.roles import RESEARCHER
    from apps.accounts.services import user_create_with_role
    from apps.catalog.models import Category, Dataset, EvidenceReference, StereotypeConcept
    from apps.surveys.models import Answer, AnswerConcept, Respondent
    from apps.surveys.questionnaire import default_content
    from apps.surveys.services.counts import survey_counts_refresh
    from apps.surveys.services.surveys import survey_create

    researcher = user_create_with_role(username="bench-r", role=RESEARCHER, password="x" * 12)
    dataset = Dataset.objects.create(name="bench-survey", inclusion_rule="esbbq")
    categories = [Category.objects.get_or_create(name=f"Category {i}")[0] for i in range(10)]
    content = default_content(
        languages=["en"],
        categories=[
            {"key": f"c{i}", "category": c.name, "labels": {"en": c.name}, "groups": []}
            for i, c in enumerate(categories)
        ],
    )
    survey = survey_create(dataset=dataset, slug="bench", languages=["en"], content=content)
    version = survey.current_version
    concepts = StereotypeConcept.objects.bulk_create(
        StereotypeConcept(
            category=categories[n % CATEGORIES],
            dataset=dataset,
            statement=f"Stereotype {n}",
            source="survey",
            validation_status="validated" if n % 2 else "pending",
        )
        for n in range(CONCEPTS)
    )
    EvidenceReference.objects.bulk_create(
        EvidenceReference(concept=c, url="https://example.org/e", kind="survey") for c in concepts
    )
    genders = ["woman", "man", "non_binary", "other", "prefer_not"]
    ages = ["18-24", "25-34", "35-44", "45-54", "55-64", "65+"]
    respondents = Respondent.objects.bulk_create(
        Respondent(
            survey=survey,
            token_hash=f"{n:064x}",
            demographics={
                "gender": genders[(n * 7) % 11 % 5],
                "age": ages[n % 6],
                "region_birth": f"Region {n % 40}",
            }
            if n % 9
            else {},
            demographics_version=version,
            demographics_asked=True,
        )
        for n in range(RESPONDENTS)
    )
    start = datetime(2026, 1, 1, tzinfo=UTC)
    answers = Answer.objects.bulk_create(
        Answer(
            survey=survey,
            version=version,
            respondent=respondents[n % RESPONDENTS],
            language="en",
            category_key=f"c{n % CATEGORIES}",
            text=f"Answer {n}",
            affected=n % 7 == 0,
            submitted_at=start + timedelta(minutes=n * 8.6),
            status="invalid" if n % 12 == 0 else "pending" if n % 10 == 1 else "coded",
        )
        for n in range(ANSWERS)
    )
    links = []
    for n, answer in enumerate(answers):
        if answer.status != "coded":
            continue
        links.append(AnswerConcept(answer=answer, concept=concepts[(n * 31) % CONCEPTS]))
        if n % 8 == 0:
            links.append(AnswerConcept(answer=answer, concept=concepts[(n * 17 + 1) % CONCEPTS]))
    AnswerConcept.objects.bulk_create(links)
    survey_counts_refresh(concept_ids=[c.pk for c in concepts])
    return survey, researcher


def timed(fn, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return times


def timed_pair(ours, baseline, repeats: int) -> tuple[float, float]:
    """Medians of `ours` and `baseline`, run alternately so that a noisy spell on the shared
    machine hits both."""
    a, b = [], []
    for _ in range(repeats):
        a += timed(ours, 1)
        b += timed(baseline, 1)
    return statistics.median(a), statistics.median(b)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(round(0.95 * len(ordered))) - 1)]


def main() -> None:
    keep = "--keep" in sys.argv
    with bench_database(DB, keep=keep) as existed:
        from django.core.management import call_command
        from django.db import connection
        from django.db.models import Prefetch

        from apps.catalog.inclusion import concept_verdict
        from apps.catalog.models import EvidenceReference, StereotypeConcept
        from apps.surveys.models import Answer, AnswerConcept, Respondent, Survey
        from apps.surveys.services.reports import report_demographics, report_funnel

        fresh = not (existed and Survey.objects.filter(slug="bench").exists())
        if not fresh:
            from django.contrib.auth import get_user_model

            survey = Survey.objects.get(slug="bench")
            researcher = get_user_model().objects.get(username="bench-r")
        else:
            t0 = time.perf_counter()
            survey, researcher = build()
            print(f"built in {time.perf_counter() - t0:.1f} s")
        funnel = report_funnel(survey=survey)
        print(
            f"data: {Answer.objects.filter(survey=survey).count()} answers, "
            f"{StereotypeConcept.objects.count()} concepts, "
            f"{Respondent.objects.filter(survey=survey).count()} respondents; funnel "
            f"{json.dumps(funnel.overall.as_dict())}"
        )

        # The funnel alone: ours vs the named baseline "kept over a subquery" (the same
        # aggregates, but usable() filtered by a subquery of the unique concepts instead of a
        # list of their ids).
        def funnel_baseline():
            from django.db.models import Count, Exists, OuterRef, Q

            live = AnswerConcept.objects.filter(answer__survey=survey).exclude(
                answer__status="invalid"
            )
            per = list(
                live.values("concept__category__name").annotate(
                    answers=Count("answer_id", distinct=True),
                    valid=Count("id"),
                    unique=Count("concept_id", distinct=True),
                )
            )
            kept = list(
                StereotypeConcept.objects.usable()
                .filter(pk__in=live.values("concept_id"))
                .values_list("category__name", flat=True)
            )
            has_link = Exists(AnswerConcept.objects.filter(answer=OuterRef("pk")))
            unlinked = list(
                Answer.objects.filter(survey=survey)
                .filter(Q(status="invalid") | ~has_link)
                .values("version_id", "category_key")
                .annotate(n=Count("id"))
            )
            total = Answer.objects.filter(survey=survey).count()
            return sum(p["valid"] for p in per), len(kept), total, unlinked

        assert funnel_baseline()[:3] == (
            funnel.overall.valid,
            funnel.overall.kept,
            funnel.overall.answers,
        )
        print("report_funnel vs baseline 'kept over a subquery':")

        if fresh:
            # Right after a bulk load the tables have no planner statistics yet (the planner
            # guesses 3 answers); autovacuum analyses them within minutes. Both ways, once.
            ours_s, base_s = timed_pair(lambda: report_funnel(survey=survey), funnel_baseline, 3)
            print(
                f"  without planner statistics (just loaded): report_funnel {ours_s:.1f} ms vs "
                f"baseline {base_s:.1f} ms: {base_s / ours_s:.1f}x"
            )
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        ours_f, base_f = timed_pair(lambda: report_funnel(survey=survey), funnel_baseline, 25)
        print(
            f"  with statistics (ANALYZE): report_funnel {ours_f:.1f} ms vs baseline "
            f"{base_f:.1f} ms: {base_f / ours_f:.2f}x"
        )

        # survey_funnel --json, in process.
        def command():
            out = StringIO()
            call_command("survey_funnel", "--survey", "bench", "--json", stdout=out)
            return out.getvalue()

        assert json.loads(command()) == funnel.as_dict()
        command_ms = timed(command, REPEATS)
        print(
            f"survey_funnel --json: median {statistics.median(command_ms):.1f} ms, "
            f"p95 {p95(command_ms):.1f} ms ({REPEATS} runs)"
        )

        # kept: ours (one usable() query) vs the per-concept verdict loop.
        live = AnswerConcept.objects.filter(answer__survey=survey).exclude(answer__status="invalid")

        def kept_ours():
            return (
                StereotypeConcept.objects.usable().filter(pk__in=live.values("concept_id")).count()
            )

        def kept_baseline():
            concepts = StereotypeConcept.objects.filter(
                pk__in=live.values("concept_id")
            ).select_related("dataset")
            return sum(concept_verdict(c).passes for c in concepts)

        assert kept_ours() == kept_baseline() == funnel.overall.kept
        ours, base = timed_pair(kept_ours, kept_baseline, 5)
        print(
            f"kept ({funnel.overall.kept} of {funnel.overall.unique}): usable() query "
            f"{ours:.1f} ms vs baseline per-concept verdict {base:.1f} ms: {base / ours:.1f}x"
        )
        # The baseline with the evidence prefetched (no query per concept), for fairness.

        def kept_prefetched():
            concepts = (
                StereotypeConcept.objects.filter(pk__in=live.values("concept_id"))
                .select_related("dataset")
                .prefetch_related(Prefetch("evidence", queryset=EvidenceReference.objects.all()))
            )
            return sum(concept_verdict(c, evidence=list(c.evidence.all())).passes for c in concepts)

        assert kept_prefetched() == funnel.overall.kept
        ours, pre = timed_pair(kept_ours, kept_prefetched, 5)
        print(f"  baseline with evidence prefetched: {pre:.1f} ms: {pre / ours:.1f}x")

        # Demographics: ours vs counting the respondents' rows in Python.
        def demographics_baseline():
            counts: dict[str, Counter] = {}
            for row in Respondent.objects.filter(survey=survey).values_list(
                "demographics", flat=True
            ):
                for key, value in row.items():
                    counts.setdefault(key, Counter())[value] += 1
            return counts

        ours_d, base_d = timed_pair(
            lambda: report_demographics(survey=survey), demographics_baseline, REPEATS
        )
        print(
            f"demographics: report_demographics {ours_d:.1f} ms vs baseline respondent rows "
            f"{base_d:.1f} ms (counting only, no suppression): {base_d / ours_d:.2f}x"
        )

        # The page on gunicorn.
        cookie = session_cookie(researcher)
        with gunicorn(workers=2, threads=2) as base_url:
            url = f"{base_url}/surveys/bench/reports/"

            def get():
                request = urllib.request.Request(url, headers={"Cookie": cookie})
                with urllib.request.urlopen(request, timeout=60) as response:
                    body = response.read()
                    assert response.status == 200 and b'id="funnel-chart"' in body
                return len(body)

            size = get()
            for _ in range(3):
                get()  # warm both workers
            page_ms = timed(get, PAGE_REQUESTS)
        print(
            f"report page ({size // 1024} kB): p50 {statistics.median(page_ms):.1f} ms, "
            f"p95 {p95(page_ms):.1f} ms ({PAGE_REQUESTS} sequential requests, gunicorn "
            "2 workers x 2 threads)"
        )


if __name__ == "__main__":
    main()
