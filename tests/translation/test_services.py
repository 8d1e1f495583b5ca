"""The job's services with fake models, driven message by message."""

from __future__ import annotations

import pytest

from apps.catalog.models import Instance
from apps.core.errors import ConflictError
from apps.core.models import Job
from apps.translation import services
from apps.translation.models import (
    CorrectionItem,
    CorrectionRevision,
    TranslatedString,
    TranslationChunk,
    TranslationJob,
    TranslationJobString,
)
from apps.translation.pipeline import STRINGS_PER_INSTANCE

from .conftest import make_dataset

pytestmark = pytest.mark.django_db


@pytest.fixture
def chunk_size(settings):
    settings.KASAUTI_TRANSLATION_CHUNK_SIZE = 4
    return 4


def _run(dataset, queue, languages=("hi", "ta"), **kwargs) -> TranslationJob:
    job = services.translation_job_create(dataset=dataset, languages=list(languages), **kwargs)
    queue.drain()
    job.refresh_from_db()
    return job


def test_unique_strings_share_ambiguous_contexts_questions_and_options():
    dataset = make_dataset(templates=2)  # two templates with the same wording
    collection = services.sources_collect(dataset=dataset, source="instances")
    originals = Instance.objects.filter(dataset=dataset)
    assert len(collection.instances) == originals.count() == 32
    assert collection.strings_in_items == 32 * STRINGS_PER_INSTANCE
    ambiguous = set(originals.filter(context_condition="ambig").values_list("context", flat=True))
    disambiguated = set(
        originals.filter(context_condition="disambig").values_list("context", flat=True)
    )
    unique = set(collection.unique)
    assert ambiguous <= unique
    # A disambiguated context is never sent whole: its ambiguous part is already there.
    assert not disambiguated & unique
    assert len(collection.unique) == len(unique)
    for text in collection.instances:
        assert set(text.strings()) <= unique
    # 4 ambiguous + 4 disambiguating remainders + 2 questions + 4 names + unknown expressions.
    assert len(unique) <= 20 and len(unique) / collection.strings_in_items < 0.15


