"""The changelog between releases (issue 22): instances added, removed and changed by category
and language, each with its reason (a new template version, a vocabulary change, a review
decision), the other kinds compared file to file, the first release, and the card's section."""

from __future__ import annotations

import json

import pytest

from apps.catalog.models import ContextSet, Instance, SentencePair, StereotypeTuple, Template
from apps.catalog.services import dataset_instantiate, template_edit
from apps.catalog.versions import template_version_approve, template_version_reject
from apps.releases.changelog import changelog_markdown
from apps.releases.registry import (
    ChangeReason,
    change_reason_register,
    change_reason_unregister,
    change_reasons,
)
from apps.releases.selectors import release_document_json
from apps.releases.services import release_create
from tests.factories import CategoryFactory, TemplateVersionFactory

pytestmark = pytest.mark.django_db


def _changelog(release) -> dict:
    changelog = release_document_json(release=release, kind="changelog")
    assert changelog is not None
    return changelog


def _reasons(changelog: dict) -> dict[tuple[str, str], dict]:
    return {(e["change"], e["reason"]): e for e in changelog["reasons"]}


def _cells(changelog: dict) -> dict[tuple[str, str], dict]:
    return {(c["category"], c["language"]): c for c in changelog["by_category_language"]}


def _template(dataset, language: str) -> Template:
    return Template.objects.get(dataset=dataset, versions__language=language)


def _edit(template: Template, **changes):
    version = template_edit(template=template, changes=changes)
    dataset_instantiate(dataset=template.dataset)
    template_version_approve(version_id=version.pk)
    return version


def test_first_release_has_nothing_to_compare(dataset):
    first = release_create(dataset=dataset)
    changelog = _changelog(first)
    assert changelog["against"] is None
    assert changelog["release"] == {"id": first.pk, "number": 1}
    assert set(changelog["totals"].values()) == {0}
    assert list(changelog["totals"])[:4] == ["added", "removed", "changed", "unchanged"]
    assert changelog["reasons"] == [] and changelog["other_kinds"] == {}
    assert changelog_markdown(changelog) == "This is the dataset's first release.\n"
    assert first.files.get(kind="changelog").rows == 0


def test_a_new_template_version_changes_its_instances(dataset):
    first = release_create(dataset=dataset)
    hindi = _template(dataset, "hi")
    old_ids = set(
        Instance.objects.filter(template_version__template=hindi).values_list("id", flat=True)
    )
    version = _edit(hindi, ambiguous_context="{{NAME1}} और {{NAME2}} रेलवे स्टेशन पर इंतज़ार कर रहे थे।")
    second = release_create(dataset=dataset)
    changelog = _changelog(second)
    assert changelog["against"] == {"id": first.pk, "number": 1}
    # Every Hindi instance is a new row with new text; the five other templates are the same
    # rows in both releases.
    assert changelog["totals"]["changed"] == len(old_ids) == 16
    assert changelog["totals"]["added"] == changelog["totals"]["removed"] == 0
    assert changelog["totals"]["unchanged"] == first.counts["total"] - 16
    assert changelog["by_category_language"] == [
        {"category": "Age", "language": "hi", "added": 0, "removed": 0, "changed": 16}
    ]
    (entry,) = changelog["reasons"]
    assert (entry["change"], entry["reason"], entry["n"]) == ("changed", "template_version", 16)
    assert entry["label"] == "Template version changed"
    example = entry["examples"][0]
    assert example["old"] in old_ids
    assert Instance.objects.get(pk=example["new"]).template_version_id == version.pk
    assert example["detail"] == f"{hindi.external_id} v1 → v2"
    # The same figures in the card's section, and the file's row count.
    assert "16 changed" in changelog_markdown(changelog)
    assert "| Age | hi | 0 | 0 | 16 |" in changelog_markdown(changelog)
    assert second.files.get(kind="changelog").rows == 16


def test_a_vocabulary_change_adds_and_removes_instances_and_keeps_the_rest(dataset):
    release_create(dataset=dataset)
    tamil = _template(dataset, "ta")
    placeholders = tamil.versions.get().placeholders
    dropped = placeholders["NAME1"][1]
    # One NAME1 value replaced by another: its instances leave, the new value's come in, and
    # the instances of the value kept are written again with the same text (unchanged).
    _edit(tamil, placeholders={**placeholders, "NAME1": [placeholders["NAME1"][0], "பாட்டி"]})
    second = release_create(dataset=dataset)
    changelog = _changelog(second)
    totals = changelog["totals"]
    assert totals["added"] == totals["removed"] == 8 and totals["changed"] == 0
    assert totals["renewed"] == 8 and totals["unexplained"] == 0
    reasons = _reasons(changelog)
    assert set(reasons) == {("added", "vocabulary"), ("removed", "vocabulary")}
    added = reasons[("added", "vocabulary")]
    assert added["n"] == 8 and "NAME1=பாட்டி" in added["examples"][0]["detail"]
    removed = reasons[("removed", "vocabulary")]
    assert removed["n"] == 8 and f"NAME1={dropped}" in removed["examples"][0]["detail"]
    assert _cells(changelog)[("Caste", "ta")] == {
        "category": "Caste",
        "language": "ta",
        "added": 8,
        "removed": 8,
        "changed": 0,
    }


