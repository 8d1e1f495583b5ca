"""A NUL character in a JSON body is a 400 naming where it is, never a database error."""

import pytest

from apps.core.parsers import _find_nul


def test_find_nul_names_the_path():
    assert _find_nul({"name": "ok", "components": ["a", "b\x00c"]}, "") == "components[1]"
    assert _find_nul({"a": {"b\x00": 1}}, "") == "a.b\x00"
    assert _find_nul("x\x00", "") == ""
    assert _find_nul({"name": "नमस्ते", "n": 3, "flags": [True, None]}, "") is None


@pytest.mark.django_db
def test_nul_in_a_lookup_is_a_400(researcher_client):
    response = researcher_client.post(
        "/api/categories/", {"name": "x", "components": ["\x00v3"]}, format="json"
    )
    assert response.status_code == 400
    assert "components[0]" in response.json()["detail"]


@pytest.mark.django_db
def test_release_create_with_a_non_object_body_is_a_documented_400(researcher_client):
    from tests.factories import DatasetFactory

    dataset = DatasetFactory()
    response = researcher_client.post(
        f"/api/datasets/{dataset.pk}/releases/", "true", content_type="application/json"
    )
    assert response.status_code == 400
