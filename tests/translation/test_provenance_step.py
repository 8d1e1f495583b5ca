"""The translation step of an instance's provenance (issue 22): for a translated and corrected
instance, the English source, the models and versions, each string's translation,
back-translation and cosine, the threshold and verdict, and the correction (pseudonymised,
before and after); None for an original instance; a few indexed queries."""

from __future__ import annotations

import json

import pytest
from django.template.loader import render_to_string

from apps.accounts.pseudonyms import person_pseudonym
from apps.catalog.models import Instance
from apps.releases.registry import provenance_steps
from apps.translation import engines
from apps.translation.models import CorrectionRevision
from apps.translation.provenance import STEP, collect
from tests.translation.release_sections import (
    HUMAN_QUESTION,
    QUESTION,
    THRESHOLDS,
    live,
    similarity,
    translated_dataset,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def translated(inline_queue, real_engines):
    return translated_dataset(inline_queue)


def test_a_translated_and_corrected_instance_gives_the_whole_chain(
    translated, django_assert_max_num_queries
):
    instance = live(translated.dataset, "hi").get(
        question=HUMAN_QUESTION,
        context_condition="disambig",
        template_version=translated.versions[0],
        combination=0,
        name_order="12",
    )
    source = Instance.objects.get(pk=instance.source_instance_id)
    # Source row, its ambiguous sibling, the strings, the correction items, their revisions.
    with django_assert_max_num_queries(5):
        data = collect(instance)
    assert json.loads(json.dumps(data)) == data

    assert data["source"] == {"id": source.pk, "language": "en"}
    versions = engines.model_versions()
    assert [(m["role"], m["version"]) for m in data["models"]] == [
        ("forward", versions.forward),
        ("backward", versions.backward),
        ("embedder", versions.embedder),
    ]
    assert data["threshold"] == THRESHOLDS["hi"]
    assert data["status"] == "corrected" and data["revision"] == 2
    replaced = Instance.objects.get(pk=data["replaces"])
    assert replaced.retired_at is not None and replaced.question != HUMAN_QUESTION

    # Every string of the English source, split as the job split it, found in the cache.
    ambiguous = Instance.objects.get(
        template_version=source.template_version,
        language="en",
        combination=source.combination,
        name_order=source.name_order,
        context_condition="ambig",
        question_polarity=source.question_polarity,
    ).context
    expected = [
        ("context (ambiguous part)", ambiguous),
        ("context (disambiguation)", source.context[len(ambiguous) + 1 :]),
        ("question", source.question),
        ("ans0", source.ans0),
        ("ans1", source.ans1),
        ("ans2", source.ans2),
    ]
    assert [(s["role"], s["source_text"]) for s in data["strings"]] == expected
    for string in data["strings"]:
        cached = translated.strings[("hi", string["source_text"])]
        assert string["string_id"] == cached.pk
        assert string["translation"] == cached.translation
        assert string["back_translation"] == cached.back_translation
        assert string["cosine"] == similarity("hi", string["source_text"])
        assert string["passed"] is (string["cosine"] >= THRESHOLDS["hi"])
    question = next(s for s in data["strings"] if s["role"] == "question")
    assert question["source_text"] == QUESTION and question["passed"] is False

    revision = CorrectionRevision.objects.get(item=translated.item)
    assert data["corrections"] == [
        {
            "item": translated.item.pk,
            "kind": "low_similarity",
            "role": "question",
            "by": person_pseudonym(user_id=translated.corrector.pk),
            "at": revision.created_at.isoformat(),
            "before": question["translation"],
            "after": HUMAN_QUESTION,
            "note": "",
        }
    ]
    assert translated.corrector.username not in json.dumps(data, ensure_ascii=False)

    html = render_to_string(STEP.template, {"data": data, "instance": instance})
    assert f'<td lang="hi">{HUMAN_QUESTION}</td>' in html
    assert f'<td lang="hi">{question["translation"]}</td>' in html
    assert person_pseudonym(user_id=translated.corrector.pk) in html
    assert "0.610" in html and f"/instances/{source.pk}/provenance/" in html


def test_a_second_correction_is_listed_with_the_text_it_replaced(translated):
    from apps.translation.services import correction_item_resolve

    correction_item_resolve(item=translated.item, text=HUMAN_QUESTION + "!", author=None)
    instance = live(translated.dataset, "hi").filter(question=HUMAN_QUESTION + "!").first()
    data = collect(instance)
    assert data["revision"] == 3
    assert [(c["before"], c["after"], c["by"]) for c in data["corrections"]] == [
        (
            translated.strings[("hi", QUESTION)].translation,
            HUMAN_QUESTION,
            person_pseudonym(user_id=translated.corrector.pk),
        ),
        (HUMAN_QUESTION, HUMAN_QUESTION + "!", "unknown"),
    ]


def test_a_tamil_instance_shows_its_flagged_string_and_no_correction(translated):
    instance = live(translated.dataset, "ta").filter(review__status="flagged").first()
    data = collect(instance)
    assert data["status"] == "flagged" and data["threshold"] == THRESHOLDS["ta"]
    assert [s["source_text"] for s in data["strings"] if s["passed"] is False] == ["The grandson"]
    assert data["corrections"] == []
    html = render_to_string(STEP.template, {"data": data, "instance": instance})
    assert 'lang="ta"' in html and "No human correction." in html


def test_an_original_instance_has_no_translation_step(translated, django_assert_num_queries):
    original = live(translated.dataset, "en").first()
    with django_assert_num_queries(0):
        assert collect(original) is None


def test_the_step_is_registered_between_vocabulary_and_validation():
    assert STEP in provenance_steps() and STEP.order == 40
