"""Bad input: every problem is reported with file, line and field, and nothing is written."""

from __future__ import annotations

import pytest

from apps.catalog.importers import ImportFile, benchmark_import
from apps.catalog.models import (
    Category,
    ContextSet,
    Dataset,
    SentencePair,
    StereotypeTuple,
    Template,
    TemplateVersion,
)
from apps.core.errors import ImportProblem, ImportRejected

from .test_import_support import BHARAT_HEADER, bharat_file, bharat_row, csv_bytes, data_file

pytestmark = pytest.mark.django_db


def rejected(fmt: str, files: list[ImportFile], **options: str) -> list[ImportProblem]:
    categories = Category.objects.count()  # the base data migration adds some
    with pytest.raises(ImportRejected) as caught:
        benchmark_import(dataset_name="bad", fmt=fmt, files=files, **options)
    assert Category.objects.count() == categories
    assert not Dataset.objects.exists()
    assert not Template.objects.exists() and not TemplateVersion.objects.exists()
    assert not SentencePair.objects.exists() and not StereotypeTuple.objects.exists()
    assert not ContextSet.objects.exists()
    return caught.value.problems


def where(problems: list[ImportProblem]) -> set[tuple[str, int | None, str]]:
    return {(p.file, p.line, p.field) for p in problems}


def test_missing_required_column() -> None:
    header = [c for c in BHARAT_HEADER if c not in ("Pairing", "Answer_negative")]
    problems = rejected("bharatbbq", [ImportFile("Age.csv", csv_bytes(header, [bharat_row()]))])
    assert where(problems) == {("Age.csv", 1, "pairing"), ("Age.csv", 1, "answer_negative")}
    assert all("required column" in p.message for p in problems)


def test_every_problem_of_every_file_is_reported_and_nothing_is_written() -> None:
    # Defects BharatBBQ's own generator gets past are findings (test_import_bharatbbq.py);
    # these rows it cannot read, or Kasauti cannot place.
    good = bharat_file([bharat_row()], name="Good.csv")
    bad = bharat_file(
        [
            bharat_row(),  # line 2: fine (its repeated id is a finding)
            bharat_row(Q_id="2", Names="{{NAME1}}: [old: man]; {{NAME2}}: [boy]"),  # two colons
            bharat_row(Q_id="6", Pairing="sometimes"),
            bharat_row(Q_id="7", Proper__Nouns="3"),
            bharat_row(Q_id=""),
            bharat_row(Q_id="8", Answer_negative="The {{NAME1}} and the {{NAME2}}"),
        ],
        name="Bad.csv",
    )
    problems = rejected("bharatbbq", [good, bad])
    assert not any(p.file == "Good.csv" for p in problems)
    by_line = {(p.line, p.field): p for p in problems}
    assert set(by_line) == {
        (3, "Names"),
        (4, "Pairing"),
        (5, "Proper Nouns"),
        (6, "Q_id"),
        (7, "Answer_negative"),
    }
    assert by_line[3, "Names"].message.startswith("unparseable value list")
    assert "fails on this row too" in by_line[3, "Names"].message
    assert "got '3'" in by_line[5, "Proper Nouns"].message
    assert "exactly one of NAME1 / NAME2" in by_line[7, "Answer_negative"].message
    assert not Dataset.objects.exists()


def test_wrong_encoding_names_the_line() -> None:
    text = csv_bytes(BHARAT_HEADER, [bharat_row(), bharat_row(Q_id="8", Notes="café")])
    latin1 = text.decode("utf-8").encode("latin-1")
    problems = rejected("bharatbbq", [ImportFile("Age.csv", latin1)])
    [problem] = problems
    assert (problem.file, problem.line, problem.field) == ("Age.csv", 3, "encoding")
    assert "not valid UTF-8" in problem.message and "line 3" in problem.message


@pytest.mark.parametrize("data", [b"", b"  \n", BHARAT_HEADER[0].encode() + b"\n"])
def test_empty_file(data: bytes) -> None:
    [problem] = rejected("bharatbbq", [ImportFile("Empty.csv", data)])
    assert (problem.file, problem.field) == ("Empty.csv", "file")
    assert "empty" in problem.message or "no data rows" in problem.message


def test_unknown_format() -> None:
    [problem] = rejected("crows", [bharat_file([bharat_row()])])
    assert problem.field == "format" and "unknown format 'crows'" in problem.message


def test_unknown_indicasa_label() -> None:
    # Out-of-range scores are findings (test_import_findings.py); a label that is neither
    # stereotype nor anti_stereotype cannot be read.
    data = (
        b"context_id,sentence,type,Annotator 1 (1 to 5),Annotator 2 (1 to 5)\n"
        b"0,She could not lead.,stereotype,4,5\n"
        b"0,She led well.,sideways,4,3\n"
    )
    problems = rejected("indicasa", [ImportFile("IndiCASA_dataset - gender.csv", data)])
    assert where(problems) == {("IndiCASA_dataset - gender.csv", 3, "type")}


def test_out_of_range_tuple_votes() -> None:
    data = (
        b"identity_term,attribute,category,polarity,votes\n"
        b'Marwari,thrifty,caste,positive,"[1, 2, 0]"\n'
        b"Punjabi,loud,region,bad,1\n"
    )
    problems = rejected("indibias", [ImportFile("tuples.csv", data)])
    assert where(problems) == {("tuples.csv", 2, "votes"), ("tuples.csv", 3, "polarity")}


def test_indibias_problems() -> None:
    data = (
        ",index,modified_eng_sent_more,modified_eng_sent_less,sent_more_hindi,sent_less_hindi,"
        "bias_type,stereo_antistereo\n"
        "0,5,A,B,क,ख,Caste,stereo\n"
        "1,5,C,D,ग,घ,Caste,stereo\n"
        "2,6,E,F,च,,Caste,sideways\n"
    ).encode()
    problems = rejected("indibias", [ImportFile("IndiBias.csv", data)])
    assert where(problems) == {
        ("IndiBias.csv", 3, "index"),
        ("IndiBias.csv", 4, "sent_less_hindi"),
        ("IndiBias.csv", 4, "stereo_antistereo"),
    }


def test_indicasa_without_a_category() -> None:
    data = data_file("indicasa/IndiCASA_dataset - gender.csv").data
    [problem] = rejected("indicasa", [ImportFile("contexts.csv", data)])
    assert (problem.file, problem.field) == ("contexts.csv", "category")


def test_bad_proper_noun_flag() -> None:
    [problem] = rejected("bharatbbq", [bharat_file([bharat_row(Proper__Nouns="perhaps")])])
    assert (problem.file, problem.line, problem.field) == ("Age.csv", 2, "Proper Nouns")
