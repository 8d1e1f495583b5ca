"""release_dataset and export_release management commands."""

from __future__ import annotations

import hashlib
import io
import json

import pyarrow.parquet as pq
import pytest
from django.core.management import CommandError, call_command

from apps.releases.models import Release
from apps.releases.services import release_file_path

from .expected import expected_rows

pytestmark = pytest.mark.django_db


def test_release_dataset_json(dataset):
    out = io.StringIO()
    call_command("release_dataset", "--dataset", dataset.name, "--json", stdout=out)
    summary = json.loads(out.getvalue())
    release = Release.objects.get()
    assert summary["release_id"] == release.pk and summary["number"] == 1
    assert summary["dataset"] == "Bharat मिनी"
    assert summary["counts"]["total"] == 96
    # instances, tuples, context sets; README.md, card.json, CITATION.cff, changelog.json
    assert len(summary["files"]) == 9 + 4
    for entry in summary["files"]:
        assert {"kind", "format", "sha256", "rows", "size"} <= set(entry)
        stored = release.files.get(kind=entry["kind"], format=entry["format"])
        assert entry["sha256"] == stored.sha256 and entry["rows"] == stored.rows


def test_release_dataset_text_and_errors(dataset):
    out = io.StringIO()
    call_command("release_dataset", "--dataset", dataset.name, stdout=out)
    text = out.getvalue()
    assert "r1" in text and "96 instances" in text
    for f in Release.objects.get().files.all():
        assert f.sha256 in text
    with pytest.raises(CommandError, match="no dataset named"):
        call_command("release_dataset", "--dataset", "nope")


def test_release_dataset_refuses_empty_dataset(db):
    from tests.factories import DatasetFactory

    DatasetFactory(name="empty")
    with pytest.raises(CommandError, match="nothing to release"):
        call_command("release_dataset", "--dataset", "empty")


@pytest.mark.parametrize("file_format", ["jsonl", "csv", "parquet"])
def test_export_release_copies_and_verifies(dataset, tmp_path, file_format):
    call_command("release_dataset", "--dataset", dataset.name, stdout=io.StringIO())
    release = Release.objects.get()
    output = tmp_path / f"out.{file_format}"
    out = io.StringIO()
    call_command(
        "export_release",
        str(release.pk),
        "--format",
        file_format,
        "--output",
        str(output),
        stdout=out,
        stderr=io.StringIO(),
    )
    stored = release.files.get(kind="instances", format=file_format)
    assert hashlib.sha256(output.read_bytes()).hexdigest() == stored.sha256
    assert stored.sha256 in out.getvalue()
    if file_format == "parquet":
        assert pq.read_table(output).to_pylist() == expected_rows(release, "instances")


def test_export_release_other_kind(dataset, tmp_path):
    call_command(
        "release_dataset",
        "--dataset",
        dataset.name,
        "--content",
        "as_published",
        stdout=io.StringIO(),
    )
    release = Release.objects.get()
    output = tmp_path / "pairs.jsonl"
    call_command(
        "export_release",
        str(release.pk),
        "--format",
        "jsonl",
        "--kind",
        "sentence_pairs",
        "--output",
        str(output),
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    lines = output.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == expected_rows(release, "sentence_pairs")


def test_export_release_errors(dataset, tmp_path):
    output = tmp_path / "out.jsonl"
    with pytest.raises(CommandError, match="no release with id"):
        call_command("export_release", "999999", "--format", "jsonl", "--output", str(output))
    call_command("release_dataset", "--dataset", dataset.name, stdout=io.StringIO())
    release = Release.objects.get()
    stored = release_file_path(release_file=release.files.get(kind="instances", format="jsonl"))
    stored.write_bytes(stored.read_bytes().replace(b"\n", b"\r\n", 1))  # corrupt it
    with pytest.raises(CommandError, match="checksum mismatch"):
        call_command(
            "export_release", str(release.pk), "--format", "jsonl", "--output", str(output)
        )
    assert not output.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["media"]  # no partial file either


def test_export_release_nonexistent_exits_non_zero(db, tmp_path, monkeypatch, capsys):
    from django.db import connections

    from apps.releases.management.commands.export_release import Command

    # run_from_argv closes the connections when done; the test transaction still needs it.
    monkeypatch.setattr(connections, "close_all", lambda: None)
    argv = [
        "manage.py",
        "export_release",
        "999999",
        "--format",
        "jsonl",
        "--output",
        str(tmp_path / "x.jsonl"),
    ]
    with pytest.raises(SystemExit) as exit_info:
        Command().run_from_argv(argv)
    assert exit_info.value.code != 0
    assert "no release with id 999999" in capsys.readouterr().err
