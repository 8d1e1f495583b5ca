"""The instance list at scale (P9): keyset pages of one dataset in id order, each page one
query whose rows PostgreSQL renders as JSON, exactly as the declared serializer renders them."""

from __future__ import annotations

import base64
import datetime as dt
import json
from urllib.parse import parse_qs, urlsplit

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework import serializers
from rest_framework.authtoken.models import Token
from rest_framework.renderers import JSONRenderer
from rest_framework.test import APIClient

from apps.catalog import api_instances, selectors
from apps.catalog.api_instances import InstanceOutput
from apps.catalog.models import Instance, StereotypeConcept
from apps.catalog.services import dataset_instantiate
from tests.factories import CategoryFactory, DatasetFactory, TemplateVersionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_datasets():
    first, second = DatasetFactory(name="first"), DatasetFactory(name="second")
    for dataset in (first, second, first):  # first's rows before and after second's
        TemplateVersionFactory(template__dataset=dataset, template__category=CategoryFactory())
        dataset_instantiate(dataset=dataset)
    return first, second


@pytest.fixture
def varied(two_datasets):
    """Rows exercising every rendering rule: retired (with and without microseconds), a
    published instance without template version, a concept, hostile and Indic text."""
    first, _second = two_datasets
    rows = list(Instance.objects.filter(dataset=first).order_by("id"))
    category = rows[0].category
    concept = StereotypeConcept.objects.create(category=category, statement='"Old" \\ slow\n')
    version = rows[0].template_version
    version.concept = concept
    version.save(update_fields=["concept"])
    rows[0].retired_at = dt.datetime(2026, 3, 1, 12, 30, 5, 120000, tzinfo=dt.UTC)
    rows[1].retired_at = dt.datetime(2026, 3, 1, 12, 30, 5, tzinfo=dt.UTC)
    rows[2].context = 'दादा "और" पोता\\ \t\x01 ✓ 👵🏽 </script>'
    rows[2].placeholder_values = {"NAME1": "दादा", "b": [1, 2.5, None, True], "a": {"x": "y"}}
    for row in rows[:3]:
        row.save()
    published = rows[3]
    published.pk, published.template_version, published.combination = None, None, 999
    published.source_instance = rows[0]
    published.save()
    return first


def _generic(instances) -> list[dict]:
    """DRF's own field-by-field rendering, through its JSON renderer."""
    data = [serializers.ModelSerializer.to_representation(InstanceOutput(), i) for i in instances]
    return json.loads(JSONRenderer().render(data))


def test_serializer_shortcut_equals_the_declared_fields(varied):
    instances = list(selectors.instance_list().order_by("id"))
    assert InstanceOutput(instances, many=True).data == _generic(instances)


def test_database_rendering_equals_the_declared_fields(varied):
    instances = list(selectors.instance_list().order_by("id"))
    rows = list(selectors.instance_json_rows(Instance.objects.order_by("id")))
    documents = [json.loads(row["doc"]) for row in rows]
    assert [row["id"] for row in rows] == [i.pk for i in instances]
    assert documents == _generic(instances)
    assert all(list(doc) == InstanceOutput.Meta.fields for doc in documents)
    retired = [doc["retired_at"] for doc in documents if doc["retired_at"]]
    assert retired == ["2026-03-01T12:30:05.120000Z", "2026-03-01T12:30:05Z"]
    published = next(doc for doc in documents if doc["provenance"]["template_id"] is None)
    assert published["provenance"]["combination"] == 999
    assert published["source_instance"] == instances[0].pk


def test_api_pages_equal_the_generic_list(varied, annotator_client, monkeypatch):
    url = "/api/instances/?dataset=first&page_size=5"
    fast = annotator_client.get(url)
    assert fast["Content-Type"] == "application/json"
    monkeypatch.setattr(api_instances, "_database_renders_rows", lambda: False)
    generic = annotator_client.get(url)
    assert fast.status_code == generic.status_code == 200
    assert fast.json() == generic.json()
    assert list(fast.json()) == ["next", "previous", "results"]


def _walk(client, url) -> list[int]:
    ids = []
    while url:
        body = client.get(url).json()
        ids += [row["id"] for row in body["results"]]
        url = body["next"]
    return ids


def test_pages_of_one_dataset_cover_it_in_id_order(annotator_client, two_datasets):
    first, second = two_datasets
    expected = list(
        Instance.objects.filter(dataset=first).order_by("id").values_list("id", flat=True)
    )
    assert len(expected) == 32
    assert _walk(annotator_client, "/api/instances/?dataset=first&page_size=7") == expected
    assert _walk(annotator_client, f"/api/instances/?dataset={first.pk}&page_size=7") == expected
    assert len(_walk(annotator_client, "/api/instances/?page_size=9")) == 48


def test_keyset_pages_neither_skip_nor_repeat_when_rows_change(annotator_client, two_datasets):
    first, _second = two_datasets
    page = annotator_client.get("/api/instances/?dataset=first&page_size=10").json()
    seen = [row["id"] for row in page["results"]]
    # Between two pages: a row already read is deleted and a new one added at the end.
    Instance.objects.filter(pk=seen[0]).delete()
    added = Instance.objects.filter(dataset=first).order_by("id").last()
    added.pk, added.combination = None, 10_000
    added.save()
    seen += _walk(annotator_client, page["next"])
    assert len(seen) == len(set(seen)) == 33
    assert seen == sorted(seen) and seen[-1] == added.pk


