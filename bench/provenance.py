"""Provenance benchmark (issue 22): one instance's provenance at 1,000,000 instances.

Run (PostgreSQL on 127.0.0.1:5432, trust auth, user postgres):

    .venv/bin/python bench/provenance.py                 # 1M instances, 300 lookups
    .venv/bin/python bench/provenance.py --total 200000  # quicker
    .venv/bin/python bench/provenance.py --keep          # keep the data; run again to re-measure

Data, in a database of its own (kasauti_bench_provenance, dropped at the end unless --keep):
an adapted dataset (BharatBBQ-shaped, Hindi) of --templates templates, each version probing a
concept (three evidence references, survey counts), adapted from a template of a source
dataset (an Adaptation row, Culturally Transformed) and drawing NAME1 from a vocabulary of 100
entries with 5 revisions; --total instances spread over the templates, loaded by INSERT ...
SELECT generate_series (placeholder values that are the vocabulary's entries); plus
--translations Bengali translations of some of them (a tenth retired and replaced by a
corrected revision, as the translation app does). Two releases: the first of the templates
approved then (half), the second of all, so instances are in one or two releases
(release_create, the real thing: membership rows and files). Building takes about 5 minutes
on 2 cores, measuring 1 to 2.

Measured, in this process, on --samples instances (80 % drawn at random, 10 % translations,
10 % retired translations), after --warmup unmeasured calls:

  service  apps.releases.provenance.instance_provenance(instance_id=...)
  api      GET /api/instances/<id>/provenance/ through Django's test client (session auth)
  page     GET /instances/<id>/provenance/ through the same client
  baseline GET /api/instances/<id>/ (the instance API's detail, one row) through the same
           client: a yardstick measured in the same minute, since on a shared machine the
           absolute figures move with the load of everything else running

p50/p95/max of each, the number of SQL queries per service call (min/max over the samples)
and EXPLAIN of one call's queries: none may scan catalog_instance or the release
membership. Goal: service p95 <= 50 ms.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _db import bench_database  # noqa: E402 (bench/ is not a package)

DB_NAME = "kasauti_bench_provenance"
DATASET = "bench-provenance"
USERNAME = "bench"
SURNAMES = 100  # vocabulary entries; a template copies the first NAME1_VALUES of them
NAME1_VALUES = 50
NAME2_VALUES = ["खान", "सिंह", "डिसूज़ा", "बरुआ", "नायर"]
BIG_TABLES = ("catalog_instance", "releases_releaseinstance")

# One template's instances: g = 0 .. n-1; combination g / 4 and its four conditions, NAME1
# from the vocabulary's values (शर्मा-<k>), NAME2 from the typed list.
INSERT_SQL = """
INSERT INTO catalog_instance (
    dataset_id, template_version_id, category_id, language, example_id, question_index,
    combination, name_order, context_condition, question_polarity, pairing, proper_noun,
    placeholder_values, context, question, ans0, ans1, ans2, option_roles, answer_info, label,
    retired_at, created_at
)
SELECT %(dataset)s, %(version)s, %(category)s, 'hi', %(first_example)s + g, %(qindex)s,
       g / 4, '12',
       CASE WHEN g %% 2 = 0 THEN 'ambig' ELSE 'disambig' END,
       CASE WHEN g %% 4 < 2 THEN 'neg' ELSE 'nonneg' END, 'stereotypical', false,
       jsonb_build_object('NAME1', 'शर्मा-' || ((g / 4) %% %(name1)s),
                          'NAME2', (%(name2)s::text[])[1 + (g / 4 / %(name1)s) %% %(n2)s]),
       'शर्मा-' || ((g / 4) %% %(name1)s) || ' और '
           || (%(name2)s::text[])[1 + (g / 4 / %(name1)s) %% %(n2)s]
           || ' बहुत देर से बस स्टॉप पर इंतज़ार कर रहे थे। (' || g || ')',
       'टिकट किसने खोया?', 'पता नहीं', 'शर्मा-' || ((g / 4) %% %(name1)s),
       (%(name2)s::text[])[1 + (g / 4 / %(name1)s) %% %(n2)s],
       '["unknown", "stereotyped", "non_stereotyped"]'::jsonb,
       jsonb_build_object('ans0', jsonb_build_array('पता नहीं', 'unknown'),
                          'ans1', jsonb_build_array('शर्मा', 'ब्राह्मण'),
                          'ans2', jsonb_build_array('खान', 'मुस्लिम')),
       CASE WHEN g %% 2 = 0 THEN 0 ELSE 1 + g %% 2 END, NULL, now()
