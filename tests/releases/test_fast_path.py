"""The PostgreSQL fast path (rows serialised by the database, apps.releases.instance_lines)
writes the same bytes as the writers fed with row dicts (the path SQLite uses), on hostile
text, provenance column (ids and the text hash, computed by PostgreSQL on one path and by
Python on the other) included."""

from __future__ import annotations

import io
import itertools
import json

import pyarrow.parquet as pq
import pytest
from django.db import connection, transaction
from django.utils import timezone

from apps.catalog.bulk import instance_row, instances_insert
from apps.catalog.models import Instance
from apps.releases import instance_lines, line_batches, selectors
from apps.releases.models import FileKind, Release
from apps.releases.services import release_create
from apps.releases.services.creation import _membership_insert
from apps.releases.writers import WRITERS, HashingFile, batched
from tests.factories import CategoryFactory, DatasetFactory, TemplateVersionFactory

from .expected import expected_provenance

pytestmark = pytest.mark.django_db

HOSTILE = [
    "plain",
    "comma, inside",
    'quote " inside',
    '"starts with a quote',
    "line\nbreak",
    "carriage\rreturn",
    "crlf\r\nend",
    "tab\there",
    "control \x01 \x08 \x0c \x1f \x7f",
    'back\\slash \\n \\" \\u0041',
    '=HYPERLINK("http://example.org")',
    "+1",
    "-2",
    "@SUM(A1)",
    "emoji 😀 and 𝔘",
    "हिन्दी क़ और ক্ষ ਖ਼",
    "separators \u2028 \u2029 \x85",
    " leading and trailing ",
    "",
    "nbsp\u00a0",
    "\\",
    '}, "context": ',
    '", "ans0": "x',
    "{}[]:",
]


def _rows(dataset_id, versions, count):
    """Instance rows for instances_insert, in catalog's own column layout (apps.catalog.bulk)."""
    now = timezone.now()
    words = itertools.cycle(HOSTILE)
    for index in range(count):
        version_id, category_id, language = versions[index % len(versions)]
        a, b, c, d = next(words), next(words), next(words), next(words)
        info = {"ans2": [c, "young"], "ans0": [a, "unknown"], "ans1": [b, d], "extra": "dropped"}
        yield instance_row(
            {
                "dataset_id": dataset_id,
                "template_version_id": version_id,
                "category_id": category_id,
                "language": language,
                "example_id": index // 7,
                "question_index": f"q{d}",
                "combination": index,
                "name_order": "12",
                "context_condition": "ambig" if index % 2 else "disambig",
                "question_polarity": "neg" if index % 3 else "nonneg",
                "pairing": "stereotypical" if index % 5 else "anti-stereotypical",
                "proper_noun": index % 4 == 0,
                "placeholder_values": {"NAME1": a},
                "context": f"{a} {b}",
                "question": f"{c}?",
                "ans0": a,
                "ans1": b,
                "ans2": c,
                "option_roles": ["unknown", "stereotyped", "non_stereotyped"],
                "answer_info": info,
                "label": index % 3,
                "source_instance_id": None,
                "retired_at": None,
                "created_at": now,
            }
        )


@pytest.fixture
def hostile_release(db) -> Release:
    dataset = DatasetFactory(name='hostile, "data"')
    categories = [CategoryFactory(name=name) for name in ("Zeta", "age", "Ágé", 'Q"uote')]
    versions = []
    for index, (category, language) in enumerate(
        zip(categories, ["en", "hi", "x-é", "bn"], strict=True)
    ):
        version = TemplateVersionFactory(
            template__dataset=dataset,
            template__category=category,
            template__external_id=HOSTILE[index + 1],
            template__variant=["", "a", HOSTILE[4], "b"][index],
            language=language,
            subcategory=["", HOSTILE[2], "वृद्ध", HOSTILE[9]][index],
            source=HOSTILE[index + 10],
            stereotyped_groups=[HOSTILE[2], "old", HOSTILE[15]][: index + 1],
        )
        versions.append((version.pk, category.pk, language))
    with transaction.atomic():
        instances_insert(_rows(dataset.pk, versions, 12_000))
        # Some are translations, with review facts (a nested object inside a nested value).
        source = Instance.objects.filter(dataset=dataset).order_by("id").first()
        Instance.objects.filter(dataset=dataset, combination__lt=700, combination__gt=0).update(
            source_instance=source,
            review={
                "status": "passed",
                "revision": 2,
                "threshold": 0.8,
                "similarity": 0.8731,
                "embedder_version": HOSTILE[2],
                "forward_model_version": HOSTILE[15],
                "backward_model_version": None,
                "replaces": 7,
            },
        )
        release = Release.objects.create(
            dataset=dataset, number=1, counts={}, content="as_published"
        )
        _membership_insert(release=release)
    return release


