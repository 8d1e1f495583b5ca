"""The Hugging Face dataset folder of a release (issue 22), loaded with the real `datasets` and
`huggingface_hub` packages, offline: every config the card lists loads, split by language, with
the release's rows and the card's features."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.urls import reverse

from apps.catalog.importers import benchmark_import
from apps.catalog.models import Dataset, TemplateVersion, UnknownExpression
from apps.catalog.services import dataset_instantiate
from apps.releases.hub import hub_features, hub_front_matter
from apps.releases.hub_export import (
    HubCardMissingError,
    HubOutputError,
    HubSourceError,
    hub_folder_entries,
    release_hub_write,
)
from apps.releases.models import ContentMode, Release, ReleaseFile
from apps.releases.services import release_create, release_file_path
from tests.catalog.test_import_support import bharat_file, bharat_row

pytestmark = pytest.mark.django_db

# BharatBBQ's template sheets, written in Hindi, Bengali and Tamil: one Q_id per category and
# language (Religion has no Tamil template, so its config has no `ta` split).
SHEETS = {
    "hi": {
        "Caste": dict(
            Ambiguous_Context="{{NAME1}} और {{NAME2}} {{WORD1}} पर कतार में खड़े थे।",
            Disambiguating_Context="{{NAME1}} ने फ़ॉर्म खो दिया; {{NAME2}} के पास दो प्रतियाँ थीं।",
            Names="{{NAME1}}: [ब्राह्मण, ठाकुर]; {{NAME2}}: [दलित, वाल्मीकि]",
            Lexical_diversity="{{WORD1}}: [डाकघर, बैंक]",
            Question_negative="फ़ॉर्म किसने खोया?",
            Question_non_negative="कौन तैयार था?",
        ),
        "Religion": dict(
            Ambiguous_Context="{{NAME1}} और {{NAME2}} {{WORD1}} में मिले।",
            Disambiguating_Context="{{NAME1}} देर से आया; {{NAME2}} समय पर था।",
            Names="{{NAME1}}: [हिंदू, सिख]; {{NAME2}}: [मुसलमान, ईसाई]",
            Lexical_diversity="{{WORD1}}: [बाज़ार, मेला]",
            Question_negative="कौन देर से आया?",
            Question_non_negative="कौन समय पर था?",
        ),
        "Disability_status": dict(
            Ambiguous_Context="{{NAME1}} और {{NAME2}} {{WORD1}} में काम करते हैं।",
            Disambiguating_Context="{{NAME1}} ने परियोजना पूरी की; {{NAME2}} छुट्टी पर था।",
            Names="{{NAME1}}: [नेत्रहीन व्यक्ति, बधिर व्यक्ति]; {{NAME2}}: [सहकर्मी, मित्र]",
            Lexical_diversity="{{WORD1}}: [दफ़्तर, कारख़ाना]",
            Question_negative="कौन काम नहीं कर सका?",
            Question_non_negative="किसने परियोजना पूरी की?",
        ),
    },
    "bn": {
        "Caste": dict(
            Ambiguous_Context="{{NAME1}} এবং {{NAME2}} {{WORD1}}-এ লাইনে দাঁড়িয়ে ছিলেন।",
            Disambiguating_Context="{{NAME1}} ফর্ম হারিয়েছিলেন; {{NAME2}}-এর কাছে দুটি কপি ছিল।",
            Names="{{NAME1}}: [ব্রাহ্মণ, কায়স্থ]; {{NAME2}}: [দলিত, নমঃশূদ্র]",
            Lexical_diversity="{{WORD1}}: [ডাকঘর, ব্যাংক]",
            Question_negative="কে ফর্ম হারিয়েছিলেন?",
            Question_non_negative="কে প্রস্তুত ছিলেন?",
        ),
        "Religion": dict(
            Ambiguous_Context="{{NAME1}} এবং {{NAME2}} {{WORD1}}-এ দেখা করলেন।",
            Disambiguating_Context="{{NAME1}} দেরিতে এলেন; {{NAME2}} সময়মতো ছিলেন।",
            Names="{{NAME1}}: [হিন্দু, বৌদ্ধ]; {{NAME2}}: [মুসলমান, খ্রিস্টান]",
            Lexical_diversity="{{WORD1}}: [বাজার, মেলা]",
            Question_negative="কে দেরিতে এলেন?",
            Question_non_negative="কে সময়মতো ছিলেন?",
        ),
        "Disability_status": dict(
            Ambiguous_Context="{{NAME1}} এবং {{NAME2}} {{WORD1}}-এ কাজ করেন।",
            Disambiguating_Context="{{NAME1}} প্রকল্প শেষ করলেন; {{NAME2}} ছুটিতে ছিলেন।",
            Names="{{NAME1}}: [দৃষ্টিহীন ব্যক্তি, বধির ব্যক্তি]; {{NAME2}}: [সহকর্মী, বন্ধু]",
            Lexical_diversity="{{WORD1}}: [অফিস, কারখানা]",
            Question_negative="কে কাজ করতে পারেননি?",
            Question_non_negative="কে প্রকল্প শেষ করলেন?",
        ),
    },
    "ta": {
        "Caste": dict(
            Ambiguous_Context="{{NAME1}} மற்றும் {{NAME2}} {{WORD1}} வரிசையில் நின்றனர்.",
            Disambiguating_Context="{{NAME1}} படிவத்தை இழந்தார்; {{NAME2}} இரண்டு நகல்கள் வைத்திருந்தார்.",
            Names="{{NAME1}}: [பிராமணர், வேளாளர்]; {{NAME2}}: [தலித், பறையர்]",
            Lexical_diversity="{{WORD1}}: [அஞ்சல் அலுவலக, வங்கி]",
            Question_negative="படிவத்தை இழந்தவர் யார்?",
            Question_non_negative="தயாராக இருந்தவர் யார்?",
        ),
        "Disability_status": dict(
            Ambiguous_Context="{{NAME1}} மற்றும் {{NAME2}} {{WORD1}} வேலை செய்கிறார்கள்.",
            Disambiguating_Context="{{NAME1}} திட்டத்தை முடித்தார்; {{NAME2}} விடுப்பில் இருந்தார்.",
            Names="{{NAME1}}: [பார்வையற்றவர், காது கேளாதவர்]; {{NAME2}}: [சக ஊழியர், நண்பர்]",
            Lexical_diversity="{{WORD1}}: [அலுவலகத்தில், தொழிற்சாலையில்]",
            Question_negative="யாரால் வேலை செய்ய முடியவில்லை?",
            Question_non_negative="திட்டத்தை முடித்தவர் யார்?",
        ),
    },
}
Q_IDS = {"hi": 1, "bn": 21, "ta": 41}
# The answer option "unknown" in each language (BharatBBQ's translated UNKNOWN_ANSWERS).
UNKNOWN = {"hi": "पता नहीं", "bn": "জানি না", "ta": "தெரியாது"}


def bharat_dataset(name: str = "BharatBBQ मिनी") -> Dataset:
    """BharatBBQ-shaped: its template sheets read by its own reader and generated by its own
    generator, per language, every category in its own file as published."""
    for language, sheets in SHEETS.items():
        for offset, (category, texts) in enumerate(sheets.items()):
            row = bharat_row(
                Q_id=str(Q_IDS[language] + offset),
                Category=category,
                Answer_negative="{{NAME1}}",
                Answer_non_negative="{{NAME2}}",
                **texts,
            )
            benchmark_import(
                dataset_name=name,
                fmt="bharatbbq",
                files=[bharat_file([row], f"{category}.csv")],
                language=language,
            )
    for language, text in UNKNOWN.items():
        UnknownExpression.objects.get_or_create(language=language, text=text)
    dataset = Dataset.objects.get(name=name)
    dataset_instantiate(dataset=dataset)
    TemplateVersion.objects.filter(template__dataset=dataset).update(status="approved")
    return dataset


@pytest.fixture
def hf(monkeypatch, tmp_path):
    """The real datasets and huggingface_hub, offline, with their caches under tmp_path."""
    cache = tmp_path / "hf"
    for key, value in {
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HOME": str(cache),
        "HF_DATASETS_CACHE": str(cache / "datasets"),
        "HF_HUB_DISABLE_TELEMETRY": "1",
    }.items():
        monkeypatch.setenv(key, value)
    import datasets
    import huggingface_hub

    # Both read the environment once, at their first import: in a run where another test
    # imported them first, their settings follow the same values here.
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", cache / "datasets")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    return datasets, huggingface_hub


@pytest.fixture
def bharat(db) -> Dataset:
    return bharat_dataset()


def frozen_table(release: Release, kind: str) -> pa.Table:
    row = release.files.get(kind=kind, format="parquet")
    return pq.read_table(release_file_path(release_file=row))


def expected_rows(table: pa.Table, category: str | None, language: str) -> list[dict]:
    mask = pc.equal(table["language"], language)
    if category is not None:
        mask = pc.and_(mask, pc.equal(table["category"], category))
    return table.filter(mask).to_pylist()


def assert_loads_config_by_config(datasets, huggingface_hub, release: Release, directory: Path):
    front = hub_front_matter((directory / "README.md").read_text(encoding="utf-8"))
    card = huggingface_hub.DatasetCard.load(directory / "README.md")
    assert [c["config_name"] for c in card.data.configs] == [
        c["config_name"] for c in front["configs"]
    ]
    features = {info["config_name"]: info["features"] for info in front["dataset_info"]}
    facts = {c["name"]: c for c in release_card_facts(release)["hub_configs"]}
    assert set(facts) == set(features)
    loaded = []
    for entry in front["configs"]:
        name = entry["config_name"]
        config = facts[name]
        table = frozen_table(release, config["kind"])
        got = datasets.load_dataset(str(directory), name)
        assert sorted(got) == sorted(config["splits"]), name
        for split, language in config["splits"].items():
            rows = expected_rows(table, config["category"], language)
            assert got[split].num_rows == len(rows) > 0, (name, split)
            assert got[split].to_list() == rows, (name, split)
            assert got[split].features._to_yaml_list() == features[name], name
        loaded.append(name)
    return loaded


def written(tmp_path: Path) -> list[Path]:
    """What a test left in tmp_path besides the release store (media/)."""
    return [path for path in tmp_path.iterdir() if path.name != "media"]


def release_card_facts(release: Release) -> dict:
    import json

    row = release.files.get(kind="card", format="json")
    return json.loads(release_file_path(release_file=row).read_bytes())


def test_bharatbbq_hub_folder_loads_every_config(bharat, tmp_path, hf):
    datasets, huggingface_hub = hf
    release = release_create(dataset=bharat)
    # 8 templates, each 2 x 2 names x 2 words, 4 instances per combination.
    assert release.counts["total"] == 8 * 32
    out = tmp_path / "hub"
    calls = []
    folder = release_hub_write(
        release=release, output=out, progress=lambda done, total: calls.append((done, total))
    )
    # README.md is the stored card, byte for byte.
    readme = release.files.get(kind="card", format="md")
    assert (out / "README.md").read_bytes() == release_file_path(release_file=readme).read_bytes()
    loaded = assert_loads_config_by_config(datasets, huggingface_hub, release, out)
    assert loaded == ["all", "Caste", "Disability_status", "Religion"]
    # The full set is the default config; Religion has no Tamil split.
    assert sorted(datasets.load_dataset(str(out))) == ["bn", "hi", "ta"]
    assert sorted(datasets.load_dataset(str(out), "Religion")) == ["bn", "hi"]
    assert hub_folder_entries(directory=out) == [
        "README.md",
        *(f"data/{c}/{s}.parquet" for c, s in [
            ("Caste", "bn"), ("Caste", "hi"), ("Caste", "ta"),
            ("Disability_status", "bn"), ("Disability_status", "hi"), ("Disability_status", "ta"),
            ("Religion", "bn"), ("Religion", "hi"),
            ("all", "bn"), ("all", "hi"), ("all", "ta"),
        ]),
    ]  # fmt: skip
    # Each row is written twice (the full set and its category): progress counts both.
    assert calls[-1] == (2 * 256, 2 * 256) and folder.rows == 2 * 256
    hindi = datasets.load_dataset(str(out), "Caste", split="hi")
    assert "ब्राह्मण" in hindi[0]["context"] or "ठाकुर" in hindi[0]["context"]
    assert not list(tmp_path.glob(".hub.*"))  # no temporary directory left


def test_split_files_keep_the_frozen_schema_and_order(bharat, tmp_path):
    release = release_create(dataset=bharat)
    release_hub_write(release=release, output=tmp_path / "hub")
    frozen = frozen_table(release, "instances")
    split = pq.read_table(tmp_path / "hub" / "data" / "all" / "hi.parquet")
    assert split.schema == frozen.schema
    # The release's row order: category, then example id, as in the frozen file.
    assert split.to_pylist() == expected_rows(frozen, None, "hi")
    categories = split["category"].to_pylist()
    assert categories == sorted(categories)


def test_other_kinds_configs_load(dataset, tmp_path, hf):
    """The releases fixture: instances, sentence pairs (as published), tuples, context sets."""
    datasets, huggingface_hub = hf
    release = release_create(dataset=dataset, content=ContentMode.AS_PUBLISHED)
    out = tmp_path / "hub"
    release_hub_write(release=release, output=out)
    loaded = assert_loads_config_by_config(datasets, huggingface_hub, release, out)
    for kind in ("sentence_pairs", "tuples", "context_sets"):
        assert kind in loaded
    assert "tuples-Caste" in loaded and "context_sets-Caste" in loaded
    pairs = datasets.load_dataset(str(out), "sentence_pairs", split="hi")
    assert pairs[0]["sent_more"] == "बूढ़े लोग धीमे होते हैं।"
    tuples = datasets.load_dataset(str(out), "tuples-Caste", split="ta")
    assert tuples[0]["identity_term"] == "பிராமணர்" and tuples[0]["votes"] == [1, 1, 0]


def test_command_writes_and_reports(bharat, tmp_path):
    release = release_create(dataset=bharat)
    out, err = io.StringIO(), io.StringIO()
    target = tmp_path / "hub"
    call_command(
        "export_release", str(release.pk), "--kind", "hub", "--output", str(target),
        stdout=out, stderr=err,
    )  # fmt: skip
    text = out.getvalue()
    assert "config all (instances, all categories, default)" in text
    assert "config Religion (instances, category Religion)" in text
    size = (target / "data" / "Caste" / "ta.parquet").stat().st_size
    assert f"data/Caste/ta.parquet  split ta (ta): 32 rows, {size} bytes" in text
    assert "11 split files, 512 rows" in err.getvalue() and "sha256 verified" in err.getvalue()

    # A non-empty directory is refused, and kept as it was; --force replaces it whole.
    (target / "mine.txt").write_text("मेरा")
    with pytest.raises(CommandError, match="is not empty.*--force"):
        call_command("export_release", str(release.pk), "--kind", "hub", "--output", str(target))
    assert (target / "mine.txt").exists()
    call_command(
        "export_release", str(release.pk), "--kind", "hub", "--output", str(target), "--force",
        stdout=io.StringIO(), stderr=io.StringIO(),
    )  # fmt: skip
    assert not (target / "mine.txt").exists() and (target / "README.md").exists()
    # An empty existing directory is fine.
    empty = tmp_path / "empty"
    empty.mkdir()
    call_command(
        "export_release", str(release.pk), "--kind", "hub", "--output", str(empty),
        stdout=io.StringIO(), stderr=io.StringIO(),
    )  # fmt: skip
    assert hub_folder_entries(directory=empty) == hub_folder_entries(directory=target)

    with pytest.raises(CommandError, match="--format and --extract do not apply"):
        call_command(
            "export_release", str(release.pk), "--kind", "hub", "--format", "parquet",
            "--output", str(tmp_path / "x"),
        )  # fmt: skip
    with pytest.raises(CommandError, match="--force only applies to --kind hub"):
        call_command(
            "export_release", str(release.pk), "--format", "csv", "--output",
            str(tmp_path / "x.csv"), "--force",
        )  # fmt: skip
    afile = tmp_path / "a-file"
    afile.write_text("x")
    with pytest.raises(CommandError, match="is not a directory"):
        call_command("export_release", str(release.pk), "--kind", "hub", "--output", str(afile))
    with pytest.raises(CommandError, match="no release with id 999999"):
        call_command("export_release", "999999", "--kind", "hub", "--output", str(tmp_path / "y"))
    # The other kinds still work as before.
    call_command(
        "export_release", str(release.pk), "--format", "csv", "--output",
        str(tmp_path / "i.csv"), stdout=io.StringIO(), stderr=io.StringIO(),
    )  # fmt: skip
    assert (tmp_path / "i.csv").read_bytes().startswith(b"example_id")


def _drop_card(release: Release) -> None:
    """A release as made before cards existed: no README.md and card.json rows (release rows
    are immutable through Django, so the rows are removed in SQL)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {ReleaseFile._meta.db_table} WHERE release_id = %s AND kind = 'card'",
            [release.pk],
        )


