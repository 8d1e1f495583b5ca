"""Upload sizes on POST /api/imports/: files Django spools to disk (over 2.5 MiB) import, and
anything over KASAUTI_MAX_UPLOAD_BYTES is a 413 naming the limit. The files are generated
at the sizes named."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.catalog.models import Dataset, Template, TemplateVersion
from apps.catalog.tasks import import_benchmark_task
from apps.core.models import Job

from .test_import_support import BHARAT_HEADER, bharat_row, csv_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


URL = "/api/imports/"
MIB = 1024 * 1024


def bharat_csv_of_size(size: int, *, first_id: int = 1) -> bytes:
    """A valid BharatBBQ file of at least `size` bytes: one template per row, with a long
    (but ordinary) Notes cell so a few hundred rows reach megabytes."""
    note = "Sources and reviewer remarks. " * 330  # ~10 KB per row
    rows = []
    data = b""
    while len(data) < size:
        start = first_id + len(rows)
        rows += [bharat_row(Q_id=str(start + i), Notes=note) for i in range(50)]
        data = csv_bytes(BHARAT_HEADER, rows)
    return data


def post(client, *files: tuple[str, bytes], dataset: str = "Big"):
    return client.post(
        URL,
        {
            "format": "bharatbbq",
            "dataset": dataset,
            "files": [
                SimpleUploadedFile(name, data, content_type="text/csv") for name, data in files
            ],
        },
        format="multipart",
    )


def run_job(response) -> Job:
    """Run the queued import job's task here, in-process (the real task code; the worker
    process variant is test_a_large_import_runs_on_a_real_worker)."""
    assert response.status_code == 202, response.content[:500]
    job = Job.objects.get(pk=response.json()["id"])
    assert job.kind == "import" and job.status == "queued"
    import_benchmark_task(job.pk)
    job.refresh_from_db()
    return job


def test_a_file_over_2_5_mib_imports_in_a_background_job(researcher_client, researcher) -> None:
    data = bharat_csv_of_size(3 * MIB)
    assert len(data) > 2.5 * MIB  # Django spools this one to a temporary file
    response = post(researcher_client, ("Age.csv", data))
    assert not Template.objects.exists()  # nothing imported inside the request
    job = run_job(response)
    assert job.status == "succeeded", job.error
    rows = data.count(b"\n") - 1
    assert job.result["templates"]["created"] == rows
    assert job.result["files"] == ["Age.csv"]
    assert Template.objects.count() == rows
    assert Dataset.objects.get(name="Big").created_by == researcher
    # The long cell arrived whole (Notes is the template's source reference).
    note = ("Sources and reviewer remarks. " * 330).strip()
    assert TemplateVersion.objects.first().source == note
    # The stored upload is removed once the job has finished.
    assert not any((Path(settings.MEDIA_ROOT) / "imports").glob("*/*"))


def test_several_files_adding_up_to_more_than_2_5_mib_import(researcher_client) -> None:
    first = bharat_csv_of_size(1 * MIB, first_id=1)
    second = bharat_csv_of_size(1 * MIB, first_id=10_001)
    third = bharat_csv_of_size(1 * MIB, first_id=20_001)
    assert len(first) + len(second) + len(third) > 2.5 * MIB
    files = [("Age.csv", first), ("Age2.csv", second), ("Age3.csv", third)]
    job = run_job(post(researcher_client, *files))
    assert job.status == "succeeded", job.error
    assert Template.objects.count() == sum(d.count(b"\n") - 1 for d in (first, second, third))


def test_a_small_upload_is_imported_in_the_request(researcher_client) -> None:
    data = bharat_csv_of_size(200_000)
    response = post(researcher_client, ("Age.csv", data))
    assert response.status_code == 201
    assert Template.objects.count() == data.count(b"\n") - 1
    assert not Job.objects.exists()


def test_a_rejected_background_import_lists_its_problems_and_writes_nothing(
    researcher_client,
) -> None:
    data = bharat_csv_of_size(1 * MIB).replace(b"biased", b"sideways", 1)
    response = researcher_client.post(
        f"{URL}?async=1",
        {"format": "bharatbbq", "dataset": "Big", "files": [SimpleUploadedFile("Age.csv", data)]},
        format="multipart",
    )
    job = run_job(response)
    assert job.status == "failed"
    assert "import rejected, nothing was written" in job.error
    assert job.result["problems"][0]["field"] == "Pairing"
    assert job.result["problems"][0]["line"] == 2
    assert not Dataset.objects.exists()


def test_an_upload_over_the_configured_limit_is_413_and_writes_nothing(
    researcher_client, settings
) -> None:
    settings.KASAUTI_MAX_UPLOAD_BYTES = 5 * MIB
    response = post(researcher_client, ("Age.csv", bharat_csv_of_size(6 * MIB)))
    assert response.status_code == 413
    detail = response.json()["detail"]
    assert "the limit is 5,242,880 bytes" in detail and "KASAUTI_MAX_UPLOAD_BYTES" in detail
    assert not Dataset.objects.exists()


def test_an_upload_just_under_the_configured_limit_is_accepted(researcher_client, settings) -> None:
    data = bharat_csv_of_size(3 * MIB)
    settings.KASAUTI_MAX_UPLOAD_BYTES = len(data) + 4096  # room for the multipart framing
    assert run_job(post(researcher_client, ("Age.csv", data))).status == "succeeded"


def test_the_default_limit_is_200_mb_and_a_201_mb_upload_is_413(
    researcher_client, settings
) -> None:
    assert settings.KASAUTI_MAX_UPLOAD_BYTES == 200_000_000
    # A real 201 MB body: refused from its Content-Length before it is parsed.
    data = b"Q_id,Category\n" + b"1,Age\n" * (201_000_000 // 6)
    response = post(researcher_client, ("Huge.csv", data))
    assert response.status_code == 413
    assert "the limit is 200,000,000 bytes (200 MB" in response.json()["detail"]
    assert not Dataset.objects.exists()


def test_a_missing_field_is_a_400_in_the_documented_shape(researcher_client) -> None:
    response = researcher_client.post(URL, {"dataset": "D"}, format="multipart")
    assert response.status_code == 400
    body = response.json()
    assert body["detail"] == "import rejected, nothing was written"
    fields = {p["field"] for p in body["problems"]}
    assert fields == {"format", "files"}
    assert all(p["file"] == "" and p["line"] is None and p["message"] for p in body["problems"])


def bharat_xlsx(rows: int) -> bytes:
    """A valid BharatBBQ workbook; its long, repeated Notes cells compress ~100-fold."""
    import io

    from openpyxl import Workbook

    book = Workbook()  # (not write-only: that mode declares no <dimension>)
    sheet = book.active
    sheet.title = "Sheet1"
    sheet.append(BHARAT_HEADER)
    note = "Sources and reviewer remarks. " * 330
    for i in range(rows):
        row = bharat_row(Q_id=str(i + 1), Notes=note)
        sheet.append([row.get(column, "") for column in BHARAT_HEADER])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def post_xlsx(client, data: bytes, *, dataset: str = "Book"):
    return client.post(
        URL,
        {
            "format": "bharatbbq",
            "dataset": dataset,
            "files": [SimpleUploadedFile("book.xlsx", data, content_type="application/zip")],
        },
        format="multipart",
    )


def test_a_small_workbook_that_unpacks_large_imports_in_a_background_job(
    researcher_client, settings
) -> None:
    """Inline or background is decided by what parsing costs (the unpacked size, read from
    the zip directory), not by the compressed upload: the probe's 568 KB workbook unpacked
    to 288 MB and held a web thread 540 s."""
    import io
    import zipfile

    data = bharat_xlsx(300)
    unpacked = sum(i.file_size for i in zipfile.ZipFile(io.BytesIO(data)).infolist())
    assert unpacked > 20 * len(data)
    settings.KASAUTI_IMPORT_INLINE_MAX_BYTES = 2 * len(data)  # the upload is well under it
    job = run_job(post_xlsx(researcher_client, data))
    assert job.status == "succeeded", job.error
    assert Template.objects.filter(dataset__name="Book").count() == 300

    # Under both thresholds: inline, as before.
    settings.KASAUTI_IMPORT_INLINE_MAX_BYTES = 2 * unpacked
    response = post_xlsx(researcher_client, bharat_xlsx(3), dataset="Small book")
    assert response.status_code == 201, response.content[:500]
    # Declared cells count too: past KASAUTI_IMPORT_INLINE_MAX_CELLS goes to a job.
    settings.KASAUTI_IMPORT_INLINE_MAX_CELLS = 3 * len(BHARAT_HEADER)
    assert post_xlsx(researcher_client, bharat_xlsx(3), dataset="Cells").status_code == 202


def test_a_workbook_declaring_20m_cells_is_refused_in_the_request_before_parsing(
    researcher_client,
) -> None:
    import time

    from .test_import_limits import xlsx

    data = xlsx(50, dimension="A1:CV200000")  # 100 columns x 200,000 rows: 20,000,000 cells
    start = time.monotonic()
    response = post_xlsx(researcher_client, data)
    assert time.monotonic() - start < 5
    assert response.status_code == 400, response.content[:500]
    (problem,) = response.json()["problems"]
    assert problem["file"] == "book.xlsx" and problem["field"] == "file"
    assert "declares 200,000 rows x 100 columns (20,000,000 cells" in problem["message"]
    assert "KASAUTI_IMPORT_MAX_CELLS" in problem["message"]
    assert not Dataset.objects.exists() and not Job.objects.exists()
