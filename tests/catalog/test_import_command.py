"""python manage.py import_benchmark."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.catalog.models import Dataset, Template

from .test_import_support import BHARAT_HEADER, DATA, bharat_row, csv_bytes

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("import_benchmark", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_imports_and_prints_a_summary() -> None:
    out, _ = run(
        "--format", "bharatbbq", "--dataset", "BharatBBQ-en", str(DATA / "bharatbbq" / "Caste.csv")
    )
    assert "dataset 'BharatBBQ-en' (created)" in out
    assert "templates: 4 created, 0 new versions, 0 unchanged" in out
    assert Template.objects.count() == 4
    out, _ = run(
        "--format", "bharatbbq", "--dataset", "BharatBBQ-en", str(DATA / "bharatbbq" / "Caste.csv")
    )
    assert "templates: 0 created, 0 new versions, 4 unchanged" in out


def test_language_flag() -> None:
    run(
        "--format",
        "bharatbbq",
        "--dataset",
        "bn",
        "--language",
        "bn",
        str(DATA / "bharatbbq" / "Age_bn.csv"),
    )
    assert Template.objects.get().current_version.language == "bn"


def test_bad_input_exits_non_zero_with_the_full_report(tmp_path) -> None:
    bad = tmp_path / "Age.csv"
    bad.write_bytes(csv_bytes(BHARAT_HEADER, [bharat_row(Pairing="?"), bharat_row()]))
    err = StringIO()
    with pytest.raises(CommandError, match="2 problem"):
        call_command(
            "import_benchmark",
            "--format",
            "bharatbbq",
            "--dataset",
            "x",
            str(bad),
            str(tmp_path / "missing.csv"),
            stderr=err,
        )
    report = err.getvalue()
    assert "missing.csv: file: cannot read" in report
    assert not Dataset.objects.exists()
    bad2 = tmp_path / "Age2.csv"
    bad2.write_bytes(csv_bytes(BHARAT_HEADER, [bharat_row(Pairing="?"), bharat_row(Q_id="9")]))
    err = StringIO()
    with pytest.raises(CommandError, match="1 problem"):
        call_command(
            "import_benchmark", "--format", "bharatbbq", "--dataset", "x", str(bad2), stderr=err
        )
    assert "Age2.csv:2: Pairing: expected biased or anti, got '?'" in err.getvalue()
    assert not Dataset.objects.exists() and not Template.objects.exists()


def test_unknown_format_is_refused() -> None:
    with pytest.raises(CommandError, match="invalid choice"):
        run("--format", "crows", "--dataset", "x", str(DATA / "bharatbbq" / "Caste.csv"))
