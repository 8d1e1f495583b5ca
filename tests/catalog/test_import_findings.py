"""Findings: defects of published data are kept, stored with what they concern, reported by
kind, listed per dataset (API), and turned into rejections by a strict import. IndiCASA's
quirks (duplicate sentences, a sentence labelled both ways, scores 0 / 9 / 44) drive them."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.catalog import selectors
from apps.catalog.importers import ImportFile, benchmark_import
from apps.catalog.models import ContextSentence, ContextSet, Dataset, Finding
from apps.core.errors import ImportRejected

pytestmark = pytest.mark.django_db

NAME = "IndiCASA_dataset - gender.csv"
# Line 3 repeats line 2 (duplicate-sentence); line 5 repeats line 4 with the other label
# (conflicting-label); line 6 scores 0 and 9, line 7 scores 44 and "n/a". Context 1 is clean.
CASA = (
    b"context_id,sentence,type,Annotator 1 (1 to 5),Annotator 2 (1 to 5)\n"
    b"0,She could not lead the team.,stereotype,4,4\n"
    b"0,She could not lead the team.,stereotype,3,4\n"
    b"0,He cooked for the family.,anti_stereotype,4,5\n"
    b"0,He cooked for the family.,stereotype,4,4\n"
    b"0,She led the team well.,anti_stereotype,0,9\n"
    b"1,The nurse was a man.,anti_stereotype,44,n/a\n"
    b"1,The pilot was a man.,stereotype,2,3\n"
)


def casa_file() -> ImportFile:
    return ImportFile(NAME, CASA)


def test_every_row_is_kept_and_each_defect_is_a_finding() -> None:
    report = benchmark_import(dataset_name="casa", fmt="indicasa", files=[casa_file()])
    assert report.context_sets.created == 2 and report.sentences == 7
    assert report.by_category == {"gender": 7}
    assert report.findings_by_kind == {
        "score-out-of-range": 3,
        "conflicting-label": 1,
        "duplicate-sentence": 1,
        "score-not-a-number": 1,
    }
    assert report.findings_new == 6
    where = [(f["line"], f["field"], f["kind"], f["original"]) for f in report.findings]
    assert where == [
        (3, "sentence", "duplicate-sentence", "She could not lead the team."),
        (5, "type", "conflicting-label", "He cooked for the family."),
        (6, "Annotator 1 (1 to 5)", "score-out-of-range", "0"),
        (6, "Annotator 2 (1 to 5)", "score-out-of-range", "9"),
        (7, "Annotator 1 (1 to 5)", "score-out-of-range", "44"),
        (7, "Annotator 2 (1 to 5)", "score-not-a-number", "n/a"),
    ]
    assert report.findings[0]["concerns"] == "context set gender-0, sentence 2"

    first = ContextSet.objects.get(external_id="gender-0")
    sentences = list(first.sentences.order_by("position"))
    assert [(s.kind, s.text) for s in sentences] == [
        ("stereotype", "She could not lead the team."),
        ("stereotype", "She could not lead the team."),
        ("anti_stereotype", "He cooked for the family."),
        ("stereotype", "He cooked for the family."),
        ("anti_stereotype", "She led the team well."),
    ]
    # Annotator scores are stored; out-of-range ones as missing.
    assert [s.scores for s in sentences] == [[4, 4], [3, 4], [4, 5], [4, 4], [None, None]]
    assert ContextSentence.objects.get(text="The nurse was a man.").scores == [None, None]

    # Each finding is attached to the sentence it is about.
    stored = Finding.objects.get(kind="conflicting-label")
    assert stored.context_sentence == sentences[3]
    assert (stored.file, stored.line, stored.dataset.name) == (NAME, 5, "casa")
    assert stored.status == Finding.Status.OPEN
    assert "labelled stereotype here and anti_stereotype" in stored.message
    by_score = Finding.objects.filter(context_sentence=sentences[4]).values_list(
        "original", flat=True
    )
    assert sorted(by_score) == ["0", "9"]


def test_reimport_keeps_findings_once_with_their_review_status() -> None:
    benchmark_import(dataset_name="casa", fmt="indicasa", files=[casa_file()])
    Finding.objects.filter(kind="duplicate-sentence").update(status=Finding.Status.ACCEPTED)
    again = benchmark_import(dataset_name="casa", fmt="indicasa", files=[casa_file()])
    assert again.context_sets.unchanged == 2
    assert again.findings_new == 0 and len(again.findings) == 6
    assert Finding.objects.count() == 6
    assert Finding.objects.get(kind="duplicate-sentence").status == Finding.Status.ACCEPTED


def test_strict_turns_every_finding_into_a_rejection_and_writes_nothing() -> None:
    with pytest.raises(ImportRejected) as caught:
        benchmark_import(dataset_name="casa", fmt="indicasa", files=[casa_file()], strict=True)
    problems = caught.value.problems
    assert [(p.line, p.kind) for p in problems] == [
        (3, "duplicate-sentence"),
        (5, "conflicting-label"),
        (6, "score-out-of-range"),
        (6, "score-out-of-range"),
        (7, "score-out-of-range"),
        (7, "score-not-a-number"),
    ]
    assert "[score-out-of-range]" in str(problems[2])
    assert not Dataset.objects.exists() and not Finding.objects.exists()


def test_strict_accepts_clean_data() -> None:
    clean = "\n".join(CASA.decode().splitlines()[:2] + CASA.decode().splitlines()[-1:])
    report = benchmark_import(
        dataset_name="casa", fmt="indicasa", files=[ImportFile(NAME, clean.encode())], strict=True
    )
    assert report.sentences == 2 and report.findings == [] and report.strict


def test_command_lists_findings_by_kind_and_prints_json(tmp_path) -> None:
    path = tmp_path / NAME
    path.write_bytes(CASA)
    out = StringIO()
    call_command(
        "import_benchmark", "--format", "indicasa", "--dataset", "c", str(path), stdout=out
    )
    text = out.getvalue()
    assert "findings: 6 (6 new), by kind:" in text
    assert "  score-out-of-range: 3" in text
    assert f"    {NAME}:5 type: the sentence is labelled" in text

    out = StringIO()
    call_command(
        "import_benchmark",
        "--format",
        "indicasa",
        "--dataset",
        "c",
        "--json",
        str(path),
        stdout=out,
    )
    body = json.loads(out.getvalue())
    assert body["findings_by_kind"]["duplicate-sentence"] == 1 and body["findings_new"] == 0
    assert body["findings"][0]["file"] == NAME and body["findings"][0]["line"] == 3


def test_command_strict_fails_with_the_findings(tmp_path) -> None:
    path = tmp_path / NAME
    path.write_bytes(CASA)
    err, out = StringIO(), StringIO()
    with pytest.raises(CommandError, match="6 problem"):
        call_command(
            "import_benchmark",
            "--format",
            "indicasa",
            "--dataset",
            "c",
            "--strict",
            str(path),
            stdout=out,
            stderr=err,
        )
    assert f"{NAME}:7: Annotator 1 (1 to 5): [score-out-of-range]" in err.getvalue()
    assert not Dataset.objects.exists()


def upload() -> SimpleUploadedFile:
    return SimpleUploadedFile(NAME, CASA, content_type="text/csv")


def test_api_import_reports_findings_and_strict_rejects(researcher_client) -> None:
    url = "/api/imports/"
    response = researcher_client.post(
        url,
        {"format": "indicasa", "dataset": "c", "files": [upload()], "strict": "true"},
        format="multipart",
    )
    assert response.status_code == 400
    problems = response.json()["problems"]
    assert len(problems) == 6 and problems[1]["kind"] == "conflicting-label"
    assert not Dataset.objects.exists()

    response = researcher_client.post(
        url, {"format": "indicasa", "dataset": "c", "files": [upload()]}, format="multipart"
    )
    assert response.status_code == 201
    body = response.json()
    assert body["findings_by_kind"]["score-out-of-range"] == 3
    assert body["findings"][1]["concerns"] == "context set gender-0, sentence 4"


def test_findings_api_lists_counts_filters_and_reviews(
    researcher_client, annotator_client, outsider_client
) -> None:
    benchmark_import(dataset_name="casa", fmt="indicasa", files=[casa_file()])
    benchmark_import(dataset_name="other", fmt="indicasa", files=[casa_file()])
    body = annotator_client.get("/api/findings/", {"dataset": "casa"}).json()
    assert body["count"] == 6
    assert body["by_kind"] == {
        "score-out-of-range": 3,
        "conflicting-label": 1,
        "duplicate-sentence": 1,
        "score-not-a-number": 1,
    }
    assert body["by_status"] == {"open": 6}
    first = body["results"][0]
    assert (first["file"], first["line"], first["kind"]) == (NAME, 3, "duplicate-sentence")
    assert first["concerns"] == "context set gender-0, sentence 2"

    body = annotator_client.get(
        "/api/findings/", {"dataset": "casa", "kind": "score-out-of-range"}
    ).json()
    assert body["count"] == 3 and body["by_kind"] == {"score-out-of-range": 3}

    finding_id = first["id"]
    assert (
        annotator_client.patch(
            f"/api/findings/{finding_id}/", {"status": "accepted"}, format="json"
        ).status_code
        == 403
    )
    response = researcher_client.patch(
        f"/api/findings/{finding_id}/", {"status": "accepted"}, format="json"
    )
    assert response.status_code == 200 and response.json()["status"] == "accepted"
    assert (
        researcher_client.patch(
            f"/api/findings/{finding_id}/", {"status": "gone"}, format="json"
        ).status_code
        == 400
    )
    body = annotator_client.get("/api/findings/", {"dataset": "casa", "status": "open"}).json()
    assert body["count"] == 5 and body["by_status"] == {"open": 5}
    assert outsider_client.get("/api/findings/").status_code == 403


def test_counts_by_kind_selector() -> None:
    benchmark_import(dataset_name="casa", fmt="indicasa", files=[casa_file()])
    dataset = Dataset.objects.get(name="casa")
    counts = selectors.finding_counts_by_kind(findings=selectors.finding_list(dataset=dataset))
    assert list(counts.items())[0] == ("score-out-of-range", 3)
    assert sum(counts.values()) == 6


def test_findings_page_counts_by_kind_and_filters(annotator) -> None:
    from django.test import Client
    from django.urls import reverse

    benchmark_import(dataset_name="casa", fmt="indicasa", files=[casa_file()])
    dataset = Dataset.objects.get(name="casa")
    client = Client()
    client.force_login(annotator)
    html = client.get(reverse("web:dataset", args=[dataset.pk])).content.decode()
    assert "Findings (6)" in html
    url = reverse("web:findings", args=[dataset.pk])
    response = client.get(url)
    html = response.content.decode()
    assert response.context["page"].by_kind["score-out-of-range"] == 3
    assert 'data-kind="score-out-of-range">3<' in html
    assert f"{NAME}:5" in html and "context set gender-0, sentence 4" in html
    response = client.get(url, {"kind": "conflicting-label"})
    assert response.context["page"].total == 1
    assert [f.line for f in response.context["page"].page] == [5]
    assert client.get(url, {"status": "resolved"}).context["page"].total == 0


def test_admin_lists_findings_read_only(admin_user) -> None:
    from django.test import Client

    benchmark_import(dataset_name="casa", fmt="indicasa", files=[casa_file()])
    admin_user.is_staff = True
    admin_user.save()
    client = Client()
    client.force_login(admin_user)
    response = client.get("/admin/catalog/finding/", {"kind": "conflicting-label"})
    assert response.status_code == 200
    assert "1 finding" in response.content.decode()
    assert client.get("/admin/catalog/finding/add/").status_code == 403


def test_reviews_keep_a_history_with_who_when_and_note(researcher_client, researcher) -> None:
    from apps.catalog.models import FindingReview
    from apps.catalog.services import finding_kind_status_set

    benchmark_import(dataset_name="casa", fmt="indicasa", files=[casa_file()])
    dataset = Dataset.objects.get(name="casa")
    first = Finding.objects.filter(dataset=dataset, kind="score-out-of-range").first()
    response = researcher_client.patch(
        f"/api/findings/{first.pk}/",
        {"status": "resolved", "note": "fixed in the second sheet"},
        format="json",
    )
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "resolved"
    assert [
        (h["from_status"], h["to_status"], h["note"], h["reviewed_by"]) for h in body["history"]
    ] == [("open", "resolved", "fixed in the second sheet", "rekha")]
    # The same status again records nothing.
    researcher_client.patch(f"/api/findings/{first.pk}/", {"status": "resolved"}, format="json")
    assert FindingReview.objects.filter(finding=first).count() == 1

    # A bulk review moves only the kind's open findings, one history row each.
    changed = finding_kind_status_set(
        dataset=dataset,
        kind="score-out-of-range",
        status="accepted",
        note="scale typos",
        reviewed_by=researcher,
    )
    assert changed == 2
    first.refresh_from_db()
    assert first.status == "resolved"
    assert set(
        Finding.objects.filter(dataset=dataset, kind="score-out-of-range").values_list(
            "status", flat=True
        )
    ) == {"resolved", "accepted"}
    assert FindingReview.objects.filter(note="scale typos", to_status="accepted").count() == 2
    assert Finding.objects.filter(dataset=dataset, status="open").count() == 3
    assert (
        finding_kind_status_set(
            dataset=dataset, kind="score-out-of-range", status="accepted", reviewed_by=researcher
        )
        == 0
    )
    listed = researcher_client.get("/api/findings/", {"dataset": "casa", "status": "accepted"})
    assert all(len(f["history"]) == 1 for f in listed.json()["results"])


def test_findings_page_review_views(researcher, annotator) -> None:
    from django.test import Client

    benchmark_import(dataset_name="casa", fmt="indicasa", files=[casa_file()])
    dataset = Dataset.objects.get(name="casa")
    finding = Finding.objects.filter(dataset=dataset).first()
    url = f"/datasets/{dataset.pk}/findings/{finding.pk}/review/"
    client = Client()
    client.force_login(annotator)
    assert client.post(url, {"status": "accepted"}).status_code == 403
    client.force_login(researcher)
    # The way back keeps only the page's own parameters.
    response = client.post(
        url, {"status": "gone", "back": "kind=x&status=open&next=//evil.example\r\nX: y"}
    )
    assert response.status_code == 302
    assert response.url == f"/datasets/{dataset.pk}/findings/?kind=x&status=open"
    finding.refresh_from_db()
    assert finding.status == "open" and not finding.reviews.exists()
    page = client.get(response.url)
    assert "unknown finding status &#x27;gone&#x27;" in page.content.decode()
    other = Dataset.objects.create(name="other")
    assert (
        client.post(
            f"/datasets/{other.pk}/findings/{finding.pk}/review/", {"status": "accepted"}
        ).status_code
        == 404
    )
    response = client.post(
        f"/datasets/{dataset.pk}/findings/review-kind/",
        {"kind": "score-out-of-range", "status": "resolved", "note": "fixed upstream"},
    )
    assert response.status_code == 302
    assert dataset.findings.filter(kind="score-out-of-range", status="resolved").count() == 3
