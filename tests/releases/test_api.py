"""Release API: reads, creation (sync and as a job), file download, refused dataset export."""

from __future__ import annotations

import base64
import hashlib

import pytest
from django.http import FileResponse
from django.urls import reverse

from apps.core.models import Job
from apps.releases.models import Release
from apps.releases.services import release_create
from apps.releases.tasks import release_dataset_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def release(dataset):
    return release_create(dataset=dataset, notes="r1")


def test_list_filters_by_dataset(annotator_client, release, dataset):
    from tests.factories import DatasetFactory

    other = DatasetFactory()
    response = annotator_client.get(reverse("release-list"), {"dataset": dataset.pk})
    assert response.status_code == 200
    assert [r["id"] for r in response.json()["results"]] == [release.pk]
    response = annotator_client.get(reverse("release-list"), {"dataset": other.pk})
    assert response.json()["results"] == []


def test_detail_has_files_checksums_and_counts(annotator_client, release):
    response = annotator_client.get(reverse("release-detail", args=[release.pk]))
    assert response.status_code == 200
    body = response.json()
    assert body["number"] == 1 and body["dataset_name"] == "Bharat मिनी"
    assert body["counts"]["total"] == 96
    assert body["counts"]["by_category_language"]["Religion"] == {"bn": 16}
    # no files for the kinds it has none of; the four documents (card, citation, changelog)
    assert len(body["files"]) == 9 + 4
    stored = {(f.kind, f.format): f.sha256 for f in release.files.all()}
    assert {(f["kind"], f["format"]): f["sha256"] for f in body["files"]} == stored
    assert annotator_client.get(reverse("release-detail", args=[999999])).status_code == 404


