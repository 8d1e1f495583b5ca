"""Over-long or out-of-range input is a 400 naming the field, and a failing service leaves
nothing half-written (issue 7, items 3 and 4)."""

from __future__ import annotations

import pytest
from django.db import DataError

from apps.catalog import services
from apps.catalog.models import Category, StereotypeConcept, Template, TemplateVersion
from tests.catalog.test_api import TEMPLATE_PAYLOAD
from tests.factories import CategoryFactory, DatasetFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def dataset():
    CategoryFactory(name="Age")
    return DatasetFactory(name="limits")


def test_overlong_subcategory_is_400_and_writes_nothing(researcher_client, dataset) -> None:
    payload = {**TEMPLATE_PAYLOAD, "dataset": "limits", "subcategory": "s" * 150}
    response = researcher_client.post("/api/templates/", payload, format="json")
    assert response.status_code == 400
    assert "100 characters" in response.json()["subcategory"][0]
    assert not Template.objects.exists()
    # ...and the same POST with a valid subcategory then succeeds (no 409 from a leftover).
    payload["subcategory"] = "s" * 100
    assert researcher_client.post("/api/templates/", payload, format="json").status_code == 201
    assert TemplateVersion.objects.get().subcategory == "s" * 100


@pytest.mark.parametrize(
    ("field", "limit"),
    [("external_id", 100), ("question_index", 50), ("variant", 20), ("original_bbq_id", 50)],
)
def test_every_template_column_limit_is_a_400(researcher_client, dataset, field, limit) -> None:
    payload = {**TEMPLATE_PAYLOAD, "dataset": "limits", field: "x" * (limit + 1)}
    response = researcher_client.post("/api/templates/", payload, format="json")
    assert response.status_code == 400 and field in response.json()
    assert not Template.objects.exists()


def test_template_patch_with_overlong_subcategory_is_400(researcher_client, dataset) -> None:
    created = researcher_client.post(
        "/api/templates/", {**TEMPLATE_PAYLOAD, "dataset": "limits"}, format="json"
    ).json()
    response = researcher_client.patch(
        f"/api/templates/{created['id']}/", {"subcategory": "s" * 101}, format="json"
    )
    assert response.status_code == 400
    assert TemplateVersion.objects.count() == 1


def test_template_create_is_one_transaction(dataset) -> None:
    """A version that the database refuses takes its template row with it."""
    content = {
        key: value
        for key, value in TEMPLATE_PAYLOAD.items()
        if key not in {"external_id", "category"}
    }
    with pytest.raises(DataError):
        services.template_create(
            dataset=dataset,
            external_id="AGE-1",
            category=Category.objects.get(name="Age"),
            content={**content, "subcategory": "s" * 150},
        )
    assert not Template.objects.exists()


def test_concept_mentions_out_of_range_is_400(researcher_client, dataset) -> None:
    payload = {"category": "Age", "statement": "s", "source": "survey", "mentions": 10**13}
    response = researcher_client.post("/api/concepts/", payload, format="json")
    assert response.status_code == 400 and "mentions" in response.json()
    payload["mentions"] = 2_147_483_647
    assert researcher_client.post("/api/concepts/", payload, format="json").status_code == 201
    assert StereotypeConcept.objects.get().mentions == 2_147_483_647


def test_concept_overlong_attribute_and_evidence_url_are_400(researcher_client, dataset) -> None:
    base = {"category": "Age", "statement": "s", "source": "survey"}
    response = researcher_client.post(
        "/api/concepts/", {**base, "attribute": "a" * 201}, format="json"
    )
    assert response.status_code == 400 and "attribute" in response.json()
    long_url = "https://example.org/" + "p" * 500
    response = researcher_client.post(
        "/api/concepts/", {**base, "evidence": [{"url": long_url}]}, format="json"
    )
    assert response.status_code == 400 and "evidence" in response.json()
    assert not StereotypeConcept.objects.exists()


def test_category_with_unknown_component_is_400(researcher_client, dataset) -> None:
    response = researcher_client.post(
        "/api/categories/", {"name": "Age x Caste", "components": ["Age", "Nope"]}, format="json"
    )
    assert response.status_code == 400 and "components" in response.json()
    assert not Category.objects.filter(name="Age x Caste").exists()


@pytest.mark.parametrize("limit", ["10000000000000000000000", "99999999999999"])
def test_huge_limit_is_capped_not_a_500(annotator_client, dataset, limit) -> None:
    response = annotator_client.get(f"/api/datasets/?limit={limit}")
    assert response.status_code == 200
    assert response.json()["count"] == 1


def test_huge_offset_is_an_empty_page(annotator_client, dataset) -> None:
    response = annotator_client.get("/api/datasets/?offset=10000000000000000000000")
    assert response.status_code == 200 and response.json()["results"] == []
