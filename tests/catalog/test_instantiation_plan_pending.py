"""instantiation_pending (what a release checks before freezing anything) gives the same answer
as the full plan's `instantiated` flags, without reading every instance."""

from __future__ import annotations

import pytest

from apps.catalog.models import Instance, ReviewStatus
from apps.catalog.services import dataset_instantiate, instantiation_pending, instantiation_plan
from tests.factories import DatasetFactory, TemplateFactory, TemplateVersionFactory

pytestmark = pytest.mark.django_db


def _from_plan(dataset) -> list[str]:
    plan = instantiation_plan(dataset=dataset)
    return [t.external_id for t in plan.templates if not t.instantiated and t.count]


def test_pending_equals_the_plan():
    dataset = DatasetFactory()
    done = TemplateVersionFactory(template=TemplateFactory(dataset=dataset, external_id="done"))
    dataset_instantiate(dataset=dataset)
    assert instantiation_pending(dataset=dataset) == _from_plan(dataset) == []
    # A new template, a rejected one, and an edit of the instantiated one (version 2).
    TemplateVersionFactory(template=TemplateFactory(dataset=dataset, external_id="new"))
    TemplateVersionFactory(
        template=TemplateFactory(dataset=dataset, external_id="rejected"),
        status=ReviewStatus.REJECTED,
    )
    TemplateVersionFactory(template=done.template, number=2)
    assert instantiation_pending(dataset=dataset) == _from_plan(dataset) == ["done", "new"]
    dataset_instantiate(dataset=dataset)
    assert instantiation_pending(dataset=dataset) == _from_plan(dataset) == []
    # Only a retired instance, or only translations, do not make a version instantiated.
    version = done.template.versions.order_by("-number").first()
    Instance.objects.filter(template_version=version).update(retired_at="2026-01-01T00:00Z")
    assert instantiation_pending(dataset=dataset) == _from_plan(dataset) == ["done"]
