"""The job's services with the real (tiny) engines in-process, driven message by message.

Expected values are never hard-coded translations or scores: they are read back from what the
real engines stored, or recomputed from it with the pure functions of `pipeline`.
"""

from __future__ import annotations

import pytest

from apps.catalog.models import Dataset, Instance
from apps.core.errors import ConflictError
from apps.core.models import Job
from apps.translation import engines, pipeline, services
from apps.translation.models import (
    ENGLISH_TAG,
    LANGUAGE_TAGS,
    CorrectionItem,
    CorrectionRevision,
    TranslatedString,
    TranslationChunk,
    TranslationJob,
    TranslationJobString,
)
from apps.translation.pipeline import STRINGS_PER_INSTANCE

from .conftest import InlineQueue, make_dataset, threshold_inside

pytestmark = pytest.mark.django_db

_STRING_FIELDS = (
    "id",
    "text_hash",
    "language",
    "model_version",
    "source_text",
    "translation",
    "back_translation",
    "similarity",
    "passed",
    "produced_by_id",
)
_INSTANCE_FIELDS = ("id", "source_instance_id", "language", "context", "question")
_ANSWERS = ("ans0", "ans1", "ans2")
_ITEM_FIELDS = ("job_id", "kind", "language", "translated_string_id", "instance_id", "reason")


@pytest.fixture
def chunk_size(settings):
    settings.KASAUTI_TRANSLATION_CHUNK_SIZE = 4
    return 4


def _run(dataset, queue, languages=("hi", "ta"), **kwargs) -> TranslationJob:
    job = services.translation_job_create(dataset=dataset, languages=list(languages), **kwargs)
    queue.drain()
    job.refresh_from_db()
    return job


def _run_until_assembly(job: TranslationJob, queue: InlineQueue) -> None:
    """Run the start and every chunk; leave the assembly message queued."""
    while queue.messages and queue.messages[0][0] != "assemble":
        queue.drain(limit=1)
    assert queue.messages == [("assemble", job.pk)]


def _job_strings(job: TranslationJob, language: str | None = None):
    strings = TranslatedString.objects.filter(
        pk__in=TranslationJobString.objects.filter(job=job).values("string_id")
    )
    return strings.filter(language=language) if language else strings


def _snapshot_strings() -> list[dict]:
    return list(TranslatedString.objects.order_by("id").values(*_STRING_FIELDS))


def _snapshot_instances(dataset: Dataset) -> list[dict]:
    return list(
        Instance.objects.filter(dataset=dataset, source_instance__isnull=False)
        .order_by("id")
        .values(*_INSTANCE_FIELDS, *_ANSWERS)
    )


def _snapshot_items() -> list[dict]:
    return list(CorrectionItem.objects.order_by("id").values(*_ITEM_FIELDS))


def _expected_instances(
    dataset: Dataset, job: TranslationJob, language: str
) -> dict[int, tuple[str, str, tuple[str, ...]]]:
    """Source instance id -> (context, question, answers) rebuilt from the stored translations."""
    translations = {s.source_text: s.translation for s in _job_strings(job, language)}

    def tr(text: str) -> str:
        return translations[text] if text.strip() else text

    collection = services.sources_collect(dataset=dataset, source="instances")
    return {
        text.source_id: (
            pipeline.join_context([tr(part) for part in text.context_parts]),
            tr(text.question),
            tuple(tr(answer) for answer in text.answers),
        )
        for text in collection.instances
    }


def _expected_mismatches(dataset: Dataset, job: TranslationJob, language: str) -> dict[int, str]:
    """Source instance id -> reason, from the pure option check over the stored translations."""
    originals = {i.pk: i for i in Instance.objects.filter(dataset=dataset, language="en")}
    expected: dict[int, str] = {}
    for source_id, (context, _, answers) in _expected_instances(dataset, job, language).items():
        original = originals[source_id]
        if original.context_condition != "disambig":
            continue
        problems = pipeline.option_mismatches(
            english_context=original.context,
            english_answers=(original.ans0, original.ans1, original.ans2),
            roles=original.option_roles,
            translated_context=context,
            translated_answers=answers,
        )
        if problems:
            expected[source_id] = "; ".join(problems)
    return expected


