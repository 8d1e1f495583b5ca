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
    page.wait_for_selector(".opblock", timeout=60_000)
    assert page.locator(".opblock").count() > 50
    assert "Kasauti API" in page.text_content(".information-container")
    shot(page, f"api_docs_{width}")
    hosts = {urlparse(url).netloc for url in requested if url.startswith("http")}
    assert hosts == {urlparse(live_server.url).netloc}, hosts


def test_annotators_have_no_api_docs_link(live_server, open_as, demo_users):
    page = open_as("anu")
    page.goto(f"{live_server.url}/jobs/")
    assert page.locator("header.topbar a#api-docs-link").count() == 0
