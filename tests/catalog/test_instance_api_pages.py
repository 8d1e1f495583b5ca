"""The instance list at scale (P9): pages of one dataset in id order, rendered without DRF's
per-field machinery but exactly as the declared fields render them."""

from __future__ import annotations

import pytest
from django.utils import timezone
from rest_framework import serializers

from apps.catalog import selectors
from apps.catalog.api import InstanceOutput
from apps.catalog.models import Instance
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


def test_rendering_equals_the_declared_fields(two_datasets):
    instances = list(selectors.instance_list().order_by("id"))
    instances[0].retired_at = timezone.now()
    generic = [
        serializers.ModelSerializer.to_representation(InstanceOutput(), i) for i in instances
    ]
    assert InstanceOutput(instances, many=True).data == generic
    assert list(generic[0]) == InstanceOutput.Meta.fields


def test_pages_of_one_dataset_cover_it_in_id_order(annotator_client, two_datasets):
    first, _second = two_datasets
    url, ids = "/api/instances/?dataset=first&page_size=7", []
    while url:
        body = annotator_client.get(url).json()
        ids += [row["id"] for row in body["results"]]
        url = body["next"]
    expected = list(
        Instance.objects.filter(dataset=first).order_by("id").values_list("id", flat=True)
    )
    assert ids == expected and len(ids) == 32
    assert annotator_client.get("/api/instances/?dataset=nope").status_code == 400
