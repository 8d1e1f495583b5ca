"""The translation job page while the job runs (ISSUE18 2.5), in a real browser: every panel
stays live without a reload, and output of the demo models says it is gibberish.

The job is driven step by step through its real services (planning, chunks, assembly on the
demo models `manage.py build_demo_models` writes) while the page polls, as a worker would."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from apps.translation import services
from apps.translation.models import TranslationJob
from tests.translation.conftest import InlineQueue, make_dataset

from .conftest import login
from .support import shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


@pytest.fixture
def demo_engines(settings, tmp_path_factory):
    root = tmp_path_factory.mktemp("demo-models")
    call_command("build_demo_models", "--output", str(root))
    settings.KASAUTI_MODELS = {
        "indictrans2_en_indic": str(root / "indictrans2-en-indic"),
        "indictrans2_indic_en": str(root / "indictrans2-indic-en"),
        "embedder": "",
        "device": "cpu",
        "compute_type": "default",
    }
    settings.KASAUTI_TRANSLATION_CHUNK_SIZE = 4
    return root


@pytest.fixture
def queue(monkeypatch) -> InlineQueue:
    queue = InlineQueue()
    dispatch = services.dispatch
    monkeypatch.setattr(
        dispatch, "start_send", lambda *, job: queue.messages.append(("start", job.pk))
    )
    monkeypatch.setattr(
        dispatch,
        "chunks_send",
        lambda *, job, chunk_ids: queue.messages.extend(("chunk", i) for i in chunk_ids),
    )
    monkeypatch.setattr(
        dispatch, "assembly_send", lambda *, job: queue.messages.append(("assemble", job.pk))
    )
    return queue


def _text(page, selector: str) -> str:
    return " ".join(page.text_content(selector).split())


@pytest.mark.parametrize("width", [1366, 390])
def test_every_panel_stays_live_and_demo_output_is_labelled(
    live_server, page, demo_users, demo_engines, queue, width
):
    from apps.core.services import job_start

    page.set_viewport_size({"width": width, "height": 900})
    dataset = make_dataset()
    job = services.translation_job_create(
        dataset=dataset, languages=["hi"], created_by=demo_users["researcher"]
    )
    base = live_server.url
    login(page, base, "rekha")
    page.goto(f"{base}/jobs/{job.core_job_id}/")
    assert _text(page, "#tj-phase") == "Waiting for a worker"
    page.evaluate("window.__notReloaded = true")

    # A worker takes the job up and plans it: the lower panel follows, without a reload.
    job_start(job_id=job.core_job_id)
    assert queue.drain(limit=1) == 1
    job.refresh_from_db()
    assert job.unique_strings > 4 and job.chunks.count() > 1
    page.wait_for_function(
        "() => document.getElementById('tj-phase').textContent.trim() === 'Translating'",
        timeout=15_000,
    )
    assert f"{job.unique_strings} unique" in _text(page, "#tj-strings")
    assert "No translation yet" in _text(page, "#tj-strings-table")

    # One chunk done: its strings appear in the table while the job still runs, and the demo
    # models' output says it is gibberish.
    assert queue.drain(limit=1) == 1
    page.wait_for_function(
        "() => !document.getElementById('tj-strings-table').textContent"
        ".includes('No translation yet')",
        timeout=15_000,
    )
    assert page.evaluate("window.__notReloaded") is True
    assert _text(page, "#job-status") == "running"
    note = _text(page, "#demo-models-note")
    assert "demo models" in note and "gibberish" in note
    shot(page, f"translation_job_running_{width}", full_page=True)
    page.screenshot(path=f"/tmp/transl-shots/job_running_{width}.png", full_page=True)

    queue.drain()
    assert TranslationJob.objects.get(pk=job.pk).status == "succeeded"
    page.wait_for_function(
        "() => document.getElementById('tj-phase').textContent.trim() === 'Done'",
        timeout=15_000,
    )
    assert "demo models" in _text(page, "#demo-models-note")
    page.screenshot(path=f"/tmp/transl-shots/job_done_{width}.png", full_page=True)


@pytest.mark.parametrize("width", [1366, 390])
def test_a_correction_shows_its_string_inside_the_sentences_it_occurs_in(
    live_server, open_as, demo_users, demo_engines, queue, width
):
    """ISSUE18 2.6: a flagged answer option ("sc", "obc") means nothing alone: the correction
    page shows each English sentence it occurs in, beside its translation, string marked."""
    from apps.annotation.services import annotator_update
    from apps.catalog.models import Instance
    from apps.translation.models import CorrectionItem

    annotator_update(user=demo_users["annotator"], languages=["hi"])
    dataset = make_dataset()
    job = services.translation_job_create(
        dataset=dataset, languages=["hi"], created_by=demo_users["researcher"]
    )
    queue.drain()
    assert TranslationJob.objects.get(pk=job.pk).status == "succeeded"
    english = Instance.objects.filter(dataset=dataset, language="en")
    answers = set(english.values_list("ans0", flat=True))
    item = (
        CorrectionItem.objects.filter(
            job=job, kind="low_similarity", translated_string__source_text__in=answers
        )
        .select_related("translated_string")
        .order_by("id")
        .first()
    )
    assert item is not None
    source = item.translated_string.source_text
    where = english.filter(ans0=source).order_by("id").first()

    page = open_as("anu", width=width, height=900)
    page.goto(f"{live_server.url}/annotate/corrections/?item={item.pk}")
    rows = page.locator("#occurrences .occurrence")
    assert rows.count() >= 1
    first = rows.nth(0)
    english_text = " ".join(first.locator(".occurrence-en").text_content().split())
    assert where.context.split()[0] in english_text and where.question in english_text
    assert first.locator(".occurrence-en mark").first.text_content() == source
    translated = Instance.objects.get(source_instance=where, language="hi")
    hindi = first.locator(".occurrence-target")
    assert hindi.get_attribute("lang") == "hi"
    assert " ".join(translated.question.split()) in " ".join(hindi.text_content().split())
    assert "gibberish" in page.text_content("#demo-models-note")
    # Nothing wider than the screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shot(page, f"annotation_correction_context_{width}", full_page=True)
    page.screenshot(path=f"/tmp/transl-shots/correction_{width}.png", full_page=True)