FROM generate_series(0, %(count)s - 1) g
"""

# Bengali translations of the first --translations originals (ids in order): same identity,
# source_instance set, review facts as the translation app writes them.
TRANSLATE_SQL = """
INSERT INTO catalog_instance (
    dataset_id, template_version_id, category_id, language, example_id, question_index,
    combination, name_order, context_condition, question_polarity, pairing, proper_noun,
    placeholder_values, context, question, ans0, ans1, ans2, option_roles, answer_info, label,
    source_instance_id, review, retired_at, created_at
)
SELECT dataset_id, template_version_id, category_id, 'bn', example_id, question_index,
       combination, name_order, context_condition, question_polarity, pairing, proper_noun,
       placeholder_values, 'শর্মা এবং খান অনেকক্ষণ বাসস্ট্যান্ডে অপেক্ষা করছিলেন। (' || id || ')',
       'কে টিকিট হারিয়েছিল?', 'জানি না', ans1, ans2, option_roles, answer_info, label,
       id, '{"status": "passed", "similarity": 0.91, "threshold": 0.8, "revision": 1}'::jsonb,
       NULL, now()
FROM catalog_instance
WHERE dataset_id = %(dataset)s AND source_instance_id IS NULL
ORDER BY id
LIMIT %(count)s
"""


def _build(args) -> dict:
    from django.db import connection, transaction

    from apps.accounts.roles import RESEARCHER
    from apps.accounts.services import user_create_with_role
    from apps.catalog.models import (
        Adaptation,
        Category,
        Dataset,
        EvidenceReference,
        StereotypeConcept,
        Template,
        TemplateVersion,
        UnknownExpression,
        Vocabulary,
        VocabularyEntry,
        VocabularyRevision,
    )

    author = user_create_with_role(
        username=USERNAME, role=RESEARCHER, password=secrets.token_hex(16)
    )
    categories = [
        Category.objects.get_or_create(name=n)[0] for n in ("Caste", "Religion", "Region", "Age")
    ]
    UnknownExpression.objects.get_or_create(language="hi", text="पता नहीं")
    with transaction.atomic():
        source = Dataset.objects.create(name="bbq-source")
        dataset = Dataset.objects.create(name=DATASET, adapted_from=source)
        vocabulary = Vocabulary.objects.create(name="उपनाम", language="hi")
        VocabularyEntry.objects.bulk_create(
            VocabularyEntry(
                vocabulary=vocabulary, value=f"शर्मा-{k}", group=f"जाति-{k % 7}", position=k
            )  # fmt: skip
            for k in range(SURNAMES)
        )
        entries = [{"value": f"शर्मा-{k}", "group": f"जाति-{k % 7}"} for k in range(SURNAMES)]
        for number in range(1, 6):
            VocabularyRevision.objects.create(
                vocabulary=vocabulary, number=number, entries=entries, saved_by=author
            )
        versions = []
        for index in range(args.templates):
            category = categories[index % len(categories)]
            concept = StereotypeConcept.objects.create(
                category=category,
                dataset=dataset,
                statement=f"रूढ़ि {index}: ब्राह्मण पढ़े-लिखे होते हैं",
                target_groups=["ब्राह्मण"],
                source="survey",
                validation_status="validated",
                mentions=3,
                survey_mentions=5 + index % 4,
                survey_affected=index % 3,
            )
            EvidenceReference.objects.bulk_create(
                EvidenceReference(
                    concept=concept,
                    kind=kind,
                    url=f"https://example.org/{index}/{kind}",
                    quote="ब्राह्मणों को शिक्षित माना जाता है।",
                    validation_status="validated",
                    added_by=author,
                )  # fmt: skip
                for kind in ("research_article", "news_report", "survey")
            )
            source_template = Template.objects.create(
                dataset=source, external_id=f"SRC-{index}", category=category, position=index
            )
            template = Template.objects.create(
                dataset=dataset,
                external_id=f"T-{index}",
                question_index=str(index),
                category=category,
                position=index,
            )
            versions.append(
                TemplateVersion.objects.create(
                    template=template,
                    number=1,
                    language="hi",
                    ambiguous_context="{{NAME1}} और {{NAME2}} बस स्टॉप पर इंतज़ार कर रहे थे।",
                    disambiguating_context="{{NAME1}} ने टिकट खो दिया।",
                    question_negative="टिकट किसने खोया?",
                    question_non_negative="किसके पास टिकट था?",
                    placeholders={
                        "NAME1": [e["value"] for e in entries[:NAME1_VALUES]],
                        "NAME2": NAME2_VALUES,
                    },
                    placeholder_groups={"NAME1": [e["group"] for e in entries[:NAME1_VALUES]]},
                    placeholder_sources={
                        "NAME1": {"vocabulary": "उपनाम", "language": "hi", "groups": []}
                    },  # fmt: skip
                    concept=concept,
                    transformation_type="CT",
                    status="approved" if index % 2 == 0 else "in_review",
                    created_by=author,
                )
            )
            Adaptation.objects.create(
                dataset=dataset, source=source_template, template=template, created_by=author
            )
    per_template, extra = divmod(args.total, args.templates)
    start = time.perf_counter()
    first_example = 0
    with transaction.atomic(), connection.cursor() as cursor:
        for index, version in enumerate(versions):
            count = per_template + (1 if index < extra else 0)
            cursor.execute(
                INSERT_SQL,
                {"dataset": dataset.pk, "version": version.pk,
                 "category": version.template.category_id, "first_example": first_example,
                 "qindex": str(index), "count": count, "name1": NAME1_VALUES,
                 "name2": NAME2_VALUES, "n2": len(NAME2_VALUES)},
            )  # fmt: skip
            first_example += count
        cursor.execute(TRANSLATE_SQL, {"dataset": dataset.pk, "count": args.translations})
        # A tenth of the translations corrected: the old row retired, a revision replacing it.
        cursor.execute(
            """
            WITH old AS (
                UPDATE catalog_instance SET retired_at = now()
                WHERE id IN (SELECT id FROM catalog_instance
                             WHERE dataset_id = %(dataset)s AND source_instance_id IS NOT NULL
                             ORDER BY id LIMIT %(count)s)
                RETURNING *
            )
            INSERT INTO catalog_instance (
                dataset_id, template_version_id, category_id, language, example_id,
                question_index, combination, name_order, context_condition, question_polarity,
                pairing, proper_noun, placeholder_values, context, question, ans0, ans1, ans2,
                option_roles, answer_info, label, source_instance_id, review, retired_at,
                created_at)
            SELECT dataset_id, template_version_id, category_id, language, example_id,
                   question_index, combination, name_order, context_condition,
                   question_polarity, pairing, proper_noun, placeholder_values,
                   context || ' (সংশোধিত)', question, ans0, ans1, ans2, option_roles,
                   answer_info, label, source_instance_id,
                   review || jsonb_build_object('status', 'corrected', 'revision', 2,
                                                'replaces', id),
                   NULL, now()
            FROM old
            """,
            {"dataset": dataset.pk, "count": args.translations // 10},
        )
    corrected = args.translations // 10
    print(f"loaded {first_example:,} originals + {args.translations:,} translations "
          f"({corrected:,} corrected) in {time.perf_counter() - start:.1f}s")  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE catalog_instance")
    return {"dataset": dataset, "author": author}


def _release(dataset) -> None:
    from django.db import connection

    from apps.catalog.models import TemplateVersion
    from apps.releases.services import release_create

    for label in ("half the templates approved", "all approved"):
        start = time.perf_counter()
        release = release_create(dataset=dataset, notes=label)
        print(f"release {release.number} ({label}): {release.counts['total']:,} instances "
              f"in {time.perf_counter() - start:.1f}s")  # fmt: skip
        TemplateVersion.objects.filter(template__dataset=dataset).update(status="approved")
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE releases_releaseinstance")


def _percentiles(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * len(ordered))) - 1)]
    return (f"p50 {statistics.median(ordered) * 1000:6.2f} ms  p95 {p95 * 1000:6.2f} ms  "
            f"max {ordered[-1] * 1000:6.2f} ms")  # fmt: skip


def _explain(instance_id: int) -> list[str]:
    """EXPLAIN of every query of one service call; the problems: scans of a big table."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from apps.releases.provenance import instance_provenance

    with CaptureQueriesContext(connection) as captured:
        instance_provenance(instance_id=instance_id)
    problems = []
    with connection.cursor() as cursor:
        for query in captured.captured_queries:
            cursor.execute("EXPLAIN " + query["sql"])
            plan = "\n".join(row[0] for row in cursor.fetchall())
            for table in BIG_TABLES:
                if re.search(rf"Seq Scan on {table}\b", plan):
                    problems.append(f"{table} scanned by: {query['sql'][:160]}")
    return problems


