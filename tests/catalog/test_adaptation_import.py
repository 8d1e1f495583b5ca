"""`import_benchmark --format esbbq --adapted-from SOURCE`: the adaptation record EsBBQ's
workbooks carry (label t/m/n, bbq_category + bbq_template_id) written as links to the source
dataset's templates, on small hand-written BBQ CSVs and EsBBQ workbooks built here."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from apps.catalog.importers import ImportFile, benchmark_import
from apps.catalog.models import Adaptation, Dataset, Finding, Template
from apps.core.errors import ImportRejected

from .test_bbq_import import RELIGION_HEADER, SINGLE_HEADER, VOCABULARY, age_row
from .test_import_esbbq import AGE, TEMPLATE_COLUMNS, template, workbook
from .test_import_support import csv_bytes

pytestmark = pytest.mark.django_db

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
COLUMNS = [*TEMPLATE_COLUMNS, "bbq_category", "bbq_template_id"]
REMOVED = "Sample-Removed: no template of EsBBQ adapts it"


def race_row(q_id: str, question: str) -> dict[str, str]:
    return {
        "Q_id": q_id,
        "Category": "Race_ethnicity",
        "Ambiguous_Context": "A {{NAME1}} man and a {{NAME2}} man were at the bar.",
        "Disambiguating_Context": "The {{NAME1}} man was drunk.",
        "Question_negative_stereotype": question,
        "Question_non_negative": "Who was sober?",
        "Answer_negative": "The {{NAME1}} man",
        "Answer_non_negative": "The {{NAME2}} man",
        "Known_stereotyped_groups": '["Black"]',
    }


def bbq_files() -> list[ImportFile]:
    """BBQ: Age Q_id 1 (rows a and b), 2 and 3; Race_ethnicity Q_id 1 and 2."""
    age = [
        age_row(Q_id="1", version="a"),
        age_row(Q_id="1", version="b"),
        age_row(Q_id="2", version="a"),
        age_row(Q_id="3", version="a"),
    ]
    race = [race_row("1", "Who drank too much?"), race_row("2", "Who was loud?")]
    return [
        ImportFile("vocabulary.csv", VOCABULARY),
        ImportFile("new_templates - Age.csv", csv_bytes(SINGLE_HEADER, age)),
        ImportFile("new_templates - Race_ethnicity.csv", csv_bytes(RELIGION_HEADER, race)),
    ]


def esbbq_row(template_id: Any, version: Any, label: str, category: Any, source_id: Any):
    return template(
        **{k: v for k, v in AGE.items() if k not in {"label", "esbbq_template_id", "version"}},
        label=label,
        esbbq_template_id=template_id,
        version=version,
        bbq_category=category,
        bbq_template_id=source_id,
    )


def esbbq_file(rows: list[dict[str, Any]], name: str = "Age.xlsx") -> ImportFile:
    header = [c.format(l="es", o="ca") for c in COLUMNS]
    keys = [c.replace("_{l}", "").replace("_{o}", "_other") for c in COLUMNS]
    return ImportFile(name, workbook(header, [[row.get(k) for k in keys] for row in rows]))


AGE_ROWS = [
    esbbq_row(1, "a", "t", "Age", 1.0),  # a workbook's 1.0 is BBQ's Q_id "1": rows a and b
    esbbq_row(1, "b", "t", "Age", "1"),
    esbbq_row(2, None, "m", "age", 2),  # the category compared without case
    esbbq_row(5, None, "t", "Age", 99),  # no Age 99 in BBQ: a finding, not a rejection
    esbbq_row(6, None, "t", "Agez", 1),  # no category Agez
    esbbq_row(7, None, "n", None, None),  # Newly-Created: no source
]
RACE_ROWS = [esbbq_row(1, None, "m", "RaceEthnicity", 1.0)]  # is BBQ's Race_ethnicity


def esbbq_files() -> list[ImportFile]:
    race = [dict(row, esbbq_category="RaceEthnicity") for row in RACE_ROWS]
    return [esbbq_file(AGE_ROWS), esbbq_file(race, "RaceEthnicity.xlsx")]


@pytest.fixture
def bbq() -> Dataset:
    benchmark_import(dataset_name="BBQ", fmt="bbq", files=bbq_files())
    return Dataset.objects.get(name="BBQ")


def record(dataset_name: str = "EsBBQ") -> set[tuple[str, str | None, str]]:
    """(source template, target template or None, reason) of every Adaptation row."""
    return {
        (link.source.external_id, link.template.external_id if link.template else None,
         link.reason[:len(REMOVED)])
        for link in Adaptation.objects.filter(dataset__name=dataset_name)
        .select_related("source", "template")
    }  # fmt: skip


EXPECTED = {
    ("Age-1a", "Age-1a", ""),
    ("Age-1b", "Age-1a", ""),
    ("Age-1a", "Age-1b", ""),
    ("Age-1b", "Age-1b", ""),
    ("Age-2a", "Age-2", ""),
    ("Race_ethnicity-1", "RaceEthnicity-1", ""),
    ("Age-3a", None, REMOVED),
    ("Race_ethnicity-2", None, REMOVED),
}


def test_links_each_template_to_every_row_of_its_source_and_removes_the_rest(bbq) -> None:
    report = benchmark_import(
        dataset_name="EsBBQ", fmt="esbbq", files=esbbq_files(), adapted_from="BBQ"
    )
    dataset = Dataset.objects.get(name="EsBBQ")
    assert dataset.adapted_from == bbq
    assert record() == EXPECTED
    assert (report.adaptation_links, report.sample_removed, report.missing_sources) == (6, 2, 2)
    assert report.as_dict()["adapted_from"] == "BBQ"
    assert "adapted from 'BBQ': 6 link(s) to source templates, 2 source template(s) " in (
        "\n".join(report.summary())
    )
    removed = Adaptation.objects.get(source__external_id="Age-3a")
    assert removed.reason.startswith(REMOVED)
    assert "Age.xlsx, RaceEthnicity.xlsx" in removed.reason


def test_the_label_is_the_class_and_the_social_values_have_their_field(bbq) -> None:
    benchmark_import(dataset_name="EsBBQ", fmt="esbbq", files=esbbq_files(), adapted_from="BBQ")
    version = {t.external_id: t.current_version for t in Template.objects.filter(
        dataset__name="EsBBQ")}  # fmt: skip
    assert {name: v.transformation_type for name, v in version.items()} == {
        "Age-1a": "ST", "Age-1b": "ST", "Age-2": "TM", "Age-5": "ST", "Age-6": "ST",
        "Age-7": "NC", "RaceEthnicity-1": "TM",
    }  # fmt: skip
    assert version["Age-1a"].relevant_social_values == "analfabetismo tecnológico"
    assert version["Age-1a"].original_bbq_id == "Age 1"
    assert "label" not in version["Age-1a"].notes
    assert "analfabetismo" not in version["Age-1a"].notes


def test_a_missing_source_is_a_finding_naming_file_line_and_column(bbq) -> None:
    report = benchmark_import(
        dataset_name="EsBBQ", fmt="esbbq", files=esbbq_files(), adapted_from="BBQ"
    )
    missing = Finding.objects.filter(kind="missing-source").order_by("line")
    assert [(f.file, f.line, f.field, f.original) for f in missing] == [
        ("Age.xlsx", 5, "bbq_template_id", "Age 99"),
        ("Age.xlsx", 6, "bbq_category", "Agez 1"),
    ]
    assert missing[0].message == (
        "the source template is missing: BBQ has no template '99' in Age; the template is not "
        "linked to a source"
    )
    assert "BBQ has no category 'Agez'" in missing[1].message
    assert missing[0].template_version.template.external_id == "Age-5"
    assert report.findings_by_kind["missing-source"] == 2
    # --strict turns them into problems: nothing is written.
    with pytest.raises(ImportRejected) as rejected:
        benchmark_import(
            dataset_name="Strict", fmt="esbbq", files=esbbq_files(), adapted_from="BBQ",
            strict=True,
        )  # fmt: skip
    assert [p.kind for p in rejected.value.problems] == ["missing-source", "missing-source"]
    assert not Dataset.objects.filter(name="Strict").exists()


def test_reimport_changes_nothing(bbq) -> None:
    benchmark_import(dataset_name="EsBBQ", fmt="esbbq", files=esbbq_files(), adapted_from="BBQ")
    findings = set(Finding.objects.values_list("pk", "kind", "line"))
    again = benchmark_import(
        dataset_name="EsBBQ", fmt="esbbq", files=esbbq_files(), adapted_from="BBQ"
    )
    assert again.templates.unchanged == 7 and again.templates.created == 0
    assert again.findings_new == 0
    assert set(Finding.objects.values_list("pk", "kind", "line")) == findings
    assert record() == EXPECTED
    assert Adaptation.objects.count() == len(EXPECTED)


def test_workbooks_imported_one_by_one_keep_the_earlier_links(bbq) -> None:
    age, race = esbbq_files()
    benchmark_import(dataset_name="EsBBQ", fmt="esbbq", files=[age], adapted_from="BBQ")
    assert ("Race_ethnicity-1", None, REMOVED) in record()
    benchmark_import(dataset_name="EsBBQ", fmt="esbbq", files=[race], adapted_from="BBQ")
    assert record() == EXPECTED


def test_an_unknown_source_rejects_the_import_with_nothing_written(bbq) -> None:
    with pytest.raises(ImportRejected) as rejected:
        benchmark_import(
            dataset_name="EsBBQ", fmt="esbbq", files=esbbq_files(), adapted_from="BBQ-typo"
        )
    [problem] = rejected.value.problems
    assert (problem.file, problem.line, problem.field) == ("", None, "adapted_from")
    assert "unknown dataset 'BBQ-typo'" in problem.message
    assert not Dataset.objects.filter(name="EsBBQ").exists()
    assert not Template.objects.exclude(dataset=bbq).exists()
    assert not Adaptation.objects.exists()


def test_a_format_that_names_no_source_and_a_self_source_are_refused(bbq) -> None:
    with pytest.raises(ImportRejected) as rejected:
        benchmark_import(dataset_name="BBQ2", fmt="bbq", files=bbq_files(), adapted_from="BBQ")
    assert "format bbq does not say which source template" in rejected.value.problems[0].message
    with pytest.raises(ImportRejected) as rejected:
        benchmark_import(dataset_name="BBQ", fmt="esbbq", files=esbbq_files(), adapted_from="BBQ")
    assert rejected.value.problems[0].message == "BBQ cannot adapt itself"
    assert Dataset.objects.count() == 1


def test_another_recorded_source_rejects_the_import_and_rolls_back(bbq) -> None:
    other = Dataset.objects.create(name="Other")
    benchmark_import(dataset_name="Other", fmt="bbq", files=bbq_files())
    benchmark_import(dataset_name="EsBBQ", fmt="esbbq", files=esbbq_files(), adapted_from="BBQ")
    before = record()
    changed = [esbbq_row(8, None, "t", "Age", 1)]
    with pytest.raises(ImportRejected) as rejected:
        benchmark_import(
            dataset_name="EsBBQ", fmt="esbbq", files=[esbbq_file(changed)], adapted_from="Other"
        )
    assert "already records adaptations of BBQ" in rejected.value.problems[0].message
    assert not Template.objects.filter(external_id="Age-8").exists()  # rolled back
    assert record() == before
    assert Dataset.objects.get(name="EsBBQ").adapted_from == bbq != other


def test_the_label_must_be_t_m_or_n(bbq) -> None:
    rows = [esbbq_row(1, None, "x", "Age", 1), esbbq_row(2, None, " M ", "Age", 2)]
    with pytest.raises(ImportRejected) as rejected:
        benchmark_import(dataset_name="EsBBQ", fmt="esbbq", files=[esbbq_file(rows)])
    [problem] = rejected.value.problems
    assert (problem.file, problem.line, problem.field) == ("Age.xlsx", 2, "label")
    assert problem.message.startswith("unknown label 'x': use t (Simply-Transferred)")


def test_without_adapted_from_nothing_is_linked(bbq) -> None:
    report = benchmark_import(dataset_name="EsBBQ", fmt="esbbq", files=esbbq_files())
    assert "adaptation_links" not in report.as_dict()
    assert Dataset.objects.get(name="EsBBQ").adapted_from is None
    assert not Adaptation.objects.exists()
    assert not Finding.objects.filter(kind="missing-source").exists()


def test_the_command_takes_adapted_from(bbq, tmp_path, capsys) -> None:
    paths = []
    for upload in esbbq_files():
        path = tmp_path / upload.name
        path.write_bytes(upload.data)
        paths.append(str(path))
    call_command(
        "import_benchmark", "--format", "esbbq", "--dataset", "EsBBQ", "--adapted-from", "BBQ",
        "--json", *paths,
    )  # fmt: skip
    body = json.loads(capsys.readouterr().out)
    assert (body["adapted_from"], body["adaptation_links"], body["sample_removed"]) == (
        "BBQ", 6, 2,
    )  # fmt: skip
    assert record() == EXPECTED


def _uploads() -> list[SimpleUploadedFile]:
    return [SimpleUploadedFile(f.name, f.data, content_type=XLSX) for f in esbbq_files()]


def test_the_api_takes_adapted_from(bbq, researcher_client) -> None:
    response = researcher_client.post(
        "/api/imports/",
        {"format": "esbbq", "dataset": "EsBBQ", "adapted_from": "BBQ", "files": _uploads()},
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["adaptation_links"], body["sample_removed"], body["missing_sources"]) == (6, 2, 2)
    assert record() == EXPECTED
    bad = researcher_client.post(
        "/api/imports/",
        {"format": "esbbq", "dataset": "X", "adapted_from": "nope", "files": _uploads()},
        format="multipart",
    )
    assert bad.status_code == 400
    assert bad.json()["problems"][0]["field"] == "adapted_from"


def test_the_api_job_takes_adapted_from(bbq, researcher) -> None:
    from apps.catalog.import_jobs import benchmark_import_async, benchmark_import_job_work

    job = benchmark_import_async(
        dataset_name="EsBBQ", fmt="esbbq", uploads=_uploads(), created_by=researcher,
        adapted_from="BBQ",
    )  # fmt: skip
    assert job.params["adapted_from"] == "BBQ"
    result = benchmark_import_job_work(job=job)
    assert result["adaptation_links"] == 6
    assert record() == EXPECTED


def test_the_import_page_takes_adapted_from(bbq, researcher) -> None:
    client = Client()
    client.force_login(researcher)
    page = client.get("/import/").content.decode()
    assert 'name="adapted_from"' in page
    response = client.post(
        "/import/",
        {"format": "esbbq", "dataset": "EsBBQ", "adapted_from": "BBQ", "files": _uploads()},
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "adapted from &#x27;BBQ&#x27;: 6 link(s) to source templates" in html
    assert 'data-kind="missing-source"' in html
    assert record() == EXPECTED


def test_the_api_refuses_a_nul_in_adapted_from_as_a_rejected_import(researcher_client) -> None:
    """The multipart parser's NUL refusal comes back in the documented 400 shape (detail and
    problems), as every other refusal of POST /api/imports/."""
    response = researcher_client.post(
        "/api/imports/",
        {"format": "esbbq", "dataset": "EsBBQ", "adapted_from": "B\x00BQ", "files": _uploads()},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json() == {
        "detail": "import rejected, nothing was written",
        "problems": [
            {
                "file": "",
                "line": None,
                "field": "adapted_from",
                "message": "adapted_from: text may not contain the NUL character (U+0000)",
                "kind": "",
            }
        ],
    }
    assert not Dataset.objects.exists()


def test_a_removal_recorded_by_hand_keeps_its_reason_on_reimport(bbq) -> None:
    from apps.catalog.services import adaptation_remove

    benchmark_import(dataset_name="EsBBQ", fmt="esbbq", files=esbbq_files(), adapted_from="BBQ")
    dataset = Dataset.objects.get(name="EsBBQ")
    age3 = Template.objects.get(dataset=bbq, external_id="Age-3a")
    adaptation_remove(dataset=dataset, source_template=age3, reason="no survey answer names it")
    benchmark_import(dataset_name="EsBBQ", fmt="esbbq", files=esbbq_files(), adapted_from="BBQ")
    assert Adaptation.objects.get(source=age3).reason == "no survey answer names it"
    race2 = Adaptation.objects.get(source__external_id="Race_ethnicity-2")
    assert race2.reason.startswith(REMOVED)


def test_a_newly_created_row_that_names_a_source_is_a_finding(bbq) -> None:
    rows = [esbbq_row(8, None, "n", "Age", 3)]
    benchmark_import(
        dataset_name="EsBBQ", fmt="esbbq", files=[esbbq_file(rows)], adapted_from="BBQ"
    )
    (finding,) = Finding.objects.filter(kind="label-source-mismatch")
    assert (finding.file, finding.line, finding.field, finding.original) == (
        "Age.xlsx", 2, "label", "n",
    )  # fmt: skip
    assert "name a source template (Age 3)" in finding.message
    assert finding.template_version.transformation_type == "NC"
