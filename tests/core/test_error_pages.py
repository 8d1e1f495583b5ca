"""The app's own error pages (issue 18, 2.8 and 2.9): with DEBUG on, as under `make run`, and
off; JSON stays JSON under /api/; a GET on a form's POST-only address gets a page that says
what the address is for and links to the form."""

from __future__ import annotations

import logging

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

DEBUG_MARKERS = ("Using the URLconf", "You’re seeing this error", "You're seeing this error")


def page_of(response) -> str:
    html = response.content.decode()
    assert '<header class="topbar">' in html, html[:500]
    assert not any(marker in html for marker in DEBUG_MARKERS)
    return html


@pytest.fixture(params=[True, False], ids=["debug", "production"])
def debug(request, settings):
    settings.DEBUG = request.param
    return request.param


def test_no_route_is_the_apps_404(client, researcher, debug):
    client.force_login(researcher)
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert "Page not found" in page_of(response)


def test_a_missing_object_is_the_apps_404(client, researcher, debug):
    client.force_login(researcher)
    response = client.get("/datasets/987654/")
    assert response.status_code == 404
    assert "Page not found" in page_of(response)


def test_api_404_stays_json(client, researcher, debug):
    client.force_login(researcher)
    response = client.get("/api/no-such-endpoint/")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}


def test_a_missing_slash_is_still_added(client, researcher, settings):
    settings.DEBUG = True
    client.force_login(researcher)
    response = client.get("/evaluation/models")
    assert response.status_code == 301 and response["Location"] == "/evaluation/models/"


@pytest.mark.urls("tests.core.error_urls")
def test_a_failing_view_is_the_apps_500_and_its_traceback_is_logged(researcher, debug, caplog):
    client = Client(raise_request_exception=False)
    client.force_login(researcher)
    with caplog.at_level(logging.ERROR, logger="django.request"):
        response = client.get("/broken/")
    assert response.status_code == 500
    assert "Something went wrong" in page_of(response)
    assert "a bug in a view" not in response.content.decode()
    logged = [r for r in caplog.records if r.exc_info and "a bug in a view" in str(r.exc_info[1])]
    assert len(logged) == 1


@pytest.mark.urls("tests.core.error_urls")
def test_django_debug_pages_on_request(researcher, settings):
    settings.DEBUG = True
    settings.KASAUTI_DJANGO_DEBUG_PAGES = True
    client = Client(raise_request_exception=False)
    client.force_login(researcher)
    assert "Using the URLconf" in client.get("/no-such-page/").content.decode()
    assert "a bug in a view" in client.get("/broken/").content.decode()


@pytest.mark.parametrize(
    ("path", "purpose", "form"),
    [
        ("/evaluation/models/new/", "registers a model", "/evaluation/models/"),
        ("/jobs/1/cancel/", "it receives a form", "/jobs/1/"),
        # No page two levels up: the nearest one above.
        ("/vocabularies/unknown-answers/1/delete/", "removes an unknown", "/vocabularies/"),
    ],
)
def test_get_on_a_post_only_address_is_a_page_with_the_form_link(
    client, researcher, debug, path, purpose, form
):
    client.force_login(researcher)
    response = client.get(path)
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    html = page_of(response)
    assert purpose in html
    assert f'id="form-page" href="{form}"' in html


def test_api_405_stays_json(client, researcher):
    client.force_login(researcher)
    response = client.delete("/api/jobs/")
    assert response.status_code == 405
    assert "detail" in response.json()


def test_a_csrf_failure_is_the_apps_403(researcher):
    client = Client(enforce_csrf_checks=True)
    client.force_login(researcher)
    response = client.post("/evaluation/models/new/", {"name": "x"})
    assert response.status_code == 403
    assert "reload the page" in page_of(response)