def test_job_translates_unique_strings_once_and_assembles_instances(
    fake_engines, inline_queue, chunk_size
):
    dataset = make_dataset(templates=2)
    job = _run(dataset, inline_queue)
    assert job.status == "succeeded", job.error
    unique = job.unique_strings
    assert fake_engines.strings_translated == unique * 2
    # Length-sorted chunks of at most 4, per language.
    assert all(len(texts) <= chunk_size for _, texts in fake_engines.calls)
    assert job.chunks.count() == 2 * -(-unique // chunk_size)
    assert job.done_strings == job.total_strings == unique * 2
    assert job.progress_by_language["hi"] == {"total": unique, "done": unique, "cached": 0}
    assert job.rate is not None and job.eta_seconds == 0
    # The generic job row mirrors the outcome.
    core = Job.objects.get(pk=job.core_job_id)
    assert core.kind == "translate" and core.status == "succeeded"

    translated = Instance.objects.filter(dataset=dataset, source_instance__isnull=False)
    assert translated.count() == 64
    sample = translated.filter(language="hi", context_condition="disambig").first()
    original = sample.source_instance
    assert (sample.template_version_id, sample.example_id, sample.label) == (
        original.template_version_id,
        original.example_id,
        original.label,
    )
    assert sample.option_roles == original.option_roles
    ambiguous = original.context.split(". ")[0] + "."
    assert sample.context == original.context.upper()
    assert sample.context.startswith(ambiguous.upper() + " ")
    assert sample.ans0 == original.ans0.upper()
    assert job.result["created"] == 64 and job.result["strings_translated"] == unique * 2


def test_low_similarity_strings_and_option_mismatches_go_to_the_correction_queue(
    fake_engines, inline_queue
):
    dataset = make_dataset()
    fake_engines.answers["The grandson"] = "THE NEPHEW"
    job = _run(dataset, inline_queue, languages=["hi"])
    assert job.status == "succeeded", job.error

    low = CorrectionItem.objects.filter(kind="low_similarity")
    flagged = TranslatedString.objects.filter(similarity__lt=0.75)
    assert low.count() == flagged.count() > 0
    assert {item.reason for item in low} == {"low similarity 0.50 < 0.75"}
    assert all("forgotten" in item.translated_string.source_text for item in low)

    mismatch = CorrectionItem.objects.filter(kind="option_mismatch")
    # Disambiguated instances with the grandson among their options: 2 combinations x 2 x 2.
    expected = (
        Instance.objects.filter(
            dataset=dataset, language="hi", context_condition="disambig", ans0__contains="NEPHEW"
        )
        | Instance.objects.filter(
            dataset=dataset, language="hi", context_condition="disambig", ans1__contains="NEPHEW"
        )
        | Instance.objects.filter(
            dataset=dataset, language="hi", context_condition="disambig", ans2__contains="NEPHEW"
        )
    )
    assert mismatch.count() == expected.count() == 4
    item = mismatch.first()
    assert "'THE NEPHEW'" in item.reason and "not found in the translated context" in item.reason
    assert item.instance.language == "hi"
    assert job.result["by_language"]["hi"]["option_mismatches"] == 4


def test_cache_hit_translates_nothing_again(fake_engines, inline_queue):
    dataset = make_dataset()
    first = _run(dataset, inline_queue)
    sent = fake_engines.strings_translated
    items = CorrectionItem.objects.count()
    second = _run(dataset, inline_queue, threshold=0.4)
    assert second.status == "succeeded", second.error
    assert fake_engines.strings_translated == sent  # zero strings re-translated
    assert second.cached_strings == second.total_strings == first.total_strings
    assert second.chunks.count() == 0
    assert second.result["strings_translated"] == 0
    # Both jobs list all their strings; with threshold 0.4 nothing of the second is flagged.
    assert TranslationJobString.objects.filter(job=second).count() == second.total_strings
    assert second.result["by_language"]["hi"]["flagged"] == 0
    assert CorrectionItem.objects.count() == items
    assert Instance.objects.filter(dataset=dataset, language="hi").count() == 16


def test_a_chunk_run_twice_writes_nothing_twice(fake_engines, inline_queue, chunk_size):
    dataset = make_dataset()
    job = services.translation_job_create(dataset=dataset, languages=["hi"])
    inline_queue.drain(limit=1)  # the start step only
    chunk = TranslationChunk.objects.filter(job=job).first()
    first = services.translation_chunk_run(chunk_id=chunk.pk)
    strings = TranslatedString.objects.count()
    assert first.status == "done" and first.translated == chunk.size

    # Redelivery of a finished chunk: nothing is translated or written.
    again = services.translation_chunk_run(chunk_id=chunk.pk)
    assert again.status == "already-done"
    # A worker that died after its write but before marking the chunk: cache hits only.
    TranslationChunk.objects.filter(pk=chunk.pk).update(status="pending")
    third = services.translation_chunk_run(chunk_id=chunk.pk)
    assert third.status == "done" and third.translated == 0
    assert TranslatedString.objects.count() == strings
    assert fake_engines.strings_translated == chunk.size

    inline_queue.drain()
    job.refresh_from_db()
    assert job.status == "succeeded"
    assert job.done_strings == job.total_strings
    assert Instance.objects.filter(dataset=dataset, language="hi").count() == 16
    # A duplicated assembly message changes nothing.
    services.translation_job_assemble(job_id=job.pk)
    assert Instance.objects.filter(dataset=dataset, language="hi").count() == 16


def test_only_the_last_chunk_queues_the_assembly(fake_engines, inline_queue, chunk_size):
    dataset = make_dataset()
    job = services.translation_job_create(dataset=dataset, languages=["hi"])
    inline_queue.drain(limit=1)
    chunks = [m for m in inline_queue.messages if m[0] == "chunk"]
    assert len(chunks) > 1
    inline_queue.drain(limit=len(chunks) - 1)
    assert not any(kind == "assemble" for kind, _ in inline_queue.messages)
    inline_queue.drain(limit=1)
    assert inline_queue.messages == [("assemble", job.pk)]


def test_resume_requeues_pending_chunks_only(fake_engines, inline_queue, chunk_size):
    dataset = make_dataset()
    job = services.translation_job_create(dataset=dataset, languages=["hi"])
    inline_queue.drain(limit=2)  # start + first chunk
    pending = set(job.chunks.filter(status="pending").values_list("id", flat=True))
    inline_queue.messages.clear()  # the broker lost everything
    assert services.translation_job_resume(job=job) == len(pending)
    assert {i for _, i in inline_queue.messages} == pending
    inline_queue.drain()
    job.refresh_from_db()
    assert job.status == "succeeded"
    with pytest.raises(ConflictError):
        services.translation_job_resume(job=job)


def test_stale_jobs_are_resumed(fake_engines, inline_queue):
    from datetime import timedelta

    from django.utils import timezone

    dataset = make_dataset()
    job = services.translation_job_create(dataset=dataset, languages=["hi"])
    inline_queue.drain(limit=1)
    inline_queue.messages.clear()
    assert services.translation_jobs_resume_stale() == []
    TranslationJob.objects.filter(pk=job.pk).update(
        heartbeat_at=timezone.now() - timedelta(hours=2)
    )
    assert services.translation_jobs_resume_stale() == [job.pk]
    inline_queue.drain()
    job.refresh_from_db()
    assert job.status == "succeeded"


def test_cancel_stops_the_chunks(fake_engines, inline_queue, chunk_size):
    dataset = make_dataset()
    job = services.translation_job_create(dataset=dataset, languages=["hi"])
    inline_queue.drain(limit=2)
    services.translation_job_cancel(job=job)
    before = fake_engines.strings_translated
    inline_queue.drain()
    job.refresh_from_db()
    assert job.status == "cancelled"
    assert fake_engines.strings_translated == before
    assert not Instance.objects.filter(dataset=dataset, language="hi").exists()
    with pytest.raises(ConflictError):
        services.translation_job_cancel(job=job)


def test_sentence_pairs_are_translated_with_a_parallel_link(fake_engines, inline_queue):
    from apps.catalog.models import SentencePair
    from tests.factories import CategoryFactory, DatasetFactory

    dataset = DatasetFactory()
    category = CategoryFactory()
    for n in range(3):
        SentencePair.objects.create(
            dataset=dataset,
            external_id=f"p{n}",
            category=category,
            sent_more=f"Poor people are lazy {n}.",
            sent_less="Rich people are lazy.",
            direction="stereo",
        )
    job = _run(dataset, inline_queue, languages=["bn"], source="sentence_pairs")
    assert job.status == "succeeded", job.error
    assert job.unique_strings == 4 and job.strings_in_items == 6
    translated = SentencePair.objects.filter(dataset=dataset, language="bn")
    assert translated.count() == 3
    assert all(p.parallel.language == "en" for p in translated)


def test_a_correction_keeps_its_history():
    dataset = make_dataset()
    item = CorrectionItem.objects.create(
        kind="option_mismatch",
        language="hi",
        instance=Instance.objects.filter(dataset=dataset).first(),
        reason="answer option 'x' not found",
    )
    services.correction_item_resolve(item=item, text="first fix")
    services.correction_item_resolve(item=item, text="second fix")
    item.refresh_from_db()
    assert item.status == "resolved" and item.corrected_text == "second fix"
    revisions = list(
        CorrectionRevision.objects.filter(item=item).values_list("previous_text", "text")
    )
    assert revisions == [("", "first fix"), ("first fix", "second fix")]
