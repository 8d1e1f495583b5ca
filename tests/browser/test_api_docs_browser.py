"""The API docs in a real browser (issue 18, 2.9): researchers reach /api/docs/ from the top
bar; Swagger UI renders the operations from files served by Kasauti itself (no CDN)."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from .support import assert_fits, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


@pytest.mark.parametrize("width", [1366, 390])
def test_researcher_opens_the_api_docs_from_the_top_bar(live_server, open_as, demo_users, width):
    page = open_as("rekha", width=width, height=800)
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    assert_fits(page)
    page.click("header.topbar a#api-docs-link")
    page.wait_for_url(f"{live_server.url}/api/docs/")
    # Tags start folded (SWAGGER_UI_SETTINGS): a short list to open, not 200+ operations.
    page.wait_for_selector(".opblock-tag", timeout=60_000)
    tags = page.locator(".opblock-tag")
    assert tags.count() > 5
    assert page.locator(".opblock").count() == 0
    assert "Kasauti API" in page.text_content(".information-container")
    shot(page, f"api_docs_{width}")
    page.locator(".opblock-tag", has_text="jobs").first.click()
    page.wait_for_selector(".opblock")
    assert "/api/jobs/" in page.text_content(".opblock-tag-section.is-open")
    shot(page, f"api_docs_jobs_{width}")
    hosts = {urlparse(url).netloc for url in requested if url.startswith("http")}
    assert hosts == {urlparse(live_server.url).netloc}, hosts


def test_annotators_have_no_api_docs_link(live_server, open_as, demo_users):
    page = open_as("anu")
    page.goto(f"{live_server.url}/jobs/")
    assert page.locator("header.topbar a#api-docs-link").count() == 0