def _mismatch_items(job: TranslationJob, language: str) -> dict[int, str]:
    items = CorrectionItem.objects.filter(
        job=job, kind="option_mismatch", language=language
    ).select_related("instance")
    result = {item.instance.source_instance_id: item.reason for item in items}
    assert len(result) == items.count()
    assert all(item.instance.language == language for item in items)
    return result


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
    # 4 ambiguous + 4 disambiguating remainders + 2 questions + 4 names + the unknown
    # expressions the instances drew. Which expressions are drawn depends on the template ids
    # (the draw is seeded per template), so the bound counts them instead of assuming a number.
    unknown_expressions = {
        getattr(instance, f"ans{instance.option_roles.index('unknown')}") for instance in originals
    }
    assert len(unique) <= 14 + len(unknown_expressions)
    assert len(unique) / collection.strings_in_items < 0.15


def test_job_translates_unique_strings_once_and_assembles_instances(
    translate_spy, inline_queue, chunk_size
):
    dataset = make_dataset(templates=2)
    job = _run(dataset, inline_queue)
    assert job.status == "succeeded", job.error
    unique = job.unique_strings
    collection = services.sources_collect(dataset=dataset, source="instances")
    assert unique == len(collection.unique)
    # Each unique string went to the real engines exactly once per language.
    assert translate_spy.strings_translated == unique * 2
    for language in ("hi", "ta"):
        sent = [t for lang, texts in translate_spy.calls if lang == language for t in texts]
        assert sorted(sent) == sorted(collection.unique)
    # Length-sorted chunks of at most 4, per language.
    assert all(len(texts) <= chunk_size for _, texts in translate_spy.calls)
    assert job.chunks.count() == 2 * -(-unique // chunk_size)
    assert job.done_strings == job.total_strings == unique * 2
    assert job.progress_by_language["hi"] == {"total": unique, "done": unique, "cached": 0}
    assert job.core_job.rate is not None and job.core_job.eta_seconds == 0
    assert job.forward_model_version.startswith("ct2-")
    # The job's state is its core job's: the one record of every background job.
    core = Job.objects.get(pk=job.core_job_id)
    assert core.kind == "translate" and core.status == "succeeded"

    # The stored rows are what the real engines produce: the scores are the embedder's cosine
    # of each source with its back-translation, judged against the job's threshold.
    strings = list(_job_strings(job))
    assert len(strings) == TranslatedString.objects.count() == unique * 2
    assert all(s.produced_by_id == job.pk and s.model_version == job.model_version for s in strings)
    embedder = engines.embedder()
    rescored = embedder.cosine_pairs(
        [s.source_text for s in strings], [s.back_translation for s in strings]
    )
    for string, score in zip(strings, rescored, strict=True):
        assert string.similarity == pytest.approx(float(score), abs=1e-4)
        assert string.passed == (string.similarity >= job.threshold)
    hindi = [s for s in strings if s.language == "hi"]
    forward = engines.translator(engines.EN_INDIC)
    retranslated = forward.translate(
        [s.source_text for s in hindi], ENGLISH_TAG, LANGUAGE_TAGS["hi"]
    )
    assert [s.translation for s in hindi] == retranslated

    # Every instance is assembled from the stored translations of its parts, once per language.
    translated = Instance.objects.filter(dataset=dataset, source_instance__isnull=False)
    assert translated.count() == 64
    for language in ("hi", "ta"):
        expected = _expected_instances(dataset, job, language)
        rows = translated.filter(language=language).select_related("source_instance")
        assert {row.source_instance_id for row in rows} == set(expected)
        for row in rows:
            assert (row.context, row.question, (row.ans0, row.ans1, row.ans2)) == expected[
                row.source_instance_id
            ]
            original = row.source_instance
            assert (row.template_version_id, row.example_id, row.label) == (
                original.template_version_id,
                original.example_id,
                original.label,
            )
            assert row.option_roles == original.option_roles
            assert row.context_condition == original.context_condition
    assert job.result["created"] == 64 and job.result["strings_translated"] == unique * 2


def test_low_similarity_strings_go_to_the_correction_queue(translate_spy, inline_queue):
    dataset = make_dataset()
    threshold = threshold_inside(dataset, ["hi"])
    job = _run(dataset, inline_queue, languages=["hi"], threshold=threshold)
    assert job.status == "succeeded", job.error
    strings = list(_job_strings(job))
    assert len(strings) == job.unique_strings
    for string in strings:
        assert string.threshold == threshold
        assert string.passed == (string.similarity >= threshold)
    below = {s.pk: s for s in strings if s.similarity < threshold}
    assert 0 < len(below) < len(strings)
    # Exactly the strings under the job's threshold are queued, each with its real score.
    low = CorrectionItem.objects.filter(job=job, kind="low_similarity")
    assert {item.translated_string_id: item.reason for item in low} == {
        pk: pipeline.low_similarity_reason(s.similarity, threshold) for pk, s in below.items()
    }
    assert all(item.language == "hi" and item.status == "open" for item in low)
    by_language = job.result["by_language"]["hi"]
    assert by_language["passed"] == len(strings) - len(below)
    assert by_language["flagged"] == by_language["low_similarity_items"] == len(below)


def test_option_mismatches_are_those_of_the_stored_translations(translate_spy, inline_queue):
    dataset = make_dataset()
    job = _run(dataset, inline_queue, languages=["hi"])
    assert job.status == "succeeded", job.error
    expected = _expected_mismatches(dataset, job, "hi")
    assert _mismatch_items(job, "hi") == expected
    assert job.result["by_language"]["hi"]["option_mismatches"] == len(expected)


def test_an_option_missing_from_the_translated_context_is_flagged(translate_spy, inline_queue):
    dataset = make_dataset()
    job = services.translation_job_create(dataset=dataset, languages=["hi"])
    _run_until_assembly(job, inline_queue)
    job.refresh_from_db()
    # Edit the stored translations before the assembly reads them: every string "translated"
    # as itself, except one option, whose translation the contexts do not contain.
    strings = _job_strings(job, "hi")
    assert strings.count() == job.unique_strings
    for string in strings:
        string.translation = string.source_text
        if string.source_text == "The grandson":
            string.translation = "The nephew"
        string.save(update_fields=["translation"])
    inline_queue.drain()
    job.refresh_from_db()
    assert job.status == "succeeded", job.error

    expected = _expected_mismatches(dataset, job, "hi")
    items = _mismatch_items(job, "hi")
    assert items == expected
    # Exactly the disambiguated instances offering the grandson, and no other.
    offering = Instance.objects.filter(dataset=dataset, language="en", context_condition="disambig")
    with_grandson = {
        i.pk
        for i in offering
        if "The grandson" in (i.ans0, i.ans1, i.ans2) and "grandson" in i.context
    }
    assert set(items) == with_grandson and 0 < len(with_grandson) < offering.count()
    for reason in items.values():
        assert reason == (
            "answer option 'The nephew' (English 'The grandson') not found in the "
            "translated context"
        )
    assert job.result["by_language"]["hi"]["option_mismatches"] == len(with_grandson)


def test_cache_hit_translates_nothing_again(translate_spy, inline_queue):
    dataset = make_dataset()
    first = _run(dataset, inline_queue)
    assert first.status == "succeeded", first.error
    sent = translate_spy.strings_translated
    assert sent == first.total_strings
    strings = _snapshot_strings()
    instances = _snapshot_instances(dataset)
    first_items = list(CorrectionItem.objects.filter(job=first).values(*_ITEM_FIELDS))

    threshold = threshold_inside(dataset, ["hi", "ta"])
    second = _run(dataset, inline_queue, threshold=threshold)
    assert second.status == "succeeded", second.error
    assert translate_spy.strings_translated == sent  # zero strings re-translated
    assert second.cached_strings == second.total_strings == first.total_strings
    assert second.chunks.count() == 0
    assert second.result["strings_translated"] == 0
    assert second.result["strings_from_cache"] == second.total_strings
    # Nothing new stored or assembled; the first job's queue is untouched.
    assert _snapshot_strings() == strings
    assert _snapshot_instances(dataset) == instances
    assert list(CorrectionItem.objects.filter(job=first).values(*_ITEM_FIELDS)) == first_items
    # Both jobs list all their strings; the second judges them by its own threshold.
    links = TranslationJobString.objects.filter(job=second)
    assert links.count() == second.total_strings and all(link.cached for link in links)
    below = {s["id"] for s in strings if s["similarity"] < threshold}
    assert 0 < len(below) < len(strings)
    assert sum(e["flagged"] for e in second.result["by_language"].values()) == len(below)
    # A string has one correction item: those the first job (threshold 0.75) queued already
    # are not queued again, only the strings it passed and the second job flags are new.
    first_flagged = {s["id"] for s in strings if s["similarity"] < first.threshold}
    assert (
        set(
            CorrectionItem.objects.filter(job=second, kind="low_similarity").values_list(
                "translated_string_id", flat=True
            )
        )
        == below - first_flagged
    )
    queued = CorrectionItem.objects.filter(kind="low_similarity").values_list(
        "translated_string_id", flat=True
    )
    assert set(queued) == below | first_flagged and len(queued) == len(set(queued))
    assert not CorrectionItem.objects.filter(job=second, kind="option_mismatch").exists()
    assert Instance.objects.filter(dataset=dataset, language="hi").count() == 16


def test_a_chunk_run_twice_writes_nothing_twice(translate_spy, inline_queue, chunk_size):
    dataset = make_dataset()
    job = services.translation_job_create(dataset=dataset, languages=["hi"])
    inline_queue.drain(limit=1)  # the start step only
    chunk = TranslationChunk.objects.filter(job=job).first()
    first = services.translation_chunk_run(chunk_id=chunk.pk)
    assert first.status == "done" and first.translated == chunk.size
    strings = _snapshot_strings()
    assert sorted(s["source_text"] for s in strings) == sorted(chunk.texts)

    # Redelivery of a finished chunk: nothing is translated or written.
    again = services.translation_chunk_run(chunk_id=chunk.pk)
    assert again.status == "already-done"
    # A worker that died after its write but before marking the chunk: cache hits only.
    TranslationChunk.objects.filter(pk=chunk.pk).update(status="pending")
    third = services.translation_chunk_run(chunk_id=chunk.pk)
    assert third.status == "done" and third.translated == 0
    assert _snapshot_strings() == strings
    assert translate_spy.strings_translated == chunk.size
    assert TranslationJobString.objects.filter(job=job).count() == chunk.size

    _run_until_assembly(job, inline_queue)
    # The last chunk redelivered after it finished queues a second assembly message.
    last = job.chunks.order_by("-finished_at").first()
    assert services.translation_chunk_run(chunk_id=last.pk).status == "already-done"
    assert inline_queue.messages == [("assemble", job.pk), ("assemble", job.pk)]
    inline_queue.drain(limit=1)
    job.refresh_from_db()
    assert job.status == "succeeded"
    assert job.done_strings == job.total_strings
    assert translate_spy.strings_translated == job.total_strings
    result = job.result
    instances = _snapshot_instances(dataset)
    items = _snapshot_items()
    assert len(instances) == 16
    assert {i["source_instance_id"] for i in instances} == set(
        _expected_instances(dataset, job, "hi")
    )
    strings = _snapshot_strings()
    assert len(strings) == job.total_strings
    # The duplicated assembly message, and one more, change nothing.
    inline_queue.drain()
    services.translation_job_assemble(job_id=job.pk)
    job.refresh_from_db()
    assert job.result == result
    assert _snapshot_instances(dataset) == instances
    assert _snapshot_items() == items
    assert _snapshot_strings() == strings


def test_only_the_last_chunk_queues_the_assembly(translate_spy, inline_queue, chunk_size):
    dataset = make_dataset()
    job = services.translation_job_create(dataset=dataset, languages=["hi"])
    inline_queue.drain(limit=1)
    chunks = [m for m in inline_queue.messages if m[0] == "chunk"]
    assert len(chunks) > 1
    inline_queue.drain(limit=len(chunks) - 1)
    assert not any(kind == "assemble" for kind, _ in inline_queue.messages)
    assert job.chunks.filter(status="pending").count() == 1
    inline_queue.drain(limit=1)
    assert inline_queue.messages == [("assemble", job.pk)]
    job.refresh_from_db()
    assert translate_spy.strings_translated == job.unique_strings


def test_resume_requeues_pending_chunks_only(translate_spy, inline_queue, chunk_size):
    dataset = make_dataset()
    job = services.translation_job_create(dataset=dataset, languages=["hi"])
    inline_queue.drain(limit=2)  # start + first chunk
    pending = set(job.chunks.filter(status="pending").values_list("id", flat=True))
    done = job.chunks.get(status="done")
    inline_queue.messages.clear()  # the broker lost everything
    services.translation_job_resume(job=job)
    assert sorted(i for _, i in inline_queue.messages) == sorted(pending)
    inline_queue.drain()
    job.refresh_from_db()
    assert job.status == "succeeded"
    # The finished chunk's strings were not translated again.
    sent = [t for _, texts in translate_spy.calls for t in texts]
    assert sorted(sent) == sorted(set(sent)) and len(sent) == job.unique_strings
    assert set(done.texts) <= set(sent[: done.size])
    assert TranslatedString.objects.count() == job.unique_strings
    with pytest.raises(ConflictError):
        services.translation_job_resume(job=job)


def test_a_job_whose_heartbeat_stopped_is_recovered_by_the_watchdog(translate_spy, inline_queue):
    from datetime import timedelta

    from django.utils import timezone

    from apps.core.watchdog import jobs_recover

    dataset = make_dataset()
    job = services.translation_job_create(dataset=dataset, languages=["hi"])
    inline_queue.drain(limit=1)
    inline_queue.messages.clear()  # the worker died with every message
    assert jobs_recover() == {"requeued": [], "failed": []}  # its heartbeat is fresh
    Job.objects.filter(pk=job.core_job_id).update(
        heartbeat_at=timezone.now() - timedelta(seconds=45)
    )
    assert jobs_recover() == {"requeued": [job.core_job_id], "failed": []}
    inline_queue.drain()
    job.refresh_from_db()
    assert job.status == "succeeded"
    assert job.core_job.recoveries == 1
    assert translate_spy.strings_translated == job.unique_strings
    assert Instance.objects.filter(dataset=dataset, language="hi").count() == 16


def test_cancel_stops_the_chunks(translate_spy, inline_queue, chunk_size):
    dataset = make_dataset()
    job = services.translation_job_create(dataset=dataset, languages=["hi"])
    inline_queue.drain(limit=2)
    services.translation_job_cancel(job=job)
    before = translate_spy.strings_translated
    assert before == chunk_size
    strings = _snapshot_strings()
    inline_queue.drain()
    job.refresh_from_db()
    assert job.status == "cancelled"
    assert translate_spy.strings_translated == before
    assert _snapshot_strings() == strings  # the finished chunk's rows stay as cache entries
    assert job.chunks.filter(status="pending").exists()
    assert not Instance.objects.filter(dataset=dataset, language="hi").exists()
    with pytest.raises(ConflictError):
        services.translation_job_cancel(job=job)


def test_sentence_pairs_are_translated_with_a_parallel_link(translate_spy, inline_queue):
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
    assert translate_spy.strings_translated == 4
    translations = {s.source_text: s.translation for s in _job_strings(job, "bn")}
    translated = SentencePair.objects.filter(dataset=dataset, language="bn")
    assert translated.count() == 3
    for pair in translated.select_related("parallel"):
        original = pair.parallel
        assert original.language == "en" and original.external_id == pair.external_id
        assert pair.sent_more == translations[original.sent_more]
        assert pair.sent_less == translations[original.sent_less]


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
