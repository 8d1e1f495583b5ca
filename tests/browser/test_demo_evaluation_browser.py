"""Journey 2.2: on the demo (what `make run` loads), a researcher starts a BBQ-style run with
the random-weight demo causal LM and a CrowS-Pairs run with the demo masked LM, on a real
Celery worker, and sees the heat maps and the CrowS table, every page with their figures
saying "random weights, demo". The run pages fit a 390 px screen (2.9)."""

from __future__ import annotations

import io
import re
import time

import pytest
from django.core.management import call_command

pytest.importorskip("worker.engines.lm_scorer")

from apps.evaluation.models import DEMO_LABEL, EvaluationRun, ModelEntry, ModelKind  # noqa: E402
from tests.browser.conftest import login  # noqa: E402
from tests.evaluation.bbq_data import bbq_release  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.celery_worker]

SHOTS = "/tmp/evalj-shots"
# A run's page, not the form at /evaluation/runs/new/ (which a glob "runs/*/" also matches).
RUN_PAGE = re.compile(r".*/evaluation/runs/\d+/$")


@pytest.fixture
def demo_model_root(tmp_path, monkeypatch, settings):
    """Where the demo models go, for this process and the worker it starts."""
    root = tmp_path / "models"
    monkeypatch.setenv("KASAUTI_MODEL_ROOT", str(root))
    settings.KASAUTI_MODEL_ROOT = root
    return root


def _finished(kind: str, timeout: float = 240.0) -> EvaluationRun:
    """The run once its job has finished (polled in the database), with what went wrong."""
    deadline = time.monotonic() + timeout
    while True:
        run = EvaluationRun.objects.select_related("job").get(kind=kind)
        if run.job is not None and run.job.is_finished:
            return run
        assert time.monotonic() < deadline, (run.status, run.job and run.job.status)
        time.sleep(0.5)


def _fits(page, width: int, name: str) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.screenshot(path=f"{SHOTS}/{name}-{width}.png", full_page=True)
    overflow = page.evaluate("document.documentElement.scrollWidth")
    wide = page.evaluate(
        """(width) => [...document.querySelectorAll('main *')]
            .filter(e => e.getBoundingClientRect().right > width + 1)
            .slice(0, 8).map(e => e.tagName + '#' + e.id + '.' + e.className)""",
        width,
    )
    assert overflow <= width, f"{name} is {overflow} px wide at {width} px: {wide}"


def test_a_researcher_tries_evaluation_on_the_demo(
    demo_model_root, live_server, page, demo_users, demo_dataset, celery_worker_process
):
    call_command("build_demo_eval_models", "--if-missing", stdout=io.StringIO())
    # The demo's own release has 880 items: too slow for two shared cores under a test
    # suite; the same random-weight model is run on a 16-item release (the run path is one).
    release = bbq_release()
    causal = ModelEntry.objects.get(kind=ModelKind.CAUSAL_LM, demo=True)
    masked = ModelEntry.objects.get(kind=ModelKind.MASKED_LM, demo=True)
    page.set_default_timeout(60_000)
    base = live_server.url
    login(page, base, "rekha")

    # A BBQ-style run from the form, with the demo causal LM.
    page.goto(f"{base}/evaluation/")
    page.click("#new-run")
    page.select_option("#id_release", str(release.pk))
    page.select_option("#id_model", str(causal.pk))
    page.click("#start-run")
    page.wait_for_url(RUN_PAGE)
    run = _finished("bbq_mc")
    assert run.status == "complete", (run.status, run.error, run.job.status, run.job.error)
    page.wait_for_selector("#heat-maps figure")
    assert page.locator("#heat-maps figure").count() == 6
    assert "random weights" in page.text_content("#demo-warning").lower()
    assert DEMO_LABEL in page.text_content("#run-title")
    for width in (1366, 390):
        _fits(page, width, "demo-bbq-run")
    page.set_viewport_size({"width": 1280, "height": 900})

    # A CrowS-Pairs run with the demo masked LM.
    page.goto(f"{base}/evaluation/runs/new/bias/?kind=crows")
    page.select_option("#id_kind", "crows")
    page.select_option("#id_dataset", str(demo_dataset.pk))
    page.select_option("#id_model", str(masked.pk))
    page.click("#start-bias-run")
    page.wait_for_url(RUN_PAGE)
    crows = _finished("crows")
    assert crows.status == "complete", (crows.status, crows.error, crows.job.error)
    page.wait_for_selector("#crows-table")
    assert "random weights" in page.text_content("#demo-warning").lower()
    for width in (1366, 390):
        _fits(page, width, "demo-crows-run")
    page.set_viewport_size({"width": 1280, "height": 900})

    # Every other page with their figures says what they are.
    page.goto(f"{base}/evaluation/")
    for row in (f"tr[data-run='{run.pk}']", f"tr[data-run='{crows.pk}']"):
        assert DEMO_LABEL in page.text_content(row)
    _fits(page, 1366, "demo-run-list")
    page.goto(f"{base}/evaluation/compare/?runs={run.pk}")
    assert DEMO_LABEL in page.text_content("main")
    page.goto(f"{base}/evaluation/models/")
    assert page.locator("#model-table .badge.demo").count() == 2
    # Drawn in the chart itself (not only in a hover title).
    assert DEMO_LABEL in page.locator("#model-bars text.axis").all_text_contents()
    for width in (1366, 390):
        _fits(page, width, "demo-models")
    page.goto(f"{base}/jobs/{run.job_id}/")
    assert DEMO_LABEL in page.text_content("main")
