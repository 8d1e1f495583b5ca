"""The pages in a real browser: login, exact counts, Indic rendering, role-gated actions."""

from __future__ import annotations

import pytest

from apps.catalog.models import Instance, SentencePair
from apps.catalog.services import instantiation_plan
from apps.core.models import Job

from .conftest import login

# serialized_rollback: the flush after a transactional test would otherwise also wipe the
# migrations' base data (categories, unknown expressions) that later tests rely on.
pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def test_researcher_sees_exact_counts_and_devanagari(
    live_server, page, demo_users, demo_dataset, artifacts_dir
):
    base = live_server.url
    login(page, base, "rekha")
    page.click(f"a[href='/datasets/{demo_dataset.pk}/']")
    page.wait_for_url(f"{base}/datasets/{demo_dataset.pk}/")

    plan = instantiation_plan(dataset=demo_dataset)
    assert page.text_content("#plan-total").strip() == str(plan.total)
    for template_plan in plan.templates:
        cell = page.text_content(f"#plan-count-{template_plan.template_id}")
        assert cell.strip() == str(template_plan.count)
    assert page.is_visible("#instantiate-button")

    hindi = SentencePair.objects.filter(dataset=demo_dataset, language="hi").first()
    cell = page.locator(f"#pair-{hindi.pk}-more")
    assert cell.text_content() == hindi.sent_more
    assert cell.get_attribute("lang") == "hi"

    # The page's own font files are used: the Devanagari face was fetched and loaded.
    loaded = page.evaluate(
        """async () => {
            await document.fonts.ready;
            return [...document.fonts].filter(f => f.status === "loaded").map(f => f.family);
        }"""
    )
    assert any("Noto Sans Devanagari" in family for family in loaded), loaded
    assert page.evaluate("() => document.fonts.check('16px \"Noto Sans Devanagari\"', 'हिंदी')")

    page.locator("#sentence-pairs").scroll_into_view_if_needed()
    page.locator("#sentence-pairs").screenshot(path=str(artifacts_dir / "sentence_pairs.png"))
    page.screenshot(path=str(artifacts_dir / "dataset_page.png"), full_page=True)


@pytest.mark.celery_worker
def test_researcher_instantiates_and_watches_the_job(
    live_server, page, demo_users, demo_dataset, celery_worker_process, artifacts_dir
):
    # The click queues a real job on Redis; the real worker process runs it.
    base = live_server.url
    login(page, base, "rekha")
    page.goto(f"{base}/datasets/{demo_dataset.pk}/")
    page.click("#instantiate-button")
    page.wait_for_url(f"{base}/jobs/*/")

    job = Job.objects.get()
    assert page.url == f"{base}/jobs/{job.pk}/"
    page.wait_for_function(
        "() => ['succeeded', 'failed'].includes("
        "document.getElementById('job-status').textContent.trim())",
        timeout=60_000,
    )
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    plan = instantiation_plan(dataset=demo_dataset)
    assert Instance.objects.filter(dataset=demo_dataset).count() == plan.total

    page.goto(f"{base}/datasets/{demo_dataset.pk}/")
    assert page.text_content("#live-total").strip() == str(plan.total)
    assert page.text_content("#to-create").strip() == "0"

    # Hindi instances render in the instance list with the gold option marked.
    page.goto(f"{base}/datasets/{demo_dataset.pk}/instances/?language=hi")
    first = Instance.objects.filter(dataset=demo_dataset, language="hi").order_by(
        "category__name", "example_id", "language"
    )[0]
    article = page.locator(f"#instance-{first.pk}")
    assert article.locator(".context").text_content() == first.context
    assert article.locator("li.gold").count() == 1
    article.screenshot(path=str(artifacts_dir / "hindi_instance.png"))


def test_annotator_sees_no_button_and_gets_403(live_server, page, demo_users, demo_dataset):
    base = live_server.url
    login(page, base, "anu")
    page.goto(f"{base}/datasets/{demo_dataset.pk}/")
    assert page.text_content("#plan-total").strip() == str(
        instantiation_plan(dataset=demo_dataset).total
    )
    assert page.locator("#instantiate-button").count() == 0

    # A hand-made POST with the annotator's session and a valid CSRF token is still refused.
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    response = page.request.post(
        f"{base}/datasets/{demo_dataset.pk}/instantiate/",
        headers={"X-CSRFToken": token, "Referer": f"{base}/datasets/{demo_dataset.pk}/"},
    )
    assert response.status == 403
    assert not Job.objects.exists()


def test_job_page_refreshes_until_the_job_finishes(live_server, page, demo_users, demo_dataset):
    from apps.core.services import job_create, job_progress, job_start, job_succeed

    job = job_create(
        kind="instantiate",
        title=f"Instantiate dataset {demo_dataset.name}",
        params={"dataset_id": demo_dataset.pk, "dataset_name": demo_dataset.name},
        unit="instances",
        created_by=demo_users["researcher"],
    )
    base = live_server.url
    login(page, base, "rekha")
    page.goto(f"{base}/jobs/{job.pk}/")
    assert page.text_content("#job-status").strip() == "queued"
    assert page.text_content("#job-title").strip() == f"Instantiate dataset {demo_dataset.name}"

    # The page polls /api/jobs/<id>/ every second; changes show up without a reload.
    job_start(job_id=job.pk)
    job_progress(job_id=job.pk, done=3, total=34)
    page.wait_for_function(
        "() => document.getElementById('job-progress-text').textContent === '3 / 34 instances'"
    )
    job_succeed(job_id=job.pk, result={"created": 880, "retired": 0, "total": 880})
    # Finished: the page reloads once and shows a readable summary with links, not a dict.
    page.wait_for_function(
        "() => document.getElementById('job-result').textContent.includes('880 instance(s)')"
    )
    assert page.text_content("#job-status").strip() == "succeeded"
    assert "{" not in page.text_content("#job-result")
    links = page.text_content("#job-links")
    assert "View instances" in links and f"Dataset {demo_dataset.name}" in links
