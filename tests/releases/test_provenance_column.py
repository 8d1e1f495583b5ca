"""The instances files' `provenance` column (issue 22): per row the instance id, its template
version, the instance it was translated from and the hash of its texts, in every format, on
both paths (PostgreSQL's serialised lines and the row dicts), for originals, real translations
and published rows. The hash is one definition (apps.catalog.instance_hash) computed in Python
and in PostgreSQL: both agree on hostile text."""

from __future__ import annotations

import csv
import hashlib
import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from django.db import connection, transaction

from apps.catalog.instance_hash import instance_text_hash, instance_text_hash_sql
from apps.catalog.models import Instance
from apps.releases import selectors
from apps.releases.models import Release
from apps.releases.readers import READERS
from apps.releases.schemas import PROVENANCE_KEYS, SCHEMAS, instance_provenance
from apps.releases.services import release_create, release_file_path
from apps.releases.writers import WRITERS, HashingFile, batched
from apps.translation import services as translation_services
from tests.translation import conftest as translation_fixtures

from .expected import PROVENANCE_KEYS as EXPECTED_KEYS
from .expected import expected_provenance
from .test_published import imported_release

pytestmark = pytest.mark.django_db

# The translation tests' fixtures: the real tiny engines, run in-process.
inline_queue = translation_fixtures.inline_queue
real_engines = translation_fixtures.real_engines
tiny_model_dirs = translation_fixtures.tiny_model_dirs

postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="PostgreSQL's half of the hash / the fast path"
)

ZWJ, ZWNJ = "\u200d", "\u200c"
HOSTILE_TEXTS = [
    f"क्{ZWJ}ष और क्{ZWNJ}ष: हिन्दी में जोड़",  # Devanagari with ZWJ / ZWNJ
    "தமிழ் மொழி பேசுபவர்கள் காத்திருந்தனர்.",  # Tamil
    "বাংলা ক্ষ এবং র‍্যাব",  # Bengali (with a ZWJ inside র‍্য)
    "double \"quotes\" and 'single'",
    "back\\slash \\n \\u0041 \\x1f \\",
    "line\nbreak\r\nand\rreturn",
    "emoji 😀 👩🏽‍💻 🇮🇳 𝔘",
    "",
    " leading and trailing ",
    "NFC é vs NFD e\u0301",
]


def _python_and_sql_hashes(rows: list[tuple[str, str, str, str, str, int]]) -> list[tuple]:
    values = ", ".join(["(%s, %s, %s, %s, %s, %s::int)"] * len(rows))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {instance_text_hash_sql('i')} FROM (VALUES {values}) "  # noqa: S608
            "i(context, question, ans0, ans1, ans2, label)",
            [value for row in rows for value in row],
        )
        in_sql = [hash_ for (hash_,) in cursor.fetchall()]
    in_python = [
        instance_text_hash(context=c, question=q, ans0=a0, ans1=a1, ans2=a2, label=label)
        for c, q, a0, a1, a2, label in rows
    ]
    return list(zip(in_python, in_sql, strict=True))


@postgresql_only
def test_the_hash_is_the_same_in_python_and_postgresql_on_hostile_text():
    # Every text in every position, with each label: 10 x 5 x 3 combinations.
    rows = [
        tuple(HOSTILE_TEXTS[(start + k) % len(HOSTILE_TEXTS)] for k in range(5)) + (label,)
        for start in range(len(HOSTILE_TEXTS))
        for label in (0, 1, 2)
    ]
    pairs = _python_and_sql_hashes(rows)
    assert all(python == sql for python, sql in pairs), pairs
    # 16 hex digits, and different texts hash apart (moving a separator changes the hash).
    assert all(len(python) == 16 and int(python, 16) >= 0 for python, _ in pairs)
    assert len({python for python, _ in pairs}) == len(rows)
    moved = _python_and_sql_hashes([("a", "bc", "", "", "", 0), ("ab", "c", "", "", "", 0)])
    assert moved[0][0] != moved[1][0]
    # The definition, written out again: sha256 of the UTF-8 texts and label joined by U+001F.
    text = "\x1f".join([*rows[0][:5], str(rows[0][5])])
    assert pairs[0][0] == hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def test_the_row_value_follows_the_schema():
    assert (
        PROVENANCE_KEYS
        == tuple(EXPECTED_KEYS)
        == tuple(field.name for field in SCHEMAS["instances"].field("provenance").type)
    )
    value = instance_provenance(
        instance_id=7,
        template_version_id=None,
        source_instance_id=3,
        context=HOSTILE_TEXTS[0],
        question=HOSTILE_TEXTS[1],
        ans0=HOSTILE_TEXTS[2],
        ans1=HOSTILE_TEXTS[3],
        ans2=HOSTILE_TEXTS[4],
        label=2,
    )
    assert list(value) == list(PROVENANCE_KEYS)
    assert value["text_sha256"] == instance_text_hash(
        context=HOSTILE_TEXTS[0],
        question=HOSTILE_TEXTS[1],
        ans0=HOSTILE_TEXTS[2],
        ans1=HOSTILE_TEXTS[3],
        ans2=HOSTILE_TEXTS[4],
        label=2,
    )