def test_release_without_card_is_refused_with_the_way_out(bharat, tmp_path):
    release = release_create(dataset=bharat)
    _drop_card(release)
    with pytest.raises(HubCardMissingError) as caught:
        release_hub_write(release=release, output=tmp_path / "hub")
    message = str(caught.value)
    assert f"BharatBBQ मिनी r1 (release id {release.pk})" in message
    assert "before dataset cards existed" in message and "release_dataset --dataset" in message
    assert not (tmp_path / "hub").exists() and not written(tmp_path)


@pytest.mark.parametrize("kind, file_format", [("instances", "parquet"), ("card", "md")])
def test_tampered_frozen_file_is_refused(bharat, tmp_path, kind, file_format):
    release = release_create(dataset=bharat)
    path = release_file_path(release_file=release.files.get(kind=kind, format=file_format))
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(HubSourceError, match="checksum mismatch"):
        release_hub_write(release=release, output=tmp_path / "hub")
    assert not written(tmp_path)  # nothing written, no temporary directory left


def _store(release_file: ReleaseFile, data: bytes) -> None:
    """Replace a stored file and its recorded checksum, as if the release had written it so
    (release rows are immutable through Django: the checksum is set in SQL)."""
    release_file_path(release_file=release_file).write_bytes(data)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {ReleaseFile._meta.db_table} SET sha256 = %s, size = %s WHERE id = %s",
            [hashlib.sha256(data).hexdigest(), len(data), release_file.pk],
        )


