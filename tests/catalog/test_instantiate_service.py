"""Instantiation against the real database: exact counts, idempotence, retirement on edit,
the command line, and Indic text round-trips."""

from __future__ import annotations

import io
import json
import unicodedata

import pytest
from django.core.management import CommandError, call_command

from apps.catalog.models import Instance, TemplateVersion
from apps.catalog.services import (
    dataset_instantiate,
    instantiation_plan,
    template_edit,
)
from tests.factories import CategoryFactory, DatasetFactory, TemplateVersionFactory

pytestmark = pytest.mark.django_db


def _dataset_with_two_templates():
    dataset = DatasetFactory(name="bharat-mini")
    age = CategoryFactory(name="Age")
    caste = CategoryFactory(name="Caste")
    TemplateVersionFactory(template__dataset=dataset, template__category=age)  # 16
    TemplateVersionFactory(
        template__dataset=dataset,
        template__category=caste,
        ambiguous_context="{{NAME1}} and {{NAME2}} met at {{WORD1}}.",
        disambiguating_context="{{NAME1}} spoke of profit, {{NAME2}} of poetry.",
        answer_negative="{{NAME1}}",
        answer_non_negative="{{NAME2}}",
        placeholders={
            "NAME1": ["Aarav Agarwal", "Vivek Goyal", "Rohit Mittal"],
            "NAME2": ["Manoj Chauhan", "Kunal Rathore"],
            "WORD1": ["a wedding", "the market"],
        },
        proper_noun=True,
    )  # 3*2*2*4 = 48
    return dataset


def test_plan_is_exact_and_matches_what_is_written():
    dataset = _dataset_with_two_templates()
    plan = instantiation_plan(dataset=dataset)
    assert plan.total == 64
    assert plan.by_category == {"Age": 16, "Caste": 48}
    result = dataset_instantiate(dataset=dataset)
    assert result["created"] == 64
    assert Instance.objects.filter(dataset=dataset).count() == plan.total
    per_category = {
        name: Instance.objects.filter(dataset=dataset, category__name=name).count()
        for name in ("Age", "Caste")
    }
    assert per_category == plan.by_category


