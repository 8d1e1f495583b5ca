"""Word-level diff between a template version and the previous one (issue 18, 2.7)."""

from __future__ import annotations

import pytest

from apps.catalog.services import template_edit
from apps.catalog.versions import template_version_history, words_diff
from tests.factories import TemplateVersionFactory


def test_words_diff_by_hand():
    assert words_diff(
        "A grandfather was waiting at the bus stop.", "A grandfather was waiting at the station."
    ) == [
        ("same", "A grandfather was waiting at the "),
        ("del", "bus stop."),
        ("ins", "station."),
    ]
    assert words_diff("कौन भूल गया?", "कौन टिकट भूल गया?") == [
        ("same", "कौन "),
        ("ins", "टिकट "),
        ("same", "भूल गया?"),
    ]
    assert words_diff("same", "same") == [("same", "same")]


@pytest.mark.django_db
def test_history_lists_changes_from_the_previous_version():
    v1 = TemplateVersionFactory()
    v2 = template_edit(
        template=v1.template, changes={"question_negative": "Who forgot the train ticket?"}
    )
    history = template_version_history(template=v1.template)
    assert [row["version"].number for row in history] == [2, 1]
    newest, first = history
    assert first["changes"] == []  # v1 has nothing before it
    assert [c["field"] for c in newest["changes"]] == ["Negative question"]
    assert ("ins", "train ") in newest["changes"][0]["parts"]
    assert newest["version"].pk == v2.pk