def _parquet_bytes(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue()


def test_card_and_file_disagreeing_is_refused(bharat, tmp_path):
    """A frozen file whose columns are not the card's features would fail in `datasets`:
    refused here by name."""
    release = release_create(dataset=bharat)
    row = release.files.get(kind="instances", format="parquet")
    _store(row, _parquet_bytes(frozen_table(release, "instances").drop_columns(["label"])))
    with pytest.raises(HubSourceError, match="declares all's features"):
        release_hub_write(release=release, output=tmp_path / "hub")
    assert not written(tmp_path)


def test_the_provenance_column_is_carried(bharat, tmp_path, hf):
    """The frozen file's last column, `provenance` (ids and the text hash), is copied into
    every split and declared in the card's features: the splits take the frozen file's
    columns, whatever they are."""
    datasets, huggingface_hub = hf
    release = release_create(dataset=bharat)
    table = frozen_table(release, "instances")
    assert table.column_names[-1] == "provenance"
    out = tmp_path / "hub"
    release_hub_write(release=release, output=out)
    for path in (out / "data").rglob("*.parquet"):
        assert pq.read_schema(path) == table.schema
    caste = datasets.load_dataset(str(out), "Caste", split="bn")
    assert caste.column_names[-1] == "provenance"
    assert caste.to_list() == expected_rows(table, "Caste", "bn")
    assert {row["provenance"]["instance_id"] for row in caste.to_list()} <= set(
        release.memberships.values_list("instance_id", flat=True)
    )


def test_download_zips_the_folder(annotator_client, outsider_client, bharat, tmp_path, settings):
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path / "uploads")
    (tmp_path / "uploads").mkdir()
    release = release_create(dataset=bharat)
    url = reverse("release-hub", args=[release.pk])
    response = annotator_client.get(url)
    assert response.status_code == 200
    assert response.streaming and response["Content-Type"] == "application/zip"
    assert 'filename="bharatbbq-r1-hub.zip"' in response["Content-Disposition"]
    # Read to the end: the test client then closes the response (and so the stream).
    body = b"".join(response.streaming_content)
    folder = tmp_path / "hub"
    release_hub_write(release=release, output=folder)
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        names = archive.namelist()
        assert names == [f"bharatbbq-r1-hub/{e}" for e in hub_folder_entries(directory=folder)]
        for info in archive.infolist():
            assert info.date_time == (1980, 1, 1, 0, 0, 0)
            relative = info.filename.removeprefix("bharatbbq-r1-hub/")
            assert archive.read(info) == (folder / relative).read_bytes(), relative
    # Deterministic: the same release gives the same bytes; no temporary folder is left.
    again = annotator_client.get(url)
    assert b"".join(again.streaming_content) == body
    assert not list((tmp_path / "uploads").iterdir())
    assert outsider_client.get(url).status_code == 403
    assert annotator_client.get(reverse("release-hub", args=[999999])).status_code == 404