def test_plan_reads_one_row_per_version_not_per_instance():
    """The plan's "which versions have live instances" query returns one row per template
    version: release creation runs it, and a row per instance grew its memory with the
    dataset (400k ints for a 400k dataset)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    dataset = _dataset_with_two_templates()
    dataset_instantiate(dataset=dataset)
    with CaptureQueriesContext(connection) as queries:
        instantiation_plan(dataset=dataset)
    distinct = [q["sql"] for q in queries.captured_queries if "DISTINCT" in q["sql"]]
    assert len(distinct) == 1
    with connection.cursor() as cursor:
        cursor.execute(distinct[0])
        rows = cursor.fetchall()
    assert len(rows) == 2  # two versions, 64 instances


def test_instantiate_is_idempotent_and_deterministic():
    dataset = _dataset_with_two_templates()
    dataset_instantiate(dataset=dataset)
    fields = ("example_id", "context", "question", "ans0", "ans1", "ans2", "label")
    before = list(Instance.objects.order_by("id").values_list(*fields))
    again = dataset_instantiate(dataset=dataset)
    assert again["created"] == 0 and again["retired"] == 0
    assert list(Instance.objects.order_by("id").values_list(*fields)) == before

    # A fresh copy of the same dataset produces byte-identical rows.
    Instance.objects.all().delete()
    dataset_instantiate(dataset=dataset)
    assert list(Instance.objects.order_by("id").values_list(*fields)) == before


def test_example_ids_are_sequential_per_category():
    dataset = _dataset_with_two_templates()
    dataset_instantiate(dataset=dataset)
    ids = list(
        Instance.objects.filter(category__name="Caste")
        .order_by("example_id")
        .values_list("example_id", flat=True)
    )
    assert ids == list(range(48))


def test_edit_retires_old_instances_and_keeps_history():
    dataset = _dataset_with_two_templates()
    dataset_instantiate(dataset=dataset)
    version = TemplateVersion.objects.get(template__category__name="Age")
    new = template_edit(
        template=version.template,
        changes={"question_negative": "Who had lost the ticket?"},
    )
    assert new.number == 2
    assert TemplateVersion.objects.filter(template=version.template).count() == 2

    plan = instantiation_plan(dataset=dataset)
    assert plan.to_create == 16
    result = dataset_instantiate(dataset=dataset)
    assert result == {**result, "created": 16, "retired": 16}
    old = Instance.objects.filter(template_version=version)
    assert old.count() == 16 and not old.filter(retired_at__isnull=True).exists()
    live = Instance.objects.filter(dataset=dataset, retired_at__isnull=True)
    assert live.count() == 64
    assert live.filter(question="Who had lost the ticket?").count() == 8
    # New example ids continue after the retired ones instead of reusing them.
    assert min(live.filter(template_version=new).values_list("example_id", flat=True)) == 16


def test_unchanged_edit_adds_no_version():
    version = TemplateVersionFactory()
    same = template_edit(
        template=version.template, changes={"question_negative": version.question_negative}
    )
    assert same.pk == version.pk


def test_invalid_edit_is_refused_and_nothing_changes():
    from apps.core.errors import KasautiError

    version = TemplateVersionFactory()
    with pytest.raises(KasautiError, match="WORD9"):
        template_edit(template=version.template, changes={"question_negative": "{{WORD9}}?"})
    assert TemplateVersion.objects.filter(template=version.template).count() == 1


def test_provenance_from_instance_to_concept():
    from apps.catalog.models import StereotypeConcept

    dataset = DatasetFactory()
    version = TemplateVersionFactory(template__dataset=dataset)
    concept = StereotypeConcept.objects.create(
        category=version.template.category, statement="Old people are forgetful", mentions=4
    )
    version.concept = concept
    version.save()
    dataset_instantiate(dataset=dataset)
    instance = Instance.objects.filter(dataset=dataset).first()
    assert instance.template_version.template.external_id == version.template.external_id
    assert instance.template_version.concept == concept


INDIC = {
    "hi": ("एक {{NAME1}} और एक {{NAME2}} बस का इंतज़ार कर रहे थे।", ["दादाजी"], ["पोता"]),
    "bn": ("একজন {{NAME1}} আর একজন {{NAME2}} অপেক্ষা করছিলেন।", ["দাদু"], ["নাতি"]),
    "or": ("ଜଣେ {{NAME1}} ଏବଂ ଜଣେ {{NAME2}} ଅପେକ୍ଷା କରୁଥିଲେ।", ["ଜେଜେବାପା"], ["ନାତି"]),
    "ta": ("ஒரு {{NAME1}} மற்றும் ஒரு {{NAME2}} காத்திருந்தனர்.", ["தாத்தா"], ["பேரன்"]),
    "te": ("ఒక {{NAME1}} మరియు ఒక {{NAME2}} ఎదురు చూస్తున్నారు.", ["తాతయ్య"], ["మనవడు"]),
}


@pytest.mark.parametrize("language", sorted(INDIC))
def test_indic_scripts_round_trip_exactly(language):
    from apps.catalog.services import unknown_expression_create

    context, name1, name2 = INDIC[language]
    unknown_expression_create(language=language, text=f"{language}-unknown")
    dataset = DatasetFactory()
    # Feed decomposed (NFD) text: it must be stored as NFC.
    version = TemplateVersionFactory(template__dataset=dataset)
    template_edit(
        template=version.template,
        changes={
            "language": language,
            "ambiguous_context": unicodedata.normalize("NFD", context),
            "disambiguating_context": "{{NAME1}} ।",
            "answer_negative": "{{NAME1}}",
            "answer_non_negative": "{{NAME2}}",
            "placeholders": {"NAME1": name1, "NAME2": name2},
        },
    )
    dataset_instantiate(dataset=dataset)
    instance = Instance.objects.get(
        dataset=dataset, language=language, context_condition="ambig", question_polarity="neg"
    )
    expected = unicodedata.normalize("NFC", context).replace("{{NAME1}}", name1[0])
    expected = expected.replace("{{NAME2}}", name2[0])
    assert instance.context == expected
    assert instance.context.encode("utf-8") == expected.encode("utf-8")


def test_missing_unknown_expressions_is_a_clear_error():
    from apps.core.errors import KasautiError

    dataset = DatasetFactory()
    TemplateVersionFactory(template__dataset=dataset, language="xx")
    with pytest.raises(KasautiError, match="no unknown expressions .* 'xx'"):
        dataset_instantiate(dataset=dataset)
    assert not Instance.objects.exists()


def test_command_dry_run_json_writes_nothing():
    dataset = _dataset_with_two_templates()
    out = io.StringIO()
    call_command("instantiate", "--dataset", dataset.name, "--dry-run", "--json", stdout=out)
    assert json.loads(out.getvalue()) == {"total": 64, "by_category": {"Age": 16, "Caste": 48}}
    assert not Instance.objects.exists()

    out = io.StringIO()
    call_command("instantiate", "--dataset", dataset.name, "--json", stdout=out)
    payload = json.loads(out.getvalue())
    assert payload["total"] == 64 and payload["created"] == 64
    assert Instance.objects.count() == 64


def test_command_unknown_dataset():
    with pytest.raises(CommandError, match="no dataset named 'nope'"):
        call_command("instantiate", "--dataset", "nope")


def test_permutations_dataset_counts():
    dataset = DatasetFactory(name_permutations=True)
    TemplateVersionFactory(template__dataset=dataset)  # 4 combinations
    assert instantiation_plan(dataset=dataset).total == 48
    dataset_instantiate(dataset=dataset)
    assert Instance.objects.filter(dataset=dataset).count() == 48
