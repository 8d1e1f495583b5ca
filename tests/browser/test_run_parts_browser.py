"""The page of a run split into parts (apps/evaluation/services/parts.py), as a researcher and
as an annotator, at 1366 and 390 px: the Parts table lists each part's status and the worker
that took it up, and the run's job page shows one bar per part. The parts run in the test's
process (tests/evaluation/test_run_parts.py shows how), under two worker names."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

pytest.importorskip("worker.engines.lm_scorer")

from apps.core.models import Job  # noqa: E402
from apps.core.services import job_run  # noqa: E402
from apps.evaluation.models import ModelEntry, ModelKind  # noqa: E402
from apps.evaluation.services.parts import run_part_execute  # noqa: E402
from apps.evaluation.services.runs import run_create  # noqa: E402
from tests.browser.support import assert_fits, shot  # noqa: E402
from tests.evaluation.bbq_data import bbq_release  # noqa: E402
from tests.evaluation.run_jobs import run_job_execute  # noqa: E402

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def _part_run(child: Job, worker: str) -> None:
    request = SimpleNamespace(id="", hostname=worker, called_directly=True, is_eager=False)
    job_run(
        job_id=child.pk,
        task=SimpleNamespace(request=request),
        work=lambda job, report: run_part_execute(job=job, progress=report),
    )


def test_the_run_page_shows_its_parts_and_their_workers(
    open_as, live_server, demo_users, tiny_gpt2_dir, settings, django_capture_on_commit_callbacks
):
    settings.KASAUTI_EVAL_CHUNK_ITEMS = 10
    model = ModelEntry.objects.create(
        name="tiny-gpt2", kind=ModelKind.CAUSAL_LM, path=str(tiny_gpt2_dir)
    )
    with django_capture_on_commit_callbacks(execute=False):  # no broker: parts run here
        run = run_create(release=bbq_release(copies=2), model=model, batch_size=4)
        run_job_execute(run=run, progress=lambda done, total=None: None)
    children = list(Job.objects.filter(parent_id=run.job_id).order_by("id"))
    assert len(children) == 4
    _part_run(children[0], "celery@gpu-0.lab.example.org")
    _part_run(children[1], "celery@gpu-1.lab.example.org")
    # The third part's worker died mid-way: it waits to be taken up again; the last is queued.
    Job.objects.filter(pk=children[2].pk).update(
        status=Job.Status.QUEUED, worker="celery@gpu-0.lab.example.org", recoveries=1, attempts=1
    )

    for username in ("rekha", "anu"):
        for width in (1366, 390):
            page = open_as(username, width=width, height=900)
            page.goto(f"{live_server.url}/evaluation/runs/{run.pk}/")
            rows = page.locator("#run-parts tr.run-part")
            assert rows.count() == 4
            assert rows.nth(0).locator(".worker").text_content() == "celery@gpu-0.lab.example.org"
            assert rows.nth(1).locator(".badge").text_content() == "succeeded"
            assert rows.nth(2).locator(".badge").text_content() == "queued"
            assert rows.nth(3).locator(".worker").text_content() == "—"
            assert page.text_content("#run-status").strip() == "running"
            assert_fits(page)
            page.locator("#run-parts").scroll_into_view_if_needed()
            shot(page, f"run_parts_{username}_{width}")
            if username == "rekha" and width == 1366:
                page.goto(f"{live_server.url}/jobs/{run.job_id}/")
                assert page.get_by_text("Part 1 of 4 · celery@gpu-0.lab.example.org").count() == 1
                shot(page, "run_parts_job_page_1366", full_page=True)