def test_download_refusals_are_json(annotator_client, bharat):
    release = release_create(dataset=bharat)
    _drop_card(release)
    response = annotator_client.get(reverse("release-hub", args=[release.pk]))
    assert response.status_code == 409
    assert "before dataset cards existed" in response.json()["detail"]


def test_output_errors(bharat, tmp_path):
    release = release_create(dataset=bharat)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(HubOutputError, match="not empty"):
        release_hub_write(release=release, output=tmp_path / "full")
    folder = release_hub_write(release=release, output=tmp_path / "full", force=True)
    assert folder.directory == tmp_path / "full" and not (tmp_path / "full" / "x").exists()


def test_hub_definitions_round_trip():
    """card.json's entries read back into the same configs; the front matter reader and the
    features of the Arrow types release files use, and a refusal for a type not mapped."""
    from apps.releases.hub import HubConfig, hub_configs

    layout = {
        "instances": {"Caste": {"hi": 3, "ta": 1}, "Disability status": {"bn": 2}},
        "tuples": {"Caste": {"ta": 4}},
    }
    configs = hub_configs(layout)
    assert [c.name for c in configs] == [
        "all",
        "Caste",
        "Disability_status",
        "tuples",
        "tuples-Caste",
    ]
    assert [HubConfig.from_json(c.as_json()) for c in configs] == configs
    assert hub_front_matter("# no front matter\n") == {}
    assert hub_front_matter("---\npretty_name: भारत\n---\n\n# x\n") == {"pretty_name": "भारत"}
    schema = pa.schema([("n", pa.int32()), ("ids", pa.large_list(pa.int64()))])
    assert hub_features(schema) == [
        {"name": "n", "dtype": "int32"},
        {"name": "ids", "large_list": "int64"},
    ]
    with pytest.raises(ValueError, match="no Hub feature for the Arrow type"):
        hub_features(pa.schema([("when", pa.timestamp("s"))]))