def test_previous_link_returns_the_same_page(annotator_client, two_datasets):
    one = annotator_client.get("/api/instances/?dataset=first&page_size=6").json()
    assert one["previous"] is None
    two = annotator_client.get(one["next"]).json()
    back = annotator_client.get(two["previous"]).json()
    assert back["results"] == one["results"]


def test_filters_combine_with_pages(annotator_client, two_datasets):
    first, _second = two_datasets
    template = first.templates.order_by("id").last()
    category = template.category.name
    rows = Instance.objects.filter(dataset=first, template_version__template=template)
    retired = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    Instance.objects.filter(pk=rows.order_by("id").first().pk).update(retired_at=retired)
    url = f"/api/instances/?dataset=first&template={template.pk}&status=live&page_size=4"
    ids = _walk(annotator_client, url)
    assert ids == list(rows.filter(retired_at=None).order_by("id").values_list("id", flat=True))
    by_category = _walk(annotator_client, f"/api/instances/?category={category}&page_size=50")
    assert by_category == list(rows.order_by("id").values_list("id", flat=True))
    ambiguous = annotator_client.get("/api/instances/?dataset=first&context_condition=ambig")
    assert {row["context_condition"] for row in ambiguous.json()["results"]} == {"ambig"}


@pytest.mark.parametrize(
    "query, field",
    [
        ("dataset=nope", "dataset"),
        ("dataset=999999", "dataset"),
        ("category=nope", "category"),
        ("template=nope", "template"),
        ("status=dead", "status"),
        ("context_condition=vague", "context_condition"),
    ],
)
def test_unknown_filter_values_are_400(annotator_client, two_datasets, query, field):
    response = annotator_client.get(f"/api/instances/?{query}")
    assert response.status_code == 400
    assert field in response.json()


def _cursor(position: str) -> str:
    return base64.b64encode(f"p={position}".encode()).decode()


@pytest.mark.parametrize("cursor", ["garbage!", _cursor("abc"), _cursor("1" * 30)])
def test_a_bad_cursor_is_404_not_500(annotator_client, two_datasets, cursor):
    response = annotator_client.get(f"/api/instances/?dataset=first&cursor={cursor}")
    assert response.status_code == 404
    assert response.json() == {"detail": "Invalid cursor"}


def test_page_size_is_capped(annotator_client, two_datasets):
    body = annotator_client.get("/api/instances/?page_size=5000").json()
    assert len(body["results"]) == 48 and body["next"] is None
    link = annotator_client.get("/api/instances/?page_size=2").json()["next"]
    assert parse_qs(urlsplit(link).query)["page_size"] == ["2"]


def test_a_page_is_three_queries_and_no_count(researcher, two_datasets):
    """Token and roles, the dataset, the page: first page and next page alike."""
    client = APIClient(HTTP_AUTHORIZATION=f"Token {Token.objects.get(user=researcher).key}")
    url = "/api/instances/?dataset=first&page_size=5"
    for _ in range(2):
        with CaptureQueriesContext(connection) as captured:
            response = client.get(url)
        assert response.status_code == 200
        sql = [q["sql"] for q in captured.captured_queries]
        assert len(sql) == 3, sql
        assert not any("COUNT(" in q.upper() for q in sql)
        url = response.json()["next"]


def test_the_browsable_api_still_renders(annotator_client, two_datasets):
    response = annotator_client.get("/api/instances/?dataset=first", HTTP_ACCEPT="text/html")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    first_id = Instance.objects.order_by("id").values_list("id", flat=True)[0]
    assert f"&quot;id&quot;:{first_id}," in response.content.decode()


def test_the_page_query_joins_what_rows_share_instead_of_a_sub_plan_per_row(researcher, varied):
    """Category and provenance are joined to the page's rows (memoized once per page), not
    looked up by correlated sub-plans, one per row each (bench/p9_instances.py)."""
    client = APIClient(HTTP_AUTHORIZATION=f"Token {Token.objects.get(user=researcher).key}")
    with CaptureQueriesContext(connection) as captured:
        assert client.get("/api/instances/?dataset=first&page_size=5").status_code == 200
    page = max((q["sql"] for q in captured.captured_queries), key=len)
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN {page}")
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "SubPlan" not in plan, plan
    assert "LATERAL" in page.upper()


def test_each_filterset_has_filters_of_its_own(two_datasets):
    """InstanceFilter copies its filters shallowly and shares its form's fields (P9): a method
    filter still calls the method of its own FilterSet, and forms do not share state."""
    one = selectors.InstanceFilter({"dataset": "first"}, Instance.objects.all())
    two = selectors.InstanceFilter({"dataset": "nope"}, Instance.objects.all())
    assert one.filters["dataset"] is not two.filters["dataset"]
    assert one.filters["dataset"].parent is one and two.filters["dataset"].parent is two
    assert one.filters["dataset"].filter.method.__self__ is one
    assert one.is_valid() and not two.is_valid()
    assert one.form.fields is not two.form.fields
    assert set(one.qs.values_list("dataset__name", flat=True)) == {"first"}
    assert "dataset" in two.errors and "dataset" not in one.errors
