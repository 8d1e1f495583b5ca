"""The one job page in a real browser (issue 18, 2.9): Cancel goes once the job finishes (and
Resume comes when it can be resumed) without a reload; the started and finished times fill in
live; the page fits a 390 px phone screen."""

from __future__ import annotations

import pytest

from apps.core.heartbeat import job_progress
from apps.core.services import job_create, job_fail, job_start, job_succeed

from .support import assert_fits, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def _job(demo_dataset, user, title=None):
    return job_create(
        kind="instantiate",
        title=title or f"Instantiate dataset {demo_dataset.name}",
        params={"dataset_id": demo_dataset.pk, "dataset_name": demo_dataset.name},
        unit="instances",
        created_by=user,
    )


def _status_is(page, status: str) -> None:
    page.wait_for_function(
        "(s) => document.getElementById('job-status').textContent.trim() === s", arg=status
    )


def test_times_fill_in_and_cancel_goes_when_the_job_finishes(
    live_server, open_as, demo_users, demo_dataset
):
    job = _job(demo_dataset, demo_users["researcher"])
    page = open_as("rekha")
    page.goto(f"{live_server.url}/jobs/{job.pk}/")
    assert page.text_content("#job-started").strip() == "—"
    assert page.locator("#job-cancel").is_visible()
    assert not page.locator("#job-resume").is_visible()

    started = job_start(job_id=job.pk)
    job_progress(job_id=job.pk, done=3, total=34)
    _status_is(page, "running")
    page.wait_for_function(
        "(t) => document.getElementById('job-started').textContent.trim() === t",
        arg=started.started_at.strftime("%Y-%m-%d %H:%M:%S"),
    )
    assert page.locator("#job-cancel").is_visible()

    job_succeed(job_id=job.pk, result={"created": 34, "retired": 0, "total": 34})
    _status_is(page, "succeeded")
    job.refresh_from_db()
    assert page.text_content("#job-finished").strip() == job.finished_at.strftime(
        "%Y-%m-%d %H:%M:%S"
    )
    assert not page.locator("#job-cancel").is_visible()
    assert not page.locator("#job-resume").is_visible()
    shot(page, "job_succeeded_live")

    # The same page opened afterwards shows the same.
    page.reload()
    assert page.locator("#job-cancel").count() == 0 or not page.locator("#job-cancel").is_visible()
    assert page.text_content("#job-started").strip() == started.started_at.strftime(
        "%Y-%m-%d %H:%M:%S"
    )


def test_a_failed_job_offers_resume_without_a_reload(
    live_server, open_as, demo_users, demo_dataset
):
    job = _job(demo_dataset, demo_users["researcher"])
    page = open_as("rekha")
    page.goto(f"{live_server.url}/jobs/{job.pk}/")
    job_start(job_id=job.pk)
    _status_is(page, "running")
    job_fail(job_id=job.pk, error="instantiate: the demo template has no fillers")
    _status_is(page, "failed")
    page.wait_for_selector("#job-resume", state="visible")
    assert not page.locator("#job-cancel").is_visible()
    assert page.text_content("#job-finished").strip() != "—"


@pytest.mark.parametrize("width", [390, 1366])
def test_the_job_page_fits_the_screen(live_server, open_as, demo_users, demo_dataset, width):
    job = _job(
        demo_dataset,
        demo_users["researcher"],
        title="Instantiate dataset demo with a long title that has to wrap on a phone screen",
    )
    job_start(job_id=job.pk)
    job_progress(job_id=job.pk, done=12, total=880)
    job_fail(
        job_id=job.pk,
        error="instantiate: template demo/Age/7 names the vocabulary"
        " 'age_old_words_for_grandparents_hi' that does not exist (a_long_unbroken_identifier)",
    )
    for name in ("rekha", "anu"):
        page = open_as(name, width=width, height=800)
        page.goto(f"{live_server.url}/jobs/{job.pk}/")
        assert_fits(page)
        shot(page, f"job_failed_{name}_{width}", full_page=True)