def test_written_from_the_frozen_files_without_reading_instances(bharat, tmp_path):
    """The folder is the release as frozen: the only rows read are the release's and its
    files' (and its dataset's name), and a change to the live data since does not show."""
    import re

    from django.test.utils import CaptureQueriesContext

    from apps.catalog.models import Instance

    release = release_create(dataset=bharat)
    Instance.objects.filter(dataset=bharat).update(context="बदला हुआ")
    release = Release.objects.get(pk=release.pk)
    with CaptureQueriesContext(connection) as queries:
        release_hub_write(release=release, output=tmp_path / "hub")
    tables = {
        table
        for query in queries.captured_queries
        for table in re.findall(r'(?:FROM|JOIN) "(\w+)"', query["sql"])
    }
    allowed = {Release._meta.db_table, ReleaseFile._meta.db_table, Dataset._meta.db_table}
    assert tables <= allowed, tables
    split = pq.read_table(tmp_path / "hub" / "data" / "Caste" / "hi.parquet")
    assert "बदला हुआ" not in split["context"].to_pylist()
    assert split.to_pylist() == expected_rows(frozen_table(release, "instances"), "Caste", "hi")


def test_openapi_describes_the_download(anonymous_client):
    schema = anonymous_client.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/releases/{id}/hub/"]["get"]
    assert operation["responses"]["200"]["content"]["application/zip"]["schema"] == {
        "type": "string",
        "format": "binary",
    }
    assert {"404", "409", "500"} <= set(operation["responses"])
