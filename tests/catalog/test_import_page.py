"""The Import page through Django's test client (tests/browser drives it in Chromium)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from apps.catalog.models import Dataset, Finding

from .test_import_findings import CASA, NAME

pytestmark = pytest.mark.django_db
URL = "/import/"


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def casa_upload() -> SimpleUploadedFile:
    return SimpleUploadedFile(NAME, CASA, content_type="text/csv")


def test_only_researchers_import(annotator, researcher) -> None:
    assert reverse("web:import") == URL
    assert client_for(annotator).get(URL).status_code == 403
    assert client_for(annotator).post(URL, {}).status_code == 403
    response = client_for(researcher).get(URL)
    assert response.status_code == 200
    assert 'id="dropzone"' in response.content.decode()
    home = client_for(researcher).get("/").content.decode()
    assert 'id="import-link"' in home
    assert 'id="import-link"' not in client_for(annotator).get("/").content.decode()


def test_import_shows_findings_grouped_by_kind(researcher) -> None:
    response = client_for(researcher).post(
        URL, {"format": "indicasa", "dataset": "casa", "files": [casa_upload()]}
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "context sentences written: 7" in html
    assert 'data-kind="score-out-of-range">3<' in html
    assert '<h3 id="findings-conflicting-label">conflicting-label' in html
    assert f"{NAME}:5" in html and "context set gender-0, sentence 4" in html
    assert Finding.objects.count() == 6
    assert response.context["report"].dataset_created


def test_strict_rejection_lists_problems_by_kind_and_writes_nothing(researcher) -> None:
    response = client_for(researcher).post(
        URL, {"format": "indicasa", "dataset": "casa", "files": [casa_upload()], "strict": "on"}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "Rejected: 6 problems, nothing was written" in html
    assert list(response.context["problems"]) == [
        "duplicate-sentence",
        "conflicting-label",
        "score-out-of-range",
        "score-not-a-number",
    ]
    assert not Dataset.objects.exists()


def test_unreadable_file_and_missing_files(researcher) -> None:
    client = client_for(researcher)
    response = client.post(URL, {"format": "indicasa", "dataset": "casa"})
    assert response.status_code == 400
    assert "Choose or drop at least one file." in response.content.decode()
    bad = SimpleUploadedFile(NAME, b"context_id,sentence\n0,x\n", content_type="text/csv")
    response = client.post(URL, {"format": "indicasa", "dataset": "casa", "files": [bad]})
    assert response.status_code == 400
    assert "problem in type" in response.context["problems"]
    assert "required column &#x27;type&#x27; is missing" in response.content.decode()


def test_a_large_upload_on_the_page_becomes_a_job(researcher, settings, tmp_path) -> None:
    """The page decides inline or background as the API does (by what parsing costs), and a
    strict request stays strict in the job."""
    from apps.catalog.tasks import import_benchmark_task
    from apps.core.models import Job

    settings.MEDIA_ROOT = tmp_path
    settings.KASAUTI_IMPORT_INLINE_MAX_BYTES = len(CASA) - 1
    response = client_for(researcher).post(
        URL, {"format": "indicasa", "dataset": "casa", "files": [casa_upload()], "strict": "on"}
    )
    job = Job.objects.get()
    assert response.status_code == 302 and response.url == f"/jobs/{job.pk}/"
    assert job.kind == "import" and job.params["strict"] is True
    import_benchmark_task(job.pk)
    job.refresh_from_db()
    assert job.status == "failed" and len(job.result["problems"]) == 6
    assert not Dataset.objects.exists()
