"""The demo catalog: complete, valid, exactly instantiable, and idempotent to load."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command

from apps.catalog import instantiation
from apps.catalog.demo import demo_load, demo_template_ids
from apps.catalog.models import (
    ContextSentence,
    ContextSet,
    Dataset,
    EvidenceReference,
    Instance,
    ReviewStatus,
    SentencePair,
    StereotypeConcept,
    StereotypeTuple,
    Template,
    TemplateVersion,
    UnknownExpression,
    Vocabulary,
    VocabularyEntry,
)
from apps.catalog.selectors import template_version_spec
from apps.catalog.services import dataset_instantiate, instantiation_plan

pytestmark = pytest.mark.django_db

DEVANAGARI = re.compile(r"[\u0900-\u097F]")
BASE_CATEGORIES = [
    entry["name"]
    for entry in json.loads(
        (settings.BASE_DIR / "fixtures" / "base" / "categories.json").read_text(encoding="utf-8")
    )["categories"]
]


@pytest.fixture
def demo() -> Dataset:
    demo_load()
    return Dataset.objects.get(name="demo")


def _current_versions(dataset: Dataset) -> list[TemplateVersion]:
    return [t.current_version for t in dataset.templates.all()]


def test_base_fixture_lists_thirteen_categories():
    assert len(BASE_CATEGORIES) == 13


@pytest.mark.parametrize("category", BASE_CATEGORIES)
def test_every_category_has_at_least_two_templates(demo, category):
    assert demo.templates.filter(category__name=category).count() >= 2


@pytest.mark.parametrize("category", ["Caste", "Religion"])
def test_caste_and_religion_have_proper_and_common_noun_versions(demo, category):
    versions = [v for v in _current_versions(demo) if v.template.category.name == category]
    assert {v.proper_noun for v in versions} == {True, False}
    # The proper-noun versions carry a group label for each name, taken from a vocabulary.
    for version in versions:
        if version.proper_noun:
            for axis in ("NAME1", "NAME2"):
                groups = version.placeholder_groups[axis]
                assert len(groups) == len(version.placeholders[axis])


def test_caste_surnames_and_religion_first_names_come_from_vocabularies(demo):
    surnames = set(
        VocabularyEntry.objects.filter(vocabulary__name="Surnames by caste group").values_list(
            "value", flat=True
        )
    )
    caste_pn = demo.templates.get(external_id="caste-01b").current_version
    assert set(caste_pn.placeholders["NAME1"]) <= surnames
    assert set(caste_pn.placeholder_groups["NAME1"]) == {"Baniya"}
    religion_pn = demo.templates.get(external_id="religion-01b").current_version
    assert set(religion_pn.placeholder_groups["NAME1"]) == {"Sikh M"}


def test_every_template_validates_and_keeps_the_pairing_rule(demo):
    for version in _current_versions(demo):
        spec = template_version_spec(version=version)
        assert instantiation.validate_template(spec) == [], version.template.external_id
        # The NAME in answer_negative is the target iff the pairing is stereotypical.
        negative_name = instantiation.answer_name(version.answer_negative)
        assert (negative_name == version.target_placeholder) == (
            version.pairing == "stereotypical"
        ), version.template.external_id


def test_instantiation_matches_the_plan_exactly(demo):
    plan = instantiation_plan(dataset=demo)
    assert 0 < plan.total <= 3000  # "a few thousand at most"
    result = dataset_instantiate(dataset=demo)
    assert result["created"] == plan.total
    live = Instance.objects.filter(dataset=demo, retired_at__isnull=True)
    assert live.count() == plan.total
    for template_plan in plan.templates:
        assert (
            live.filter(template_version__template_id=template_plan.template_id).count()
            == template_plan.count
        ), template_plan.external_id
    for category, count in plan.by_category.items():
        assert live.filter(category__name=category).count() == count
    # The rejected (Sample Removed) template is kept for the record but never instantiated.
    assert plan.skipped == ["nationality-02"]
    assert not live.filter(template_version__template__external_id="nationality-02").exists()
    # A second run writes nothing.
    assert dataset_instantiate(dataset=demo)["created"] == 0


def test_hindi_templates_instantiate_with_hindi_unknowns(demo):
    dataset_instantiate(dataset=demo)
    hindi = Instance.objects.filter(dataset=demo, language="hi")
    assert hindi.exists()
    unknowns = set(UnknownExpression.objects.filter(language="hi").values_list("text", flat=True))
    for instance in hindi[:20]:
        assert DEVANAGARI.search(instance.context)
        assert set(instance.answers) & unknowns


def test_transformation_types_statuses_and_history(demo):
    versions = _current_versions(demo)
    assert {v.transformation_type for v in versions} == {"SR", "TM", "CT", "ST", "NC"}
    assert all(v.transformation_reason for v in versions)
    assert {v.status for v in versions} >= {ReviewStatus.APPROVED, ReviewStatus.REJECTED}
    edited = demo.templates.get(external_id="age-01a")
    assert list(edited.versions.order_by("number").values_list("number", flat=True)) == [1, 2]
    assert edited.current_version.status == ReviewStatus.APPROVED


def test_concepts_cover_both_sides_of_the_inclusion_rule(demo):
    usable = StereotypeConcept.objects.usable()
    assert usable.exists()
    assert StereotypeConcept.objects.exclude(pk__in=usable).exists()
    for concept in StereotypeConcept.objects.all():
        assert concept.meets_inclusion_rule == usable.filter(pk=concept.pk).exists()


def test_other_benchmark_kinds_are_loaded(demo):
    pairs = SentencePair.objects.filter(dataset=demo)
    assert pairs.filter(language="en").count() == pairs.filter(language="hi").count() >= 2
    for pair in pairs.filter(language="hi"):
        assert DEVANAGARI.search(pair.sent_more) and DEVANAGARI.search(pair.sent_less)
        assert pair.parallel is not None and pair.parallel.language == "en"
        assert pair.parallel.parallel_id == pair.pk
    assert StereotypeTuple.objects.filter(dataset=demo).exists()
    context_set = ContextSet.objects.filter(dataset=demo).first()
    kinds = set(context_set.sentences.values_list("kind", flat=True))
    assert kinds == {ContextSentence.Kind.STEREOTYPE, ContextSentence.Kind.ANTI_STEREOTYPE}


def _counts() -> dict[str, int]:
    models = (
        Dataset, Template, TemplateVersion, StereotypeConcept, EvidenceReference, Vocabulary,
        VocabularyEntry, UnknownExpression, SentencePair, StereotypeTuple, ContextSet,
        ContextSentence,
    )  # fmt: skip
    return {model.__name__: model.objects.count() for model in models}


def test_loading_twice_duplicates_nothing(demo):
    before = _counts()
    report = demo_load()
    assert _counts() == before
    assert not report.created_anything
    assert report.templates_existing == len(demo_template_ids())


def test_command_prints_what_it_loaded():
    out = StringIO()
    call_command("load_demo", stdout=out)
    text = out.getvalue()
    assert f"created   {len(demo_template_ids())} templates" in text
    assert "Instantiation plan:" in text
    again = StringIO()
    call_command("load_demo", stdout=again)
    assert "nothing new" in again.getvalue()
