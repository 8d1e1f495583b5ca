"""The translation app's reasons in a release's changelog (issue 22): an accepted correction of
a flagged translation between two releases is named (who, when, which correction item), a new
translation run and a new language are told apart from it."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone

from apps.accounts.pseudonyms import person_pseudonym
from apps.catalog.models import Instance
from apps.catalog.services import dataset_instantiate
from apps.catalog.versions import template_version_approve
from apps.releases.selectors import release_document_json
from apps.releases.services import release_create
from apps.translation.models import CorrectionItem
from apps.translation.services import correction_item_resolve
from apps.translation.services.review import review_facts
from tests.factories import TemplateVersionFactory, TranslatedStringFactory

pytestmark = pytest.mark.django_db

QUESTION = "Who forgot the ticket?"
MACHINE = "டிக்கெட்டை யார் மறந்தார்?"
HUMAN = "டிக்கெட்டை மறந்தவர் யார்?"


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def _string(source: str, translation: str, similarity: float, text_hash: str, model="fwd-1"):
    return TranslatedStringFactory(
        text_hash=text_hash,
        source_text=source,
        translation=translation,
        language="ta",
        similarity=similarity,
        forward_model_version=model,
        backward_model_version="bwd-1",
        embedder_version="emb-1",
    )


def _translate(original: Instance, language: str, strings, *, question: str) -> Instance:
    """A translated row as the translation job assembles it: the original's columns, the
    translated texts, the review facts of the strings it is made of."""
    copy = Instance.objects.get(pk=original.pk)
    copy.pk = None
    copy.language = language
    copy.source_instance = original
    copy.context = f"[{language}] {original.context}"
    copy.question = question
    copy.review = review_facts(strings=strings, threshold=0.75, corrected={})
    copy.save()
    return copy


@pytest.fixture
def flagged():
    """An approved English template, its Tamil translations: those whose question is QUESTION
    carry its flagged machine translation (0.61 < 0.75), the others passed."""
    version = TemplateVersionFactory(question_negative=QUESTION)
    dataset = version.template.dataset
    dataset_instantiate(dataset=dataset)
    template_version_approve(version_id=version.pk)
    question = _string(QUESTION, MACHINE, 0.61, "q" * 64)
    other = _string("Who was prepared?", "யார் தயாராக இருந்தார்?", 0.95, "o" * 64)
    rows = []
    for original in Instance.objects.filter(template_version=version, language="en"):
        uses = original.question == QUESTION
        rows.append(
            _translate(
                original,
                "ta",
                [question, other] if uses else [other],
                question=MACHINE if uses else other.translation,
            )
        )
    item = CorrectionItem.objects.create(
        kind="low_similarity", language="ta", translated_string=question, reason="0.61 < 0.75"
    )
    return dataset, item, rows


def _changelog(release) -> dict:
    return release_document_json(release=release, kind="changelog")


def _reasons(changelog: dict) -> dict[tuple[str, str], dict]:
    return {(e["change"], e["reason"]): e for e in changelog["reasons"]}


def test_a_released_flagged_translation_corrected_is_changed_by_that_correction(flagged, annotator):
    dataset, item, rows = flagged
    using = [row for row in rows if row.question == MACHINE]
    first = release_create(dataset=dataset, content="as_published")
    correction_item_resolve(item=item, text=HUMAN, author=annotator)
    second = release_create(dataset=dataset, content="as_published")
    changelog = _changelog(second)
    assert changelog["against"]["number"] == first.number
    assert changelog["totals"]["changed"] == len(using) == 8
    assert changelog["totals"]["added"] == changelog["totals"]["removed"] == 0
    (entry,) = changelog["reasons"]
    assert (entry["change"], entry["reason"], entry["n"]) == ("changed", "correction", 8)
    assert entry["label"] == "Correction of a flagged translation"
    example = entry["examples"][0]
    new = Instance.objects.get(pk=example["new"])
    assert new.review["replaces"] == example["old"] and new.question == HUMAN
    when = new.review["corrections"][0]["at"][:10]
    # The corrector by pseudonym, never by username: the changelog is published.
    who = person_pseudonym(user_id=annotator.pk)
    assert example["detail"].startswith(f"correction item #{item.pk} by {who} on {when}")
    assert f"by {annotator.username}" not in json.dumps(changelog, ensure_ascii=False)
    assert "corrected" in example["detail"]
    assert changelog["by_category_language"][0]["language"] == "ta"

    # A second correction on top: the changelog against release 1 follows the chain back.
    correction_item_resolve(item=item, text=HUMAN + "!", author=annotator)
    third = release_create(dataset=dataset, content="as_published")
    from apps.releases.changelog import release_compare

    across = release_compare(dataset=dataset, first=1, second=third.number)
    entry = _reasons(across)[("changed", "correction")]
    assert entry["n"] == 8 and "(2 corrections)" in entry["examples"][0]["detail"]


def test_a_flagged_translation_left_out_enters_a_reviewed_release_by_its_correction(
    flagged, annotator
):
    dataset, item, rows = flagged
    first = release_create(dataset=dataset)
    flagged_ids = {row.pk for row in rows if row.question == MACHINE}
    assert not flagged_ids & set(first.memberships.values_list("instance_id", flat=True))
    correction_item_resolve(item=item, text=HUMAN, author=annotator)
    changelog = _changelog(release_create(dataset=dataset))
    (entry,) = changelog["reasons"]
    assert (entry["change"], entry["reason"], entry["n"]) == ("added", "correction", 8)
    assert entry["examples"][0]["old"] is None
    who = person_pseudonym(user_id=annotator.pk)
    assert f"correction item #{item.pk} by {who}" in entry["examples"][0]["detail"]


def test_a_new_translation_run_is_a_re_translation(flagged):
    dataset, item, rows = flagged
    release_create(dataset=dataset, content="as_published")
    # A run of newer models replaces the passed rows (retired and written again).
    newer = _string("Who was prepared?", "தயாராக இருந்தவர் யார்?", 0.97, "n" * 64, model="fwd-2")
    passed = [row for row in rows if row.question != MACHINE]
    Instance.objects.filter(pk__in=[row.pk for row in passed]).update(retired_at=timezone.now())
    for row in passed:
        _translate(row.source_instance, "ta", [newer], question=newer.translation)
    changelog = _changelog(release_create(dataset=dataset, content="as_published"))
    (entry,) = changelog["reasons"]
    assert (entry["change"], entry["reason"], entry["n"]) == ("changed", "re_translation", 8)
    assert entry["examples"][0]["detail"] == "models fwd-1 → fwd-2"


def test_a_new_language_is_a_new_translation(flagged):
    dataset, item, rows = flagged
    release_create(dataset=dataset, content="as_published")
    bengali = _string("Who was prepared?", "কে প্রস্তুত ছিল?", 0.9, "b" * 64)
    for row in rows:
        _translate(row.source_instance, "bn", [bengali], question=bengali.translation)
    changelog = _changelog(release_create(dataset=dataset, content="as_published"))
    (entry,) = changelog["reasons"]
    assert (entry["change"], entry["reason"], entry["n"]) == ("added", "new_translation", 16)
    assert changelog["by_category_language"][0]["language"] == "bn"
    assert entry["examples"][0]["detail"].startswith("bn from instance")
