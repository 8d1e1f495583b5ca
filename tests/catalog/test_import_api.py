"""POST /api/imports/ through the project's own URL configuration."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from drf_spectacular.generators import SchemaGenerator

from apps.catalog.models import Dataset, Template

from .test_import_support import DATA, bharat_file, bharat_row

pytestmark = pytest.mark.django_db
URL = "/api/imports/"


def upload(relative: str) -> SimpleUploadedFile:
    target = DATA / relative
    return SimpleUploadedFile(target.name, target.read_bytes(), content_type="text/csv")


def test_researcher_imports_several_files(researcher_client, researcher) -> None:
    response = researcher_client.post(
        URL,
        {
            "format": "bharatbbq",
            "dataset": "BharatBBQ",
            "files": [upload("bharatbbq/Caste.csv"), upload("bharatbbq/Age_ta.csv")],
        },
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["templates"] == {"created": 5, "updated": 0, "unchanged": 0}
    assert body["by_category"] == {"Age": 1, "Caste": 4}
    assert body["files"] == ["Caste.csv", "Age_ta.csv"]
    assert Dataset.objects.get().created_by == researcher
    assert (
        Template.objects.get(external_id="Age-1a-cn-biased").current_version.created_by
        == researcher
    )


def test_bad_input_is_400_with_every_problem(researcher_client) -> None:
    bad = bharat_file([bharat_row(Names="NAME1: [a"), bharat_row(Q_id="2", Pairing="x")])
    response = researcher_client.post(
        URL,
        {
            "format": "bharatbbq",
            "dataset": "D",
            "files": [SimpleUploadedFile(bad.name, bad.data, content_type="text/csv")],
        },
        format="multipart",
    )
    assert response.status_code == 400
    problems = response.json()["problems"]
    assert [(p["file"], p["line"], p["field"]) for p in problems] == [
        ("Age.csv", 2, "Names"),
        ("Age.csv", 3, "Pairing"),
    ]
    assert not Dataset.objects.exists()


def test_unknown_format_and_missing_files_are_400(researcher_client) -> None:
    response = researcher_client.post(URL, {"format": "crows", "dataset": "D"}, format="multipart")
    assert response.status_code == 400
    # The documented 400 shape (ImportRejected), with the request's own fields as problems.
    assert {p["field"] for p in response.json()["problems"]} == {"format", "files"}


@pytest.mark.parametrize(
    ("client_name", "status"),
    [("annotator_client", 403), ("outsider_client", 403), ("anonymous_client", 403)],
)
def test_only_researchers_may_import(request, client_name: str, status: int) -> None:
    client = request.getfixturevalue(client_name)
    response = client.post(
        URL,
        {"format": "indibias", "dataset": "D", "files": [upload("indibias/tuples.csv")]},
        format="multipart",
    )
    assert response.status_code in (status, 401)
    assert not Dataset.objects.exists()


def test_openapi_describes_the_upload() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    operation = schema["paths"]["/api/imports/"]["post"]
    body = operation["requestBody"]["content"]
    assert list(body) == ["multipart/form-data"]
    request_schema = schema["components"]["schemas"]["BenchmarkImportInputRequest"]
    assert request_schema["properties"]["files"]["items"]["format"] == "binary"
    assert set(request_schema["required"]) >= {"format", "dataset", "files"}
    assert {"201", "400", "403"} <= set(operation["responses"])
    problems = schema["components"]["schemas"]["ImportRejected"]["properties"]["problems"]
    assert problems["items"]["$ref"].endswith("ImportProblem")


@pytest.mark.parametrize(
    ("fmt", "files", "kind"),
    [
        ("bharatbbq", ["bharatbbq/Caste.csv"], "templates"),
        ("indibias", ["indibias/IndiBias_sample.csv", "indibias/tuples.csv"], "pairs"),
        ("indicasa", ["indicasa/IndiCASA_dataset - gender.csv"], "context_sets"),
        ("bbq-instances", ["published/Age.jsonl"], "created"),
    ],
)
def test_every_report_matches_the_documented_response(researcher_client, fmt, files, kind):
    """The 201 body is one of two documented reports, chosen by `format`: the template-set
    report (templates, pairs, tuples, context sets) or the published-instances report."""
    import json

    import jsonschema

    schema = json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True)))
    response_schema = schema["paths"]["/api/imports/"]["post"]["responses"]["201"]
    ref = response_schema["content"]["application/json"]["schema"]["$ref"]
    report = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    mapping = report["discriminator"]["mapping"]
    assert len(report["oneOf"]) == 2
    response = researcher_client.post(
        URL,
        {"format": fmt, "dataset": f"d-{fmt}", "files": [upload(name) for name in files]},
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    expected = "InstanceImportReportOutput" if fmt.endswith("-instances") else "ImportReportOutput"
    assert mapping[fmt].endswith(f"/{expected}")
    validator = jsonschema.Draft202012Validator({**schema, "$ref": ref})
    validator.validate(body)  # exactly one of the oneOf matches
    assert body[kind] if kind == "created" else body[kind]["created"] > 0
