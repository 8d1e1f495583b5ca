"""python manage.py survey_funnel --survey SLUG [--json]: the exact JSON, the table, and a
clear error (exit status 1) for an unknown survey."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.surveys.management.commands.survey_funnel import Command

from .test_reports import EXPECTED, esbbq_case  # noqa: F401 (a fixture used by name)


def run(*args: str) -> str:
    out = StringIO()
    call_command("survey_funnel", *args, stdout=out)
    return out.getvalue()


def test_json_is_exactly_the_funnel(survey, esbbq_case):  # noqa: F811
    printed = run("--survey", survey.slug, "--json")
    assert json.loads(printed) == EXPECTED
    assert list(json.loads(printed)) == ["answers", "valid", "unique", "kept", "by_category"]
    assert printed.strip() == (
        '{"answers": 13, "valid": 15, "unique": 5, "kept": 2, "by_category": {'
        '"Region": {"answers": 6, "valid": 7, "unique": 2, "kept": 0}, '
        '"Religion": {"answers": 7, "valid": 8, "unique": 3, "kept": 2}, '
        '"(uncategorised)": {"answers": 1, "valid": 0, "unique": 0, "kept": 0}}}'
    )


def test_json_of_a_survey_without_answers(survey):
    assert json.loads(run("--survey", survey.slug, "--json")) == {
        "answers": 0,
        "valid": 0,
        "unique": 0,
        "kept": 0,
        "by_category": {},
    }


def test_table(survey, esbbq_case):  # noqa: F811
    lines = run("--survey", survey.slug).splitlines()
    assert lines[0] == f"Funnel of survey {survey.slug}"
    assert lines[1].split() == ["Category", "answers", "valid", "unique", "kept", "kept", "%"]
    assert lines[2].split() == ["overall", "13", "15", "5", "2", "40%"]
    assert lines[4].split() == ["Region", "6", "7", "2", "0", "0%"]
    assert lines[5].split() == ["Religion", "7", "8", "3", "2", "67%"]
    assert lines[6].split() == ["(uncategorised)", "1", "0", "0", "0", "-"]


def test_unknown_survey_is_a_clear_error(survey):
    with pytest.raises(CommandError, match="no survey with the link name 'nope'; known: "):
        run("--survey", "nope", "--json")


def test_unknown_survey_exits_non_zero(survey, capsys):
    with pytest.raises(SystemExit) as exit_:
        Command().run_from_argv(["manage.py", "survey_funnel", "--survey", "nope"])
    assert exit_.value.code == 1
    assert "no survey with the link name 'nope'; known: estereotipos" in capsys.readouterr().err
