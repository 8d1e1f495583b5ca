"""/api/schema/ is generated once per process and served as drf-spectacular would serve it
(issue 18, 2.9: /api/docs/ loaded slowly because every visit regenerated it)."""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.views import SpectacularAPIView

from apps.core import schema_views

pytestmark = pytest.mark.django_db


@pytest.fixture
def generations(monkeypatch):
    """Counts real schema generations (the real generator runs: a spy, not a stand-in)."""
    schema_views._SCHEMAS.clear()
    schema_views._BODIES.clear()
    calls = []
    real = SchemaGenerator.get_schema

    def counting(self, *args, **kwargs):
        calls.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(SchemaGenerator, "get_schema", counting)
    return calls


def test_the_schema_is_generated_once_and_served_alike(anonymous_client, generations):
    first = anonymous_client.get("/api/schema/?format=json")
    second = anonymous_client.get("/api/schema/?format=json")
    assert first.status_code == second.status_code == 200
    assert len(generations) == 1
    assert first.content == second.content
    # Byte for byte what drf-spectacular's own view serves, with the same Content-Type.
    original = SpectacularAPIView.as_view()(RequestFactory().get("/api/schema/?format=json"))
    original.render()
    assert first.content == original.content
    assert first["Content-Type"] == original["Content-Type"]
    assert first["Content-Disposition"] == original["Content-Disposition"]

    yaml_first = anonymous_client.get("/api/schema/")
    yaml_second = anonymous_client.get("/api/schema/")
    assert yaml_first["Content-Type"].startswith("application/vnd.oai.openapi")
    assert yaml_first.content == yaml_second.content and b"openapi: 3" in yaml_first.content
    # The YAML rendering reuses the generated document (the second generation was the
    # uncached view's above).
    assert len(generations) == 2
    assert 'filename="Kasauti API.yaml"' in yaml_first["Content-Disposition"]
