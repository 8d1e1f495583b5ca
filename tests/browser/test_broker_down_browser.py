"""A researcher presses a button that queues a job while the task broker is down: the page
answers at once (503) and says why, at desktop and phone widths (issue 18, 3.6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from apps.core.models import Job
from tests.core.test_broker_down import broker_down  # noqa: F401 (fixture)

from .support import assert_fits, navigates

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

SHOTS = Path("/tmp/harden-shots")


@pytest.mark.parametrize("width", [1366, 390])
def test_instantiate_with_the_broker_down_says_why(
    open_as,
    live_server,
    demo_users,
    demo_dataset,
    broker_down,  # noqa: F811 (the fixture imported above)
    width,
):
    page = open_as("rekha", width=width, height=800)
    page.goto(f"{live_server.url}/datasets/{demo_dataset.pk}/")
    # (How fast the request fails is timed in tests/core/test_broker_down.py, without a
    # browser's rendering in the measure.)
    with navigates(page):
        page.click("#instantiate-button")
    heading = page.text_content("h1")
    assert "task broker is down" in heading
    body = page.text_content("main") or page.text_content("body")
    assert broker_down in body and "marked failed" in body
    assert "{%" not in body
    job = Job.objects.get(kind="instantiate")
    assert page.get_attribute("text=The failed job", "href") == f"/jobs/{job.pk}/"
    assert_fits(page)
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"broker-down-{width}.png"), full_page=True)
    assert Job.objects.get(kind="instantiate").status == Job.Status.FAILED