def _file_rows(release: Release) -> dict[str, list[dict]]:
    rows = {}
    for file_format, reader in READERS.items():
        release_file = release.files.get(kind="instances", format=file_format)
        with open(release_file_path(release_file=release_file), "rb") as f:
            rows[file_format] = list(reader(f, kind="instances"))
    return rows


def _by_instance(rows: list[dict]) -> dict[int, dict]:
    return {row["provenance"]["instance_id"]: row["provenance"] for row in rows}


def _expected(release: Release) -> dict[int, dict]:
    instances = Instance.objects.filter(memberships__release=release)
    return {i.pk: expected_provenance(i) for i in instances}


def _dict_path_bytes(release: Release) -> dict[str, bytes]:
    """The instances files written from release_instance_rows (the SQLite path)."""
    outputs = {name: io.BytesIO() for name in WRITERS}
    writers = {
        name: writer(HashingFile(outputs[name]), kind="instances")
        for name, writer in WRITERS.items()
    }
    with transaction.atomic():
        for batch in batched(selectors.release_instance_rows(release=release)):
            for writer in writers.values():
                writer.write_batch(batch)
    for writer in writers.values():
        writer.close()
    return {name: output.getvalue() for name, output in outputs.items()}


@pytest.fixture
def translated(dataset, inline_queue, real_engines):
    """The release dataset (native scripts) with its English instances really translated into
    Marathi by the tiny engines (a job run in-process, message by message)."""
    job = translation_services.translation_job_create(dataset=dataset, languages=["mr"])
    inline_queue.drain()
    job.refresh_from_db()
    assert Instance.objects.filter(dataset=dataset, source_instance__isnull=False).exists()
    return dataset


def test_originals_and_translations_carry_their_ids_and_hash_on_both_paths(translated):
    release = release_create(dataset=translated, content="as_published")
    expected = _expected(release)
    translations = {pk for pk, value in expected.items() if value["source_instance_id"]}
    originals = set(expected) - translations
    assert translations and originals

    files = _file_rows(release)
    for file_format, rows in files.items():
        assert [list(row)[-1] for row in rows[:1]] == ["provenance"], file_format
        assert _by_instance(rows) == expected, file_format
        assert len(rows) == len(expected), file_format
    # The row-dict path gives the same values, and (on PostgreSQL, where the release itself
    # was written from the database's lines) the same bytes.
    assert _by_instance(selectors.release_instance_rows(release=release)) == expected
    by_rows = _dict_path_bytes(release)
    for release_file in release.files.filter(kind="instances"):
        written = release_file_path(release_file=release_file).read_bytes()
        assert written == by_rows[release_file.format], release_file.format

    # A translation names its source and its own template version; its texts hash apart
    # from its source's.
    jsonl = {row["provenance"]["instance_id"]: row for row in files["jsonl"]}
    for pk in translations:
        value = jsonl[pk]["provenance"]
        source = Instance.objects.get(pk=value["source_instance_id"])
        assert source.source_instance_id is None and source.language == "en"
        assert jsonl[pk]["language"] == "mr"
        assert value["template_version_id"] == source.template_version_id
        assert value["text_sha256"] != expected[source.pk]["text_sha256"]
    for pk in originals:
        assert jsonl[pk]["provenance"]["source_instance_id"] is None
        assert jsonl[pk]["provenance"]["template_version_id"] is not None


def test_csv_cell_is_json_and_parquet_a_struct(dataset):
    release = release_create(dataset=dataset)
    expected = _expected(release)
    path = release_file_path(release_file=release.files.get(kind="instances", format="csv"))
    with open(path, encoding="utf-8", newline="") as f:
        records = list(csv.reader(f))
    header, body = records[0], records[1:]
    assert header[-1] == "provenance"
    cells = [record[-1] for record in body]
    assert all(cell.startswith('{"instance_id": ') for cell in cells)
    assert {json.loads(cell)["instance_id"]: json.loads(cell) for cell in cells} == expected

    path = release_file_path(release_file=release.files.get(kind="instances", format="parquet"))
    field = pq.read_schema(path).field("provenance")
    assert field.type == pa.struct(
        [
            ("instance_id", pa.int64()),
            ("template_version_id", pa.int64()),
            ("source_instance_id", pa.int64()),
            ("text_sha256", pa.string()),
        ]
    )
    column = pq.read_table(path, columns=["provenance"]).column("provenance")
    assert {value["instance_id"]: value for value in column.to_pylist()} == expected


def test_a_published_dataset_names_no_template_version():
    release = imported_release("bbq-instances", "Age.jsonl", "Nationality.jsonl")
    expected = _expected(release)
    assert expected and all(v["template_version_id"] is None for v in expected.values())
    assert all(v["source_instance_id"] is None for v in expected.values())
    for file_format, rows in _file_rows(release).items():
        assert _by_instance(rows) == expected, file_format
