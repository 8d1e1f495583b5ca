"""The validation step of an instance's provenance (issue 22): the validation judgements on its
template version (criterion answers, annotator pseudonymised, date), the adjudication, and for
a translated instance the adequacy/fluency judgements on its strings; None when nothing was
judged; a few indexed queries."""

from __future__ import annotations

import json

import pytest
from django.template.loader import render_to_string

from apps.accounts.pseudonyms import person_pseudonym
from apps.annotation.models import Assignment, CampaignItem
from apps.annotation.provenance import STEP, collect
from apps.catalog.services import dataset_instantiate
from apps.releases.registry import provenance_steps
from tests.annotation.release_sections import NOTE, SCORES, VALIDATION, annotate
from tests.factories import TemplateVersionFactory
from tests.translation.conftest import inline_queue, real_engines, tiny_model_dirs  # noqa: F401
from tests.translation.release_sections import live, translated_dataset

pytestmark = pytest.mark.django_db


@pytest.fixture
def annotated(inline_queue, real_engines, annotator, second_annotator, researcher):  # noqa: F811
    translated = translated_dataset(inline_queue)
    return translated, annotate(translated, [annotator, second_annotator], researcher)


def _judged(campaign, item):
    """(pseudonym, slot) of the item's annotators, in slot order."""
    return [
        (person_pseudonym(user_id=a.annotator_id), a.slot + 1)
        for a in Assignment.objects.filter(campaign=campaign, item=item).order_by("slot")
    ]


def test_a_translated_instance_shows_validation_adjudication_and_scoring(
    annotated, researcher, annotator, second_annotator, django_assert_max_num_queries
):
    translated, campaigns = annotated
    version = translated.versions[0]
    scored = CampaignItem.objects.filter(
        campaign=campaigns.scoring,
        segment="qn",
        translated_string__source_text="Who was ready in town 0?",
    ).get()
    instance = (
        live(translated.dataset, "hi")
        .filter(template_version=version, source_instance__question="Who was ready in town 0?")
        .first()
    )
    # Validation, adjudication, the instance's strings (source, sibling, cache), scoring.
    with django_assert_max_num_queries(6):
        data = collect(instance)
    assert json.loads(json.dumps(data)) == data
    assert data["template_version"] == version.pk

    [entry] = data["validation"]
    item = campaigns.adjudicated
    assert entry["item"] == item.pk and entry["status"] == "approved"
    assert entry["campaign"]["kind"] == "template_validation"
    assert [f["field"] for f in entry["fields"]] == ["a", "b", "c"]
    assert [(j["annotator"], j["slot"]) for j in entry["judgements"]] == _judged(
        campaigns.validation, item
    )
    assert [{a["field"]: a["value"] for a in j["answers"]} for j in entry["judgements"]] == (
        VALIDATION[0]
    )
    assert all(j["at"] for j in entry["judgements"])
    [decision] = data["adjudication"]
    assert decision["verdict"] == "approve" and decision["note"] == NOTE
    assert decision["by"] == person_pseudonym(user_id=researcher.pk, role="adjudicator")

    [scoring] = data["translation_scoring"]
    assert scoring["item"] == scored.pk and scoring["string"]["role"] == "question"
    assert scoring["string"]["translation"] == scored.translated_string.translation
    assert [(j["annotator"], j["slot"]) for j in scoring["judgements"]] == _judged(
        campaigns.scoring, scored
    )
    assert [[a["value"] for a in j["answers"]] for j in scoring["judgements"]] == [
        list(SCORES[scored.position][slot]) for slot in (0, 1)
    ]
    text = json.dumps(data, ensure_ascii=False)
    for person in (researcher, annotator, second_annotator):
        assert f'"{person.username}"' not in text

    # After the translation step, on the same object, the strings are not read again.
    from apps.translation.provenance import collect as translation_collect

    translation_collect(instance)
    with django_assert_max_num_queries(3):
        assert collect(instance) == data

    html = render_to_string(STEP.template, {"data": data, "instance": instance})
    assert person_pseudonym(user_id=annotator.pk) in html and "approve" in html
    assert f'<span lang="hi">{scored.translated_string.translation}</span>' in html
    assert NOTE in html


def test_an_original_instance_shows_its_template_validation_only(annotated):
    translated, campaigns = annotated
    instance = (
        live(translated.dataset, "en").filter(template_version=translated.versions[1]).first()
    )
    data = collect(instance)
    [entry] = data["validation"]
    assert entry["status"] == "adjudication"
    assert data["adjudication"] == [] and data["translation_scoring"] == []


def test_nothing_judged_no_step():
    version = TemplateVersionFactory()
    dataset_instantiate(dataset=version.template.dataset)
    instance = version.instances.first()
    assert collect(instance) is None


def test_the_step_is_registered_after_translation():
    assert STEP in provenance_steps() and STEP.order == 50
