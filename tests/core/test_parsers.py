"""NUL characters are refused by one guard (apps/core/middleware.py); multipart fields by the
API's multipart parser with the same check. Request-level tests: tests/hardening/test_nul.py."""

import pytest

from apps.core.middleware import nul_errors, nul_find


def test_nul_find_names_the_path():
    assert nul_find({"name": "ok", "components": ["a", "b\x00c"]}) == "components[1]"
    assert nul_find({"a": {"b\x00": 1}}) == "a.b\\x00"
    assert nul_find("x\x00") == ""
    assert nul_find({"name": "नमस्ते", "n": 3, "flags": [True, None]}) is None


def test_nul_errors_name_the_top_level_field():
    assert nul_errors("components[1]") == {
        "components": ["components[1]: text may not contain the NUL character (U+0000)"]
    }
    assert list(nul_errors("")) == ["detail"]
    assert list(nul_errors("a.b\\x00")) == ["a"]


@pytest.mark.django_db
def test_release_create_with_a_non_object_body_is_a_documented_400(researcher_client):
    from tests.factories import DatasetFactory

    dataset = DatasetFactory()
    response = researcher_client.post(
        f"/api/datasets/{dataset.pk}/releases/", "true", content_type="application/json"
    )
    assert response.status_code == 400
