"""The `published` release file: an imported instance file comes back byte for byte."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from apps.catalog.importers.instances import instances_import
from apps.catalog.importers.tables import ImportFile
from apps.catalog.models import Dataset
from apps.releases.models import Release
from apps.releases.services import release_create, release_file_path

pytestmark = pytest.mark.django_db

MINI = Path(__file__).resolve().parent.parent / "data" / "import" / "published"


def imported_release(fmt: str, *names: str, dataset: str = "published") -> Release:
    files = [ImportFile(name=name, data=(MINI / name).read_bytes()) for name in names]
    instances_import(dataset_name=dataset, fmt=fmt, files=files)
    return release_create(dataset=Dataset.objects.get(name=dataset), content="as_published")


@pytest.mark.parametrize(
    ("fmt", "names"),
    [
        ("bbq-instances", ("Age.jsonl", "Nationality.jsonl")),
        ("bharatbbq-instances", ("Caste_examples.csv",)),
        ("esbbq-instances", ("Age.full.csv", "Religion.full.jsonl")),
        ("cabbq-instances", ("Religion.full.jsonl",)),
    ],
)
def test_export_of_an_import_equals_the_input(fmt, names, tmp_path) -> None:
    release = imported_release(fmt, *names)
    published = release.files.get(kind="published")
    assert published.format == "zip"
    rows = sum(len((MINI / name).read_bytes().splitlines()) for name in names)
    header_rows = sum(1 for name in names if name.endswith(".csv"))
    assert published.rows == rows - header_rows
    out = io.StringIO()
    call_command(
        "export_release",
        str(release.pk),
        "--kind",
        "published",
        "--extract",
        "--output",
        str(tmp_path / "out"),
        stdout=out,
        stderr=io.StringIO(),
    )
    assert sorted(Path(line).name for line in out.getvalue().split()) == sorted(names)
    for name in names:
        assert (tmp_path / "out" / name).read_bytes() == (MINI / name).read_bytes()


def test_the_archive_is_deterministic_and_verified(tmp_path) -> None:
    first = imported_release("bbq-instances", "Age.jsonl")
    second = release_create(dataset=first.dataset, content="as_published")
    a = first.files.get(kind="published")
    b = second.files.get(kind="published")
    assert a.sha256 == b.sha256 and a.size == b.size
    data = release_file_path(release_file=a).read_bytes()
    assert hashlib.sha256(data).hexdigest() == a.sha256
    assert zipfile.ZipFile(io.BytesIO(data)).namelist() == ["Age.jsonl"]
    # A zip copy without extraction, then a tampered file refused.
    out = tmp_path / "copy.zip"
    call_command(
        "export_release", str(a.release_id), "--kind", "published", "--output", str(out),
        stdout=io.StringIO(), stderr=io.StringIO(),
    )  # fmt: skip
    assert out.read_bytes() == data
    release_file_path(release_file=a).write_bytes(data + b"x")
    with pytest.raises(CommandError, match="checksum mismatch"):
        call_command(
            "export_release", str(a.release_id), "--kind", "published", "--extract",
            "--output", str(tmp_path / "x"), stdout=io.StringIO(), stderr=io.StringIO(),
        )  # fmt: skip


def test_the_tables_of_a_published_dataset_carry_its_metadata() -> None:
    release = imported_release("esbbq-instances", "Age.full.csv", "Religion.full.jsonl")
    path = release_file_path(release_file=release.files.get(kind="instances", format="jsonl"))
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [(r["category"], r["example_id"]) for r in rows] == [
        ("Age", 0), ("Age", 1), ("Age", 2), ("Religion", 0), ("Religion", 1),
    ]  # fmt: skip
    age = rows[0]
    assert age["answer_info"] == {
        "ans0": ["abuelo", "old"],
        "ans1": ["nieto", "nonOld"],
        "ans2": ["unknown", "unknown"],
    }
    assert age["additional_metadata"]["stereotyped_groups"] == ["old"]
    assert age["additional_metadata"]["version"] == "a"
    assert age["additional_metadata"]["template_id"] == "1"
    religion = rows[3]
    assert religion["additional_metadata"]["stereotyped_groups"] == ["musulmán"]
    assert religion["language"] == "es"
    # Parquet and CSV are written from the same rows, so a list-valued source is text there.
    assert json.loads(religion["additional_metadata"]["source"]) == [
        "https://example.org/r",
        "survey",
    ]
    assert release.files.filter(kind="instances").count() == 3


def test_a_missing_subcategory_is_empty_in_every_format() -> None:
    """BBQ's own files write the string "None" for no subcategory; Kasauti's tables write an
    empty one (the published-layout file keeps BBQ's bytes)."""
    import pyarrow.parquet as pq

    from apps.releases.readers import READERS

    release = imported_release("bbq-instances", "Age.jsonl")
    for file_format, reader in READERS.items():
        release_file = release.files.get(kind="instances", format=file_format)
        with open(release_file_path(release_file=release_file), "rb") as f:
            rows = list(reader(f, kind="instances"))
        assert rows and {r["additional_metadata"]["subcategory"] for r in rows} == {""}
    parquet = release.files.get(kind="instances", format="parquet")
    table = pq.read_table(release_file_path(release_file=parquet))
    assert {m["subcategory"] for m in table.column("additional_metadata").to_pylist()} == {""}
    csv_file = release.files.get(kind="instances", format="csv")
    assert b'"subcategory"": ""None""' not in release_file_path(release_file=csv_file).read_bytes()


def test_a_template_dataset_has_no_published_file() -> None:
    from apps.catalog.services import dataset_instantiate
    from tests.factories import TemplateVersionFactory

    version = TemplateVersionFactory()
    dataset_instantiate(dataset=version.template.dataset)
    release = release_create(dataset=version.template.dataset, content="as_published")
    assert not release.files.filter(kind="published").exists()


def test_api_download_of_the_published_file(annotator_client) -> None:
    release = imported_release("bharatbbq-instances", "Caste_examples.csv")
    url = reverse("release-export", args=[release.pk])
    response = annotator_client.get(url, {"format": "zip", "kind": "published"})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    data = b"".join(response.streaming_content)
    archive = zipfile.ZipFile(io.BytesIO(data))
    assert archive.read("Caste_examples.csv") == (MINI / "Caste_examples.csv").read_bytes()