def _write(release, feed) -> dict[str, bytes]:
    outputs = {name: io.BytesIO() for name in WRITERS}
    writers = {
        name: writer(HashingFile(outputs[name]), kind="instances")
        for name, writer in WRITERS.items()
    }
    with transaction.atomic():
        feed(writers)
    for writer in writers.values():
        writer.close()
    return {name: output.getvalue() for name, output in outputs.items()}


def test_database_serialised_rows_write_the_same_bytes(hostile_release, monkeypatch):
    assert connection.vendor == "postgresql"
    # Two line batches and three Parquet row groups from 12,000 rows.
    monkeypatch.setattr(line_batches, "LINES_PER_BATCH", 10_000)

    def by_rows(writers):
        for batch in batched(selectors.release_instance_rows(release=hostile_release)):
            for writer in writers.values():
                writer.write_batch(batch)

    def by_lines(writers):
        for batch in instance_lines.release_instance_line_batches(release=hostile_release):
            for writer in writers.values():
                writer.write_lines(batch)

    expected, actual = _write(hostile_release, by_rows), _write(hostile_release, by_lines)
    for name in WRITERS:
        assert actual[name] == expected[name], name
    assert pq.ParquetFile(io.BytesIO(actual["parquet"])).metadata.num_row_groups == 3
    # The text did go through every escape: quoted CSV cells, JSON escapes, raw scripts.
    assert b'"quote "" inside"' in actual["csv"] and b"\\u0001" in actual["jsonl"]
    assert "हिन्दी".encode() in actual["jsonl"] and b"\r\n" in actual["csv"]
    assert b'"translation_review": {"status": "passed", "revision": 2' in actual["jsonl"]
    # The provenance column: each line's ids and text hash (computed by PostgreSQL on this
    # path) are the instance's own, the hash as Python's definition makes it.
    instances = {i.pk: i for i in Instance.objects.filter(memberships__release=hostile_release)}
    # Lines end in \n only (str.splitlines would also cut at U+2028 inside a text).
    values = [json.loads(line)["provenance"] for line in actual["jsonl"].split(b"\n")[:-1]]
    assert len(values) == len(instances) == 12_000
    assert {v["instance_id"]: v for v in values} == {
        pk: expected_provenance(i) for pk, i in instances.items()
    }
    assert sum(1 for v in values if v["source_instance_id"]) == 699


def test_release_create_takes_the_fast_path_and_agrees_with_row_dicts(hostile_release, monkeypatch):
    calls = []
    original = instance_lines.release_instance_line_batches

    def spy(**kwargs):
        calls.append(kwargs)
        return original(**kwargs)

    monkeypatch.setattr("apps.releases.services.file_writing.release_instance_line_batches", spy)
    release = release_create(dataset=hostile_release.dataset, content="as_published")
    assert len(calls) == 1
    files = {f.format: f for f in release.files.filter(kind=FileKind.INSTANCES)}
    assert {f.rows for f in files.values()} == {12_000}
    expected = _write(
        release,
        lambda writers: [
            writer.write_batch(batch)
            for batch in batched(selectors.release_instance_rows(release=release))
            for writer in writers.values()
        ],
    )
    from apps.releases.services import release_file_path

    for name, release_file in files.items():
        assert release_file_path(release_file=release_file).read_bytes() == expected[name]
