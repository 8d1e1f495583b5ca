"""Release files parse back and equal the database rows, field by field."""

from __future__ import annotations

import csv
import io
import json

import pyarrow.parquet as pq
import pytest

from apps.releases.models import TABLE_KINDS
from apps.releases.readers import READERS
from apps.releases.schemas import SCHEMAS
from apps.releases.services import release_create, release_file_path

from .conftest import SCRIPTED
from .expected import BBQ_KEYS, METADATA_KEYS, PROVENANCE_KEYS, expected_rows

pytestmark = pytest.mark.django_db

NESTED = {
    "answer_info",
    "additional_metadata",
    "provenance",
    "votes",
    "stereotypes",
    "anti_stereotypes",
}
INTEGERS = {"example_id", "label", "id"}


def _path(release, kind, file_format):
    return release_file_path(release_file=release.files.get(kind=kind, format=file_format))


def _parse_csv(data: bytes) -> list[dict]:
    rows = []
    for row in csv.DictReader(io.StringIO(data.decode("utf-8"), newline="")):
        rows.append(
            {
                k: json.loads(v) if k in NESTED else int(v) if k in INTEGERS else v
                for k, v in row.items()
            }
        )
    return rows


@pytest.mark.parametrize("content", ["reviewed", "as_published"])
@pytest.mark.parametrize("kind", TABLE_KINDS)
def test_every_format_equals_the_database(dataset, kind, content):
    release = release_create(dataset=dataset, content=content)
    expected = expected_rows(release, kind)
    # The fixture has rows of every kind; reviewed releases have no sentence pairs, and no
    # (empty) files are written for them.
    if kind == "sentence_pairs" and content == "reviewed":
        assert expected == []
        assert not release.files.filter(kind=kind).exists()
        assert not (_path(release, "instances", "jsonl").parent / "sentence_pairs.jsonl").exists()
        return
    assert expected

    jsonl = _path(release, kind, "jsonl").read_bytes().decode("utf-8")
    assert [json.loads(line) for line in jsonl.splitlines()] == expected

    csv_bytes = _path(release, kind, "csv").read_bytes()
    assert _parse_csv(csv_bytes) == expected
    assert csv_bytes.decode("utf-8").splitlines()[0].split(",") == SCHEMAS[kind].names

    table = pq.read_table(_path(release, kind, "parquet"))
    assert table.schema.names == SCHEMAS[kind].names
    assert table.to_pylist() == expected

    # The project's own readers agree too (export_release and the bench use them).
    for file_format, reader in READERS.items():
        with open(_path(release, kind, file_format), "rb") as f:
            assert list(reader(f, kind=kind)) == expected


def test_jsonl_is_bbq_shaped_and_keeps_native_scripts(dataset):
    release = release_create(dataset=dataset)
    text = _path(release, "instances", "jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines()]
    assert all(list(row) == BBQ_KEYS for row in rows)
    assert all(list(row["additional_metadata"]) == METADATA_KEYS for row in rows)
    assert all(list(row["provenance"]) == PROVENANCE_KEYS for row in rows)
    assert all(isinstance(row["question_index"], str) for row in rows)
    # Written as UTF-8 characters, not \u escapes, in every script.
    for language, (unknown, _ambiguous, old, _) in SCRIPTED.items():
        assert old in text and unknown in text
        native = [r for r in rows if r["language"] == language]
        assert len(native) == 16
        assert any(old in r["context"] for r in native)
        assert any(unknown in (r["ans0"], r["ans1"], r["ans2"]) for r in native)
    assert "\\u0" not in text

    english = [r for r in rows if r["language"] == "en"]
    assert {r["additional_metadata"]["version"] for r in english} == {"a"}
    assert {r["question_index"] for r in english} == {"7"}
    bengali = [r for r in rows if r["language"] == "bn"]
    # No subcategory: empty, not the string "None" (in every format: the test above).
    assert {r["additional_metadata"]["subcategory"] for r in bengali} == {""}
    assert '"subcategory": "None"' not in text
    assert {r["additional_metadata"]["version"] for r in bengali} == {"None"}
    tamil = [r for r in rows if r["language"] == "ta"]
    assert {r["additional_metadata"]["version"] for r in tamil} == {"b"}


def test_rows_are_in_deterministic_order(dataset):
    release = release_create(dataset=dataset)
    rows = [
        json.loads(line)
        for line in _path(release, "instances", "jsonl").read_text("utf-8").splitlines()
    ]
    keys = [(r["category"], r["language"], r["example_id"]) for r in rows]
    assert keys == sorted(keys)
    # A second release whose instances did not change (only a sentence pair was added) has
    # byte-identical instance files.
    from apps.catalog.models import SentencePair

    pair = SentencePair.objects.filter(dataset=dataset).first()
    SentencePair.objects.create(
        dataset=dataset,
        external_id="p2",
        category=pair.category,
        language="en",
        sent_more="Old people forget.",
        sent_less="Young people forget.",
        direction="stereo",
    )
    again = release_create(dataset=dataset)
    assert again.number == release.number + 1
    for file_format in ("jsonl", "csv", "parquet"):
        first = release.files.get(kind="instances", format=file_format).sha256
        assert again.files.get(kind="instances", format=file_format).sha256 == first


def test_parquet_nested_types(dataset):
    release = release_create(dataset=dataset)
    schema = pq.read_schema(_path(release, "instances", "parquet"))
    assert str(schema.field("answer_info").type) == (
        "struct<ans0: list<element: string>, ans1: list<element: string>, "
        "ans2: list<element: string>>"
    )
    metadata = schema.field("additional_metadata").type
    assert [metadata.field(i).name for i in range(metadata.num_fields)] == METADATA_KEYS
    assert schema.names[-1] == "provenance"
    assert str(schema.field("provenance").type) == (
        "struct<instance_id: int64, template_version_id: int64, source_instance_id: int64, "
        "text_sha256: string>"
    )