def test_researcher_creates_releases(researcher_client, researcher, dataset):
    url = reverse("dataset-release-create", args=[dataset.pk])
    response = researcher_client.post(url, {"notes": "पहला"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["number"] == 1 and body["notes"] == "पहला" and body["created_by"] == "rekha"
    # no files for the kinds it has none of; the four documents (card, citation, changelog)
    assert len(body["files"]) == 9 + 4
    # The same request again: nothing changed, so the latest release is returned (200).
    again = researcher_client.post(url, {}, format="json")
    assert again.status_code == 200 and again.json()["id"] == body["id"]
    # Other notes on unchanged content: a clear conflict, not the old release with its notes.
    other = researcher_client.post(url, {"notes": "दूसरा"}, format="json")
    assert other.status_code == 409
    assert "has not changed since release 1" in other.json()["detail"]
    assert "'दूसरा' were not kept" in other.json()["detail"]


def test_nothing_to_release_is_a_clear_error(researcher_client):
    from tests.factories import DatasetFactory

    empty = DatasetFactory(name="empty")
    response = researcher_client.post(reverse("dataset-release-create", args=[empty.pk]))
    assert response.status_code == 400
    assert "nothing to release" in response.json()["detail"]


def test_async_release_runs_as_a_job(
    researcher_client, dataset, django_capture_on_commit_callbacks
):
    url = reverse("dataset-release-create", args=[dataset.pk]) + "?async=1"
    with django_capture_on_commit_callbacks() as callbacks:
        response = researcher_client.post(url, {"notes": "queued"}, format="json")
    assert response.status_code == 202
    assert len(callbacks) == 1  # the task is sent only once the transaction commits
    body = response.json()
    job_id = body["id"]
    assert body["title"] == f"Release dataset {dataset.name}" and body["status"] == "queued"
    assert not Release.objects.exists()

    release_dataset_task.apply(args=[job_id])  # what the worker runs
    job = Job.objects.get(pk=job_id)
    assert job.kind == "release" and job.status == Job.Status.SUCCEEDED, job.error
    assert job.progress_unit == "rows" and job.progress_done == job.progress_total > 0
    detail = researcher_client.get(reverse("job-detail", args=[job_id])).json()
    assert detail["summary"][0] == f"Created release 1 of {dataset.name}."
    assert {"label": "View releases", "url": f"/datasets/{dataset.pk}/releases/"} in detail["links"]
    release = Release.objects.get()
    assert job.result["release_id"] == release.pk and release.notes == "queued"
    assert release.created_by.username == "rekha"


@pytest.mark.parametrize("client_name", ["annotator_client", "outsider_client"])
def test_only_researchers_create_releases(request, client_name, dataset):
    client = request.getfixturevalue(client_name)
    response = client.post(reverse("dataset-release-create", args=[dataset.pk]))
    assert response.status_code == 403
    assert not Release.objects.exists()


def test_anonymous_is_refused_everywhere(anonymous_client, release, dataset):
    for url in (
        reverse("release-list"),
        reverse("release-detail", args=[release.pk]),
        reverse("release-export", args=[release.pk]) + "?format=jsonl",
        reverse("dataset-export", args=[dataset.pk]),
    ):
        assert anonymous_client.get(url).status_code in (401, 403), url
    response = anonymous_client.post(reverse("dataset-release-create", args=[dataset.pk]))
    assert response.status_code in (401, 403)


@pytest.mark.parametrize(
    ("file_format", "content_type"),
    [
        ("jsonl", "application/x-ndjson"),
        ("csv", "text/csv; charset=utf-8"),
        ("parquet", "application/vnd.apache.parquet"),
    ],
)
def test_export_streams_the_stored_file(annotator_client, release, file_format, content_type):
    url = reverse("release-export", args=[release.pk]) + f"?format={file_format}"
    response = annotator_client.get(url)
    assert response.status_code == 200
    assert isinstance(response, FileResponse) and response.streaming
    data = b"".join(response.streaming_content)
    stored = release.files.get(kind="instances", format=file_format)
    digest = hashlib.sha256(data).hexdigest()
    assert digest == stored.sha256 == response["X-Checksum-SHA256"]
    assert (
        response["Digest"] == "sha-256=" + base64.b64encode(hashlib.sha256(data).digest()).decode()
    )
    assert response["ETag"] == f'"{digest}"'
    assert response["Content-Type"] == content_type
    assert int(response["Content-Length"]) == len(data) == stored.size
    assert response["Content-Disposition"] == (
        f'attachment; filename="bharat-r1-instances.{file_format}"'
    )


def test_export_other_kinds_and_conditional_get(annotator_client, release):
    url = reverse("release-export", args=[release.pk])
    response = annotator_client.get(url, {"format": "csv", "kind": "tuples"})
    assert response.status_code == 200
    assert "பிராமணர்" in b"".join(response.streaming_content).decode("utf-8")
    etag = response["ETag"]
    cached = annotator_client.get(url, {"format": "csv", "kind": "tuples"}, HTTP_IF_NONE_MATCH=etag)
    assert cached.status_code == 304


def test_export_rejects_unknown_format_and_release(annotator_client, release):
    url = reverse("release-export", args=[release.pk])
    response = annotator_client.get(url, {"format": "xlsx"})
    assert response.status_code == 400 and "format" in response.json()
    assert annotator_client.get(url, {"kind": "votes"}).status_code == 400
    missing = reverse("release-export", args=[999999]) + "?format=jsonl"
    assert annotator_client.get(missing).status_code == 404
    # The reviewed release holds no sentence pairs, so it has no files for them.
    empty = annotator_client.get(url, {"kind": "sentence_pairs", "format": "csv"})
    assert empty.status_code == 404
    assert empty.json()["detail"].startswith("release 1 holds no sentence_pairs")


def test_dataset_export_is_refused_for_researchers_with_409(researcher_client, dataset):
    url = reverse("dataset-export", args=[dataset.pk])
    response = researcher_client.get(url)
    assert response.status_code == 409
    detail = response.json()["detail"]
    assert "has no release" in detail
    assert "only released data is exportable; create a release first" in detail

    release = release_create(dataset=dataset)
    response = researcher_client.get(url, {"format": "jsonl"})
    assert response.status_code == 409
    assert f"/api/releases/{release.pk}/export/" in response.json()["detail"]
    assert researcher_client.get(reverse("dataset-export", args=[999999])).status_code == 404


@pytest.mark.parametrize("client_name", ["annotator_client", "outsider_client"])
def test_dataset_export_is_forbidden_without_researcher_role(request, client_name, dataset):
    response = request.getfixturevalue(client_name).get(
        reverse("dataset-export", args=[dataset.pk])
    )
    assert response.status_code == 403


def test_schema_documents_the_release_endpoints(anonymous_client):
    response = anonymous_client.get(reverse("api-schema"), {"format": "json"})
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in (
        "/api/releases/",
        "/api/releases/{id}/",
        "/api/releases/{id}/export/",
        "/api/datasets/{id}/releases/",
        "/api/datasets/{id}/export/",
    ):
        assert path in paths, path
