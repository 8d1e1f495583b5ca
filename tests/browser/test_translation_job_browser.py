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
    monkeypatch.setattr(dispatch, "start", lambda job: queue.messages.append(("start", job.pk)))
    monkeypatch.setattr(
        dispatch, "chunks", lambda job, ids: queue.messages.extend(("chunk", i) for i in ids)
    )
    monkeypatch.setattr(
        dispatch, "assemble", lambda job: queue.messages.append(("assemble", job.pk))
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
