"""Translation jobs through a real Celery worker process, real Redis, real PostgreSQL, tiny
real CTranslate2 models and the real MiniLM embedder."""

from __future__ import annotations

import time

import pytest
from django.db import transaction
from django.db.models import Count

from apps.catalog.models import Instance
from apps.translation import services
from apps.translation.models import (
    CorrectionItem,
    TranslatedString,
    TranslationChunk,
    TranslationJob,
    TranslationJobString,
)

from .conftest import make_dataset

pytestmark = pytest.mark.celery_worker

LANGUAGES = ["hi", "ta"]


def wait_for(job_id: int, timeout: float = 120.0) -> TranslationJob:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = TranslationJob.objects.get(pk=job_id)
        if job.is_finished:
            return job
        time.sleep(0.2)
    raise AssertionError(f"translation job {job_id} did not finish in {timeout}s: {job.status}")


def start_job(dataset, **kwargs) -> TranslationJob:
    with transaction.atomic():
        return services.translation_job_create(dataset=dataset, languages=LANGUAGES, **kwargs)


def assert_complete(job: TranslationJob, dataset) -> None:
    """Every unique string translated once per language, every instance translated once."""
    for language in LANGUAGES:
        strings = TranslatedString.objects.filter(
            language=language,
            pk__in=TranslationJobString.objects.filter(job=job).values("string_id"),
        )
        assert strings.count() == job.unique_strings
        assert strings.values("text_hash").distinct().count() == job.unique_strings
    originals = Instance.objects.filter(dataset=dataset, source_instance__isnull=True).count()
    translated = Instance.objects.filter(dataset=dataset, source_instance__isnull=False)
    assert translated.count() == originals * len(LANGUAGES)
    duplicates = (
        translated.values("source_instance_id", "language").annotate(n=Count("id")).filter(n__gt=1)
    )
    assert not duplicates.exists()
    assert not job.chunks.filter(status="pending").exists()


def test_job_runs_on_a_real_worker_and_a_rerun_hits_the_cache(translation_worker):
    dataset = make_dataset(templates=2, distinct=True)
    translation_worker(KASAUTI_TRANSLATION_CHUNK_SIZE="8")
    job = wait_for(start_job(dataset).pk)
    assert job.status == "succeeded", job.error
    assert job.phase == "done"
    assert job.forward_model_version.startswith("ct2-")
    assert job.done_strings == job.total_strings == job.unique_strings * 2
    assert job.result["strings_translated"] == job.total_strings
    assert_complete(job, dataset)

    # Pass/flag: every string judged against the job's threshold, every flag in the queue.
    strings = TranslatedString.objects.filter(produced_by=job)
    passed = strings.filter(similarity__gte=0.75).count()
    flagged = strings.filter(similarity__lt=0.75).count()
    assert passed + flagged == job.total_strings
    assert strings.filter(passed=True).count() == passed
    assert CorrectionItem.objects.filter(kind="low_similarity", job=job).count() == flagged
    by_language = job.result["by_language"]
    assert sum(entry["flagged"] for entry in by_language.values()) == flagged
    # Random weights: mostly gibberish, but real cosine scores in [-1, 1].
    assert all(-1.0 <= s <= 1.0 for s in strings.values_list("similarity", flat=True))

    # A re-run with a threshold in the middle of the scores: nothing re-translated, and the
    # strings split into both passed and flagged.
    scores = sorted(strings.values_list("similarity", flat=True))
    middle = scores[len(scores) // 2]
    rerun = wait_for(start_job(dataset, threshold=middle).pk)
    assert rerun.status == "succeeded", rerun.error
    assert rerun.result["strings_translated"] == 0
    assert rerun.cached_strings == rerun.total_strings == job.total_strings
    assert not TranslationChunk.objects.filter(job=rerun).exists()
    split = rerun.result["by_language"]
    assert sum(e["passed"] for e in split.values()) > 0
    assert sum(e["flagged"] for e in split.values()) > 0
    assert TranslatedString.objects.count() == job.total_strings
    assert_complete(rerun, dataset)


def test_killed_worker_job_completes_without_duplicates(translation_worker):
    dataset = make_dataset(templates=2, distinct=True)
    # One string per chunk: many chunks, so the kill lands mid-job. The broker's visibility
    # timeout is an hour, as in production: the killed worker's in-flight chunk comes back only
    # through the job watchdog (heartbeat older than KASAUTI_JOB_STALE_SECONDS, 30 s).
    no_redelivery = {"KASAUTI_BROKER_VISIBILITY_TIMEOUT": "3600"}
    first = translation_worker(KASAUTI_TRANSLATION_CHUNK_SIZE="1", **no_redelivery)
    job = start_job(dataset)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        done = TranslationChunk.objects.filter(job=job, status="done").count()
        if done >= 3:
            break
        time.sleep(0.01)
    first.kill()
    pending = TranslationChunk.objects.filter(job=job, status="pending").count()
    done_at_kill = TranslationChunk.objects.filter(job=job, status="done").count()
    assert pending > 0, "the job finished before the kill; the test proves nothing"
    assert TranslationJob.objects.get(pk=job.pk).status == "running"

    # The next worker takes the queued chunks; if a chunk died with the first worker, its
    # watchdog notices that the job's heartbeat stopped once the queue is empty and re-queues it
    # (the broker would hand it back only after an hour).
    translation_worker(KASAUTI_TRANSLATION_CHUNK_SIZE="1", **no_redelivery)
    job = wait_for(job.pk, timeout=180)
    assert job.status == "succeeded", job.error
    assert done_at_kill < job.chunks.count()
    assert job.done_strings == job.total_strings
    assert_complete(job, dataset)
    assert TranslatedString.objects.count() == job.total_strings