def test_a_rejected_version_leaves_and_an_approved_one_enters_by_review_decision(dataset):
    # A template in review at release 1: a reviewed release leaves its instances out.
    waiting = TemplateVersionFactory(
        template__dataset=dataset, template__category=CategoryFactory(name="Religion")
    )
    dataset_instantiate(dataset=dataset)
    waiting.refresh_from_db()
    assert waiting.status == "draft"
    first = release_create(dataset=dataset)
    bengali = _template(dataset, "bn").versions.get()
    template_version_reject(version_id=bengali.pk)
    template_version_approve(version_id=waiting.pk)
    second = release_create(dataset=dataset)
    changelog = _changelog(second)
    reasons = _reasons(changelog)
    assert set(reasons) == {("added", "review_decision"), ("removed", "review_decision")}
    assert reasons[("added", "review_decision")]["n"] == 16
    assert reasons[("removed", "review_decision")]["n"] == 16
    detail = reasons[("removed", "review_decision")]["examples"][0]["detail"]
    assert detail.startswith("left: template version") and detail.endswith("rejected")
    assert reasons[("added", "review_decision")]["examples"][0]["detail"].endswith("approved")
    cells = _cells(changelog)
    assert cells[("Religion", "bn")]["removed"] == 16
    assert cells[("Religion", "en")]["added"] == 16
    assert changelog["totals"]["unchanged"] == first.counts["total"] - 16


def test_a_template_new_to_the_dataset_is_named(dataset):
    release_create(dataset=dataset)
    version = TemplateVersionFactory(
        template__dataset=dataset, template__category=CategoryFactory(name="Age")
    )
    dataset_instantiate(dataset=dataset)
    template_version_approve(version_id=version.pk)
    changelog = _changelog(release_create(dataset=dataset))
    (entry,) = changelog["reasons"]
    assert (entry["change"], entry["reason"], entry["n"]) == ("added", "new_template", 16)


def test_other_kinds_compare_the_frozen_files(dataset):
    release_create(dataset=dataset, content="as_published")
    pair = SentencePair.objects.get(dataset=dataset, language="hi")
    SentencePair.objects.filter(pk=pair.pk).update(sent_more="बूढ़े लोग बहुत धीमे होते हैं।")
    StereotypeTuple.objects.filter(dataset=dataset, language="en").delete()
    ContextSet.objects.create(
        dataset=dataset,
        external_id="c2",
        category=CategoryFactory(name="Caste"),
        language="ta",
        context="அந்த நபர் ___ சாதியைச் சேர்ந்தவர்.",
    )
    second = release_create(dataset=dataset, content="as_published")
    changelog = _changelog(second)
    other = changelog["other_kinds"]
    assert other["sentence_pairs"] == {
        "label": "Sentence pairs",
        "added": 0,
        "removed": 0,
        "changed": 1,
        "unchanged": 1,
    }
    assert (other["tuples"]["removed"], other["tuples"]["unchanged"]) == (1, 1)
    assert (other["context_sets"]["added"], other["context_sets"]["unchanged"]) == (1, 2)
    assert changelog["totals"] == {
        "added": 0,
        "removed": 0,
        "changed": 0,
        "unchanged": second.counts["total"],
        "renewed": 0,
        "unexplained": 0,
    }
    assert "- Sentence pairs: 0 added, 0 removed, 1 changed." in changelog_markdown(changelog)


def test_a_change_no_reason_explains_is_counted_as_other_and_said(dataset):
    release_create(dataset=dataset)
    _edit(_template(dataset, "te"), question_negative="ఎవరు?")
    registered = change_reasons()
    for reason in registered:
        change_reason_unregister(reason.name)
    try:
        changelog = _changelog(release_create(dataset=dataset))
    finally:
        for reason in registered:
            change_reason_register(reason)
    (entry,) = changelog["reasons"]
    assert entry["reason"] == "other" and entry["n"] == changelog["totals"]["changed"] == 8
    assert changelog["totals"]["unexplained"] == 8
    assert any("no registered reason" in note for note in changelog["notes"])
    assert "> Note: 8 change(s) have no registered reason" in changelog_markdown(changelog)


def test_a_registered_reason_is_asked_in_order_with_the_rows(dataset):
    release_create(dataset=dataset)
    _edit(_template(dataset, "or"), question_non_negative="କିଏ?")
    seen = []

    def applies(change, old, new):
        seen.append((change, old, new))
        return True

    change_reason_register(ChangeReason(name="first", label="First", order=1, applies=applies))
    try:
        changelog = _changelog(release_create(dataset=dataset))
    finally:
        change_reason_unregister("first")
    assert [e["reason"] for e in changelog["reasons"]] == ["first"]
    change, old, new = seen[0]
    assert change == "changed"
    for key in (
        "id",
        "template_id",
        "template_version_id",
        "template_version_status",
        "category",
        "language",
        "context_condition",
        "question_polarity",
        "name_order",
        "pairing",
        "placeholder_values",
        "text_hash",
        "label",
        "source_instance_id",
        "review",
        "retired_at",
    ):
        assert key in old and key in new, key
    assert old["template_id"] == new["template_id"] and old["id"] != new["id"]
    assert old["retired_at"] is not None and new["retired_at"] is None
    assert old["text_hash"] != new["text_hash"] and len(new["text_hash"]) == 16


def test_markdown_escapes_table_cells_and_is_pure():
    changelog = {
        "release": {"id": 2, "number": 2},
        "against": {"id": 1, "number": 1},
        "totals": {"added": 1, "removed": 0, "changed": 0, "unchanged": 3},
        "by_category_language": [
            {"category": "Gender|Sex", "language": "bn", "added": 1, "removed": 0, "changed": 0}
        ],
        "reasons": [
            {"change": "added", "reason": "x", "label": "New template", "n": 1, "examples": []}
        ],
        "other_kinds": {},
    }
    text = changelog_markdown(changelog)
    assert "| Gender\\|Sex | bn | 1 | 0 | 0 |" in text
    assert "- Added, New template: 1" in text
    assert text == changelog_markdown(json.loads(json.dumps(changelog)))
