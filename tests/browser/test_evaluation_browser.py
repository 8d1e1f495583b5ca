"""A researcher starts a zero-shot run of a tiny local model on a release from the browser; a
real Celery worker scores it; the run page shows the job's progress, then the six BharatBBQ
metrics per category x language and the heat maps."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("worker.engines.lm_scorer")
pytest.importorskip("apps.evaluation.metrics.bbq")

from apps.evaluation.models import EvaluationRun, ModelEntry, ModelKind, Prediction  # noqa: E402
from tests.browser.conftest import login  # noqa: E402
from tests.evaluation.bbq_data import bbq_release  # noqa: E402

pytestmark = pytest.mark.celery_worker


def test_researcher_runs_a_zero_shot_evaluation_and_sees_the_heat_maps(
    live_server, page, demo_users, tiny_gpt2_dir, celery_worker_process, artifacts_dir
):
    release = bbq_release()
    model = ModelEntry.objects.create(
        name="tiny-gpt2", kind=ModelKind.CAUSAL_LM, path=str(tiny_gpt2_dir)
    )
    # Model loading and scoring share two cores with the web server: allow slow page loads
    # (every wait below is for a condition, not a fixed time).
    page.set_default_timeout(60_000)
    base = live_server.url
    login(page, base, "rekha")
    page.goto(f"{base}/evaluation/")
    page.click("#new-run")
    page.select_option("#id_release", str(release.pk))
    page.select_option("#id_model", str(model.pk))
    page.select_option("#id_shots", "0")
    page.select_option("#id_instruction_language", "en")
    page.screenshot(path=str(artifacts_dir / "evaluation_new_run.png"), full_page=True)
    page.click("#start-run")
    # The run's page: a glob "runs/*/" would also match the form's own URL, runs/new/.
    page.wait_for_url(re.compile(r".*/evaluation/runs/\d+/$"))
    run = EvaluationRun.objects.get()
    # The job card polls the job; the page reloads once it has finished and shows results.
    page.wait_for_selector("#overall-metrics", timeout=120_000)
    run.refresh_from_db()
    assert run.status == "complete", run.error
    assert Prediction.objects.filter(run=run).count() == 16
    assert page.text_content("#run-status").strip() == "complete"
    stats = page.locator("#overall-metrics .stat")
    labels = [stats.nth(i).locator(".stat-label").text_content() for i in range(stats.count())]
    assert labels[:6] == ["Acc_A", "Acc_D", "BS_A", "BS_D", "SBS_A", "SBS_D"]
    maps = page.locator("#heat-maps figure")
    assert maps.count() == 6
    # Each heat map: 2 categories x 2 languages, one cell per pair.
    first = maps.nth(0)
    assert first.get_attribute("data-metric") == "acc_a"
    assert first.locator("rect").count() == 4
    assert set(first.locator("text.axis").all_text_contents()) >= {"Caste", "Religion", "en", "hi"}
    rows = page.locator("#metrics-table tbody tr")
    assert rows.count() == 8  # category x language x context condition
    page.locator("#heat-maps").screenshot(path=str(artifacts_dir / "evaluation_heat_maps.png"))
    page.screenshot(path=str(artifacts_dir / "evaluation_run.png"), full_page=True)
