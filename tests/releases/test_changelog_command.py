"""`manage.py compare_releases --dataset NAME A B [--json]` (issue 22): the changelog between
any two releases, as a table or as the changelog dict, in either order; clear errors."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from apps.catalog.models import Template
from apps.catalog.services import dataset_instantiate, template_edit
from apps.catalog.versions import template_version_approve
from apps.releases.selectors import release_document_json
from apps.releases.services import release_create

pytestmark = pytest.mark.django_db


def _run(*args: str) -> str:
    out = StringIO()
    call_command("compare_releases", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def three(dataset):
    """Releases 1, 2 (the Bengali template's version 2: new text) and 3 (as published, same
    instances: nothing changed)."""
    release_create(dataset=dataset)
    bengali = Template.objects.get(dataset=dataset, versions__language="bn")
    version = template_edit(template=bengali, changes={"question_negative": "কে দেরি করেছিল?"})
    dataset_instantiate(dataset=dataset)
    template_version_approve(version_id=version.pk)
    second = release_create(dataset=dataset)
    third = release_create(dataset=dataset, content="as_published")
    return dataset, second, third


def test_json_is_the_changelog_dict_and_equals_the_stored_one(three):
    dataset, second, _ = three
    data = json.loads(_run("--dataset", dataset.name, "1", "2", "--json"))
    stored = release_document_json(release=second, kind="changelog")
    assert data["requested"] == {"from": 1, "to": 2} and data["reversed"] is False
    assert {k: v for k, v in data.items() if k not in ("requested", "reversed")} == stored
    assert data["totals"]["changed"] == 8
    assert data["by_category_language"] == [
        {"category": "Religion", "language": "bn", "added": 0, "removed": 0, "changed": 8}
    ]
    assert [(e["change"], e["reason"], e["n"]) for e in data["reasons"]] == [
        ("changed", "template_version", 8)
    ]


def test_human_output_is_a_table_with_the_reasons(three):
    dataset, _, _ = three
    text = _run("--dataset", dataset.name, "1", "2")
    assert text.startswith(f"{dataset.name}: release 1 -> release 2\n")
    assert "instances: 0 added, 0 removed, 8 changed" in text
    lines = text.splitlines()
    row = next(line for line in lines if line.startswith("Religion"))
    assert row.split() == ["Religion", "bn", "0", "0", "8"]
    reason = next(line for line in lines if line.startswith("changed"))
    assert "Template version changed" in reason and " 8 " in reason and "v1 → v2" in reason
    assert "Other kinds:" in text  # the dataset's tuples and context sets, compared


def test_either_order_reads_from_the_older_release_and_says_so(three):
    dataset, _, _ = three
    forwards = json.loads(_run("--dataset", dataset.name, "1", "3", "--json"))
    backwards = json.loads(_run("--dataset", dataset.name, "3", "1", "--json"))
    assert backwards["reversed"] is True and backwards["requested"] == {"from": 3, "to": 1}
    assert backwards["release"]["number"] == 3 and backwards["against"]["number"] == 1
    assert backwards["totals"] == forwards["totals"]
    text = _run("--dataset", dataset.name, "3", "1")
    assert "asked for 3 -> 1: release 3 is the newer one" in text
    # 2 -> 3: a release of everything against a reviewed one; the instances are the same,
    # the sentence pairs (no review step) come in.
    between = json.loads(_run("--dataset", dataset.name, "2", "3", "--json"))
    assert between["totals"]["added"] == between["totals"]["changed"] == 0
    assert between["other_kinds"]["sentence_pairs"]["added"] == 2


def test_unknown_dataset_or_release_is_a_clear_error(three):
    dataset, _, _ = three
    with pytest.raises(CommandError, match="no dataset named 'nope'"):
        _run("--dataset", "nope", "1", "2")
    with pytest.raises(CommandError, match=r"has no release 7 \(its releases: 1, 2, 3\)"):
        _run("--dataset", dataset.name, "1", "7")
    with pytest.raises(CommandError, match="compared with itself"):
        _run("--dataset", dataset.name, "2", "2")