def _measure(args, dataset) -> None:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from apps.catalog.models import Instance
    from apps.releases.provenance import instance_provenance
    from apps.releases.registry import provenance_steps

    ids = list(Instance.objects.filter(dataset=dataset).values_list("pk", flat=True))
    total = len(ids)
    rng = random.Random(22)
    # Mostly random rows (nearly all originals), and a tenth each of translations and of
    # retired (corrected) translations, whose answers take the extra lookups.
    some = args.samples // 10
    translations = list(
        Instance.objects.filter(dataset=dataset, source_instance__isnull=False)
        .order_by("?")
        .values_list("pk", flat=True)[:some]
    )
    retired_rows = list(
        Instance.objects.filter(dataset=dataset, retired_at__isnull=False)
        .order_by("?")
        .values_list("pk", flat=True)[:some]
    )
    sample = [*rng.sample(ids, args.samples - 2 * some), *translations, *retired_rows]
    rng.shuffle(sample)
    del ids
    translated = Instance.objects.filter(pk__in=sample, source_instance__isnull=False).count()
    retired = Instance.objects.filter(pk__in=sample, retired_at__isnull=False).count()
    steps = ", ".join(step.name for step in provenance_steps())
    print(f"{total:,} instances; {args.samples} random ones ({translated} translations, "
          f"{retired} retired); steps: {steps}")  # fmt: skip

    queries = []
    for pk in sample:
        with CaptureQueriesContext(connection) as captured:
            instance_provenance(instance_id=pk)
        queries.append(len(captured.captured_queries))
    print(f"queries per service call: min {min(queries)}, max {max(queries)}, "
          f"median {statistics.median(queries)}")  # fmt: skip
    problems = _explain(sample[0])
    print("EXPLAIN: " + ("no scan of " + " or ".join(BIG_TABLES) if not problems
                         else "; ".join(problems)))  # fmt: skip

    client = Client()
    client.force_login(Instance._meta.apps.get_model("auth", "User").objects.get(username=USERNAME))

    def service(pk):
        instance_provenance(instance_id=pk)

    def api(pk):
        response = client.get(f"/api/instances/{pk}/provenance/")
        assert response.status_code == 200, response.status_code

    def page(pk):
        response = client.get(f"/instances/{pk}/provenance/")
        assert response.status_code == 200, response.status_code

    def instance_api(pk):
        response = client.get(f"/api/instances/{pk}/")
        assert response.status_code == 200, response.status_code

    results = {}
    calls = (("service", service), ("api", api), ("page", page), ("baseline", instance_api))
    for name, call in calls:
        for pk in rng.sample(sample, min(args.warmup, len(sample))):
            call(pk)
        timings, cpu = [], []
        for pk in sample:
            start, start_cpu = time.perf_counter(), time.process_time()
            call(pk)
            timings.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        results[name] = timings
        # Wall time, and this process's own CPU time (what a busy machine inflates least:
        # the wall time also waits for PostgreSQL and for the other processes on the cores).
        print(f"{name:8} {_percentiles(timings)}  over {len(timings)} instances; "
              f"CPU p50 {statistics.median(cpu) * 1000:.2f} ms")  # fmt: skip
    ordered = sorted(results["service"])
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * len(ordered))) - 1)]
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} "
          f"on {os.cpu_count()} cpus")  # fmt: skip
    print(f"goal (service p95 <= 50 ms at {total:,} instances): "
          f"{'met' if p95 <= 0.050 else 'NOT met'}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--total", type=int, default=1_000_000, help="original instances")
    parser.add_argument("--templates", type=int, default=200)
    parser.add_argument("--translations", type=int, default=20_000)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep the database afterwards and reuse it if kept before (measure again)",
    )
    args = parser.parse_args()

    var_dir = tempfile.mkdtemp(prefix="kasauti-bench-provenance-")
    os.environ["KASAUTI_VAR_DIR"] = var_dir
    try:
        with bench_database(DB_NAME, keep=args.keep) as existed:
            from django.conf import settings

            from apps.catalog.models import Dataset

            settings.MEDIA_ROOT = Path(var_dir) / "media"
            print(f"database {DB_NAME}; {os.cpu_count()} cpus")
            dataset = Dataset.objects.filter(name=DATASET, releases__number=2).first()
            if existed and dataset is not None:
                print("reusing the kept data (drop the database to rebuild it)")
            else:
                dataset = _build(args)["dataset"]
                _release(dataset)
            _measure(args, dataset)
    finally:
        shutil.rmtree(var_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
