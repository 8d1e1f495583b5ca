"""A NUL character (U+0000) anywhere in a request (path, query, form or JSON body) is one 400
that names the field, answered by one guard before any view (apps/core/middleware.py), never a
500 from PostgreSQL, which cannot hold the character in text (issue 18, item 3.3)."""

from __future__ import annotations

import json
from urllib.parse import quote, urlencode

import pytest
from django.test import Client

from apps.annotation.models import Campaign
from apps.catalog.models import Category, StereotypeConcept, Template
from tests.factories import CategoryFactory, DatasetFactory

pytestmark = pytest.mark.django_db

NUL = "\x00"


@pytest.fixture
def catalog():
    CategoryFactory(name="Age")
    return DatasetFactory(name="nul-demo")


def _template(**fields):
    return {
        "external_id": "AGE-1",
        "dataset": "nul-demo",
        "category": "Age",
        "ambiguous_context": "A {{NAME1}} and a {{NAME2}} met.",
        "disambiguating_context": "The {{NAME1}} left.",
        "question_negative": "Who left?",
        "question_non_negative": "Who stayed?",
        "answer_negative": "The {{NAME1}}",
        "answer_non_negative": "The {{NAME2}}",
        "target_placeholder": "NAME1",
        "pairing": "stereotypical",
        **fields,
    }


# (url, body, the field the NUL is in): every form field that looks a name up in the database.
LOOKUP_POSTS = [
    ("/api/templates/", lambda: _template(dataset=f"nul{NUL}-demo"), "dataset"),
    ("/api/templates/", lambda: _template(category=f"Age{NUL}"), "category"),
    ("/api/concepts/", lambda: {"category": f"A{NUL}ge", "statement": "x"}, "category"),
    ("/api/categories/", lambda: {"name": "Lang", "components": [f"{NUL}Age"]}, "components"),
    (
        "/api/annotation/campaigns/",
        lambda: {"dataset": "1", "kind": "bbq_quality", "annotators": [f"anu{NUL}"]},
        "annotators",
    ),
]

WRITES = (Template, StereotypeConcept, Campaign)


def _assert_refused(response, field: str) -> None:
    assert response.status_code == 400, (response.status_code, response.content[:300])
    body = response.json()
    assert field in body, body
    assert "NUL" in body[field][0], body


@pytest.mark.parametrize("fmt", ["multipart", "urlencoded", "json"])
@pytest.mark.parametrize(("url", "body", "field"), LOOKUP_POSTS)
def test_nul_in_a_lookup_field_is_a_400_naming_it(
    researcher_client, catalog, annotator, url, body, field, fmt
):
    payload = body()
    categories = Category.objects.count()
    if fmt == "json":
        response = researcher_client.post(url, payload, format="json")
    elif fmt == "multipart":
        response = researcher_client.post(url, payload, format="multipart")
    else:
        pairs = [(k, v) for k, vs in payload.items() for v in (vs if type(vs) is list else [vs])]
        response = researcher_client.post(
            url, urlencode(pairs), content_type="application/x-www-form-urlencoded"
        )
    _assert_refused(response, field)
    assert not any(model.objects.exists() for model in WRITES)
    assert Category.objects.count() == categories


FILTERS = [
    ("/api/jobs/", "kind"),
    ("/api/jobs/", "status"),
    ("/api/corrections/", "language"),
    ("/api/translated-strings/", "language"),
    ("/api/templates/", "dataset"),
    ("/api/instances/", "category"),
]


@pytest.mark.parametrize(("url", "param"), FILTERS)
def test_nul_in_a_filter_is_a_400_naming_it(researcher_client, url, param):
    response = researcher_client.get(f"{url}?{param}={quote('hi' + NUL)}")
    _assert_refused(response, param)


def test_nul_in_a_parameter_name_and_in_the_path(researcher_client):
    response = researcher_client.get("/api/jobs/?" + quote(f"ki{NUL}nd") + "=x")
    assert response.status_code == 400 and "NUL" in json.dumps(response.json())
    response = researcher_client.get("/api/datasets/" + quote(f"demo{NUL}") + "/")
    assert response.status_code == 400 and "NUL" in response.json()["detail"]


def test_nul_in_a_nested_json_key_is_named(researcher_client):
    response = researcher_client.post(
        "/api/categories/", {"name": "x", "components": [f"{NUL}v3"]}, format="json"
    )
    _assert_refused(response, "components")
    assert "components[0]" in response.json()["components"][0]


def test_nul_on_a_page_is_a_400_not_a_500(researcher):
    client = Client()
    client.force_login(researcher)
    for url in (f"/jobs/?kind={quote(NUL)}", f"/jobs/?status=x{quote(NUL)}"):
        response = client.get(url)
        assert response.status_code == 400, url
        assert b"NUL" in response.content


def test_clean_requests_pass_untouched(researcher_client, catalog):
    """A literal backslash-u0000 in text is six characters, not a NUL: it is accepted."""
    response = researcher_client.post(
        "/api/templates/",
        _template(
            ambiguous_context="A {{NAME1}} and a {{NAME2}} met \\u0000.",
            placeholders={"NAME1": ["grandmother"], "NAME2": ["student"]},
        ),
        format="json",
    )
    assert response.status_code == 201, response.content
    assert researcher_client.get("/api/jobs/?kind=import").status_code == 200
