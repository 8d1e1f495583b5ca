"""A predictions file given to the benchmark Import (as bbq-instances, say) is recognised by
its prediction columns and refused with where it goes, instead of becoming a second copy of
the dataset without its predictions."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.urls import reverse

from apps.catalog.models import Dataset, Instance

pytestmark = pytest.mark.django_db

AGE = Path(__file__).resolve().parent.parent / "data" / "import" / "published" / "Age.jsonl"


def predictions_jsonl() -> bytes:
    rows = [json.loads(line) for line in AGE.read_text(encoding="utf-8").splitlines()]
    return "".join(json.dumps({**row, "prediction": row["label"]}) + "\n" for row in rows).encode()


def test_the_api_refuses_a_predictions_file_and_says_where_it_goes(researcher_client):
    upload = io.BytesIO(predictions_jsonl())
    upload.name = "Age-predictions.jsonl"
    response = researcher_client.post(
        reverse("benchmark-import"),
        {"format": "bbq-instances", "dataset": "copy", "files": [upload]},
        format="multipart",
    )
    assert response.status_code == 400, response.content
    problem = response.json()["problems"][0]
    assert problem["file"] == "Age-predictions.jsonl" and problem["line"] == 1
    assert "prediction" in problem["message"]
    assert reverse("evaluation:import") in problem["message"]
    assert not Dataset.objects.filter(name="copy").exists() and not Instance.objects.exists()


def test_the_import_page_links_to_the_predictions_import_page(client, researcher):
    client.force_login(researcher)
    upload = io.BytesIO(predictions_jsonl())
    upload.name = "Age-predictions.jsonl"
    response = client.post(
        reverse("web:import"),
        {
            "format": "bbq-instances",
            "dataset": "copy",
            "language": "en",
            "seed": 0,
            "files": [upload],
        },  # fmt: skip
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert f'href="{reverse("evaluation:import")}"' in html and "predictions file" in html
    assert not Dataset.objects.filter(name="copy").exists()


def test_an_instances_file_still_imports(researcher_client):
    upload = io.BytesIO(AGE.read_bytes())
    upload.name = "Age.jsonl"
    response = researcher_client.post(
        reverse("benchmark-import"),
        {"format": "bbq-instances", "dataset": "age", "files": [upload]},
        format="multipart",
    )
    assert response.status_code == 201, response.content
