"""One filter convention on every list: ids, and names where unique; unknown -> 400."""

from __future__ import annotations

import pytest

from apps.catalog.services import dataset_instantiate
from tests.factories import CategoryFactory, DatasetFactory, TemplateVersionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_datasets():
    age = CategoryFactory(name="Age")
    first = DatasetFactory(name="first")
    second = DatasetFactory(name="second")
    for dataset in (first, second):
        TemplateVersionFactory(
            template__dataset=dataset, template__category=age, template__external_id="AGE-7"
        )
        dataset_instantiate(dataset=dataset)
    return first, second


DATASET_LISTS = [
    "/api/instances/",
    "/api/templates/",
    "/api/releases/",
    "/api/translation-jobs/",
    "/api/sentence-pairs/",
    "/api/tuples/",
    "/api/context-sets/",
]


def results(response) -> list[dict]:
    body = response.json()
    return body["results"] if isinstance(body, dict) else body


@pytest.mark.parametrize("url", DATASET_LISTS)
def test_dataset_filter_takes_id_or_name_and_rejects_unknown(annotator_client, two_datasets, url):
    first, _ = two_datasets
    by_id = annotator_client.get(f"{url}?dataset={first.pk}")
    by_name = annotator_client.get(f"{url}?dataset=first")
    assert by_id.status_code == by_name.status_code == 200
    assert results(by_id) == results(by_name)
    for unknown in ("999999", "no-such-dataset", "99999999999999999999999"):
        response = annotator_client.get(f"{url}?dataset={unknown}")
        assert response.status_code == 400, (url, unknown)
        assert "no dataset has the id or name" in response.json()["dataset"][0]


def test_instances_by_dataset_id_is_no_longer_an_empty_page(annotator_client, two_datasets):
    first, second = two_datasets
    by_id = results(annotator_client.get(f"/api/instances/?dataset={first.pk}"))
    assert by_id and {row["id"] for row in by_id}.isdisjoint(
        row["id"] for row in results(annotator_client.get(f"/api/instances/?dataset={second.pk}"))
    )


def test_category_filter_takes_id_or_name(annotator_client, two_datasets):
    age_id = results(annotator_client.get("/api/categories/?"))  # categories are not paginated
    age = next(c for c in age_id if c["name"] == "Age")
    for url in ("/api/instances/", "/api/templates/", "/api/concepts/"):
        assert annotator_client.get(f"{url}?category={age['id']}").status_code == 200
        assert results(annotator_client.get(f"{url}?category={age['id']}")) == results(
            annotator_client.get(f"{url}?category=Age")
        )
        response = annotator_client.get(f"{url}?category=Nope")
        assert response.status_code == 400 and "no category" in response.json()["category"][0]


def test_template_filter_takes_id_or_unique_external_id(annotator_client, two_datasets):
    first, _ = two_datasets
    template = first.templates.get()
    by_id = annotator_client.get(f"/api/instances/?template={template.pk}")
    assert by_id.status_code == 200 and results(by_id)
    # Both datasets have a template "AGE-7": the external id alone names no single template.
    ambiguous = annotator_client.get("/api/instances/?template=AGE-7")
    assert ambiguous.status_code == 400
    assert "use the id" in ambiguous.json()["template"][0]
    first.templates.model.objects.exclude(pk=template.pk).update(external_id="AGE-8")
    unique = annotator_client.get("/api/instances/?template=AGE-7")
    assert unique.status_code == 200 and results(unique) == results(by_id)


@pytest.mark.parametrize(
    "url",
    [
        "/api/translated-strings/?job=abc",
        "/api/translated-strings/?job=424242",
        "/api/corrections/?job=abc",
        "/api/corrections/?status=nonsense",
        "/api/translated-strings/?passed=maybe",
        "/api/releases/?dataset_name=nope",
    ],
)
def test_bad_references_in_translation_and_release_lists_are_400(annotator_client, url):
    response = annotator_client.get(url)
    assert response.status_code == 400, response.content
    assert set(response.json()) & {"job", "status", "passed", "dataset_name"}


def test_a_value_with_percent_signs_is_a_400_not_a_500(annotator_client, two_datasets):
    # Found by the schemathesis run: the message quotes the value and was %-formatted.
    response = annotator_client.get("/api/instances/?dataset=%25s%25d%25(x)s")
    assert response.status_code == 400
    assert "%s%d%(x)s" in response.json()["dataset"][0]
