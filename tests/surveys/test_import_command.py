"""`manage.py import_survey`: the guess, --map overrides, --dry-run, idempotent re-runs, and a
non-zero exit with the problems when the file is rejected."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.surveys.models import Answer, Respondent

DATA = Path(__file__).parent.parent / "data" / "surveys"


def call(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("import_survey", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_imports_with_the_guessed_mapping_then_adds_nothing(survey):
    path = str(DATA / "google_forms_export.csv")
    out, _ = call("--survey", survey.slug, "--format", "google-forms", path)
    assert "  text <- What is the stereotype? (1)" in out
    assert "  text.2 <- What is the stereotype? (2)" in out
    assert "4 answers created (4 new, 0 already present)" in out
    assert "3 respondents created" in out
    assert "google_forms_export.csv:5: row: [empty_row] an empty row, skipped" in out
    assert Answer.objects.count() == 4
    out, _ = call("--survey", survey.slug, "--format", "google-forms", path)
    assert "0 answers created (0 new, 4 already present)" in out
    assert Answer.objects.count() == 4


def test_map_overrides_the_guess(survey):
    out, _ = call(
        "--survey",
        survey.slug,
        "--format",
        "typeform",
        "--map",
        "text=Describe the experience",
        "--map",
        "experience=What is the stereotype?",
        "--map",
        "language=",
        "--map",
        "default_language=es",
        str(DATA / "typeform_export.csv"),
    )
    assert "  text <- Describe the experience (given)" in out
    assert "  language: -" in out
    # Only the first row has an experience, now read as the stereotype.
    answer = Answer.objects.get()
    assert answer.text == "Me lo dijeron en el colegio.\nDos veces."
    assert answer.experience == "Los gitanos roban" and answer.language == "es"


def test_dry_run_and_json(survey):
    out, _ = call(
        "--survey",
        survey.slug,
        "--format",
        "typeform",
        "--dry-run",
        "--json",
        str(DATA / "typeform_export.csv"),
    )
    result = json.loads(out)
    assert result["answers_created"] == 2 and result["dry_run"] is True
    assert result["findings_by_kind"] == {"partial": 1}
    assert Answer.objects.count() == 0 and Respondent.objects.count() == 0


def test_rejection_exits_non_zero_with_the_problems(survey, tmp_path):
    path = tmp_path / "respuestas.csv"
    path.write_bytes(b"Timestamp,What is the stereotype?\n2024-03-05 10:00:00,uno\nayer,dos\n")
    err = StringIO()
    with pytest.raises(CommandError, match="import rejected: 1 problem"):
        call_command(
            "import_survey",
            "--survey",
            survey.slug,
            "--format",
            "google-forms",
            str(path),
            stdout=StringIO(),
            stderr=err,
        )
    assert "respuestas.csv:3: submitted_at (Timestamp): unreadable timestamp 'ayer'" in (
        err.getvalue()
    )
    assert Answer.objects.count() == 0


def test_bad_arguments(survey, tmp_path):
    path = str(DATA / "typeform_export.csv")
    with pytest.raises(CommandError, match="no survey with the link name 'nope'"):
        call("--survey", "nope", "--format", "typeform", path)
    with pytest.raises(CommandError, match="write FIELD=COLUMN"):
        call("--survey", survey.slug, "--format", "typeform", "--map", "text", path)
    with pytest.raises(CommandError, match="cannot read"):
        call("--survey", survey.slug, "--format", "typeform", str(tmp_path / "missing.csv"))
    with pytest.raises(CommandError, match="invalid choice"):
        call("--survey", survey.slug, "--format", "surveymonkey", path)
    err = StringIO()
    with pytest.raises(CommandError):
        call_command(
            "import_survey",
            "--survey",
            survey.slug,
            "--format",
            "typeform",
            "--map",
            "text=No such column",
            path,
            stdout=StringIO(),
            stderr=err,
        )
    assert "typeform_export.csv:1: text: no column 'No such column' in the file" in err.getvalue()
