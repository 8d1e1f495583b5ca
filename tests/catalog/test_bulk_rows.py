"""Instance rows as the bulk writer receives them: JSON columns encoded once per distinct value
(issue 19) must still be exactly what a per-row json.dumps gave, and BharatBBQ's generator,
restructured to do per template what it did per combination, yields the same instances."""

from __future__ import annotations

import hashlib
import json

import pytest

from apps.catalog import generators
from apps.catalog.benchmarks.bharatbbq.generator import UNKNOWN_ANSWERS
from apps.catalog.bulk import json_text
from apps.catalog.instantiation import TemplateSpec
from apps.catalog.selectors import template_version_spec
from apps.catalog.services import ORIGINAL_INSTANCE_COLUMNS, _instance_rows
from tests.factories import DatasetFactory, TemplateVersionFactory

HINDI = {
    "NAME1": ["बूढ़ा आदमी", 'a "quoted" man', "a\\b"],
    "NAME2": ["युवक", "युवती"],
    "WORD1": ["बाज़ार", "बाज़ार", ""],  # BharatBBQ: a list may repeat a value or hold an empty one
}


@pytest.mark.parametrize(
    "value",
    [
        {},
        {"NAME1": "बूढ़ा आदमी", "NAME2": 'a "quoted"\nman'},
        ["stereotyped", "non_stereotyped", "unknown"],
        {"ans0": ["युवक", "young"], "ans1": ["x\\y", "\u2028"], "ans2": ["unknown", "unknown"]},
    ],
)
def test_json_text_is_json_dumps_without_ascii_escapes(value):
    assert json_text(value) == json.dumps(value, ensure_ascii=False)


def _rows_encoded_per_row(dataset, version, unknowns):
    """The rows as built before issue 19: every JSON column encoded for every combination."""
    rows = []
    template = version.template
    for combo in generators.combinations(
        template_version_spec(version=version), unknowns, permutations=dataset.name_permutations
    ):
        shared = (
            dataset.pk,
            version.pk,
            template.category_id,
            version.language,
            template.question_index or template.external_id,
            version.proper_noun,
            version.noun_form,
            combo.index,
            json.dumps(combo.values, ensure_ascii=False),
            *combo.answers,
            json.dumps(list(combo.option_roles)),
            json.dumps(combo.answer_info, ensure_ascii=False),
            json.dumps(combo.metadata or {}, ensure_ascii=False),
        )
        rows += [(*shared, *variant) for variant in combo.variants]
    names = [c for c in ORIGINAL_INSTANCE_COLUMNS if c not in ("created_at", "example_id")]
    return [dict(zip(names, row, strict=True)) for row in rows]


@pytest.mark.django_db
@pytest.mark.parametrize("generator", ["kasauti", "bharatbbq"])
@pytest.mark.parametrize("permutations", [False, True])
def test_rows_are_those_of_per_row_encoding(generator, permutations):
    dataset = DatasetFactory(name_permutations=permutations)
    placeholders = HINDI if generator == "bharatbbq" else {**HINDI, "WORD1": ["बाज़ार", "mela"]}
    version = TemplateVersionFactory(
        template__dataset=dataset,
        generator=generator,
        ambiguous_context="{{NAME1}} और {{NAME2}} {{WORD1}} में मिले।",
        placeholders=placeholders,
    )
    unknowns = ["पता नहीं", "can't say"]
    rows = list(
        _instance_rows(dataset=dataset, version=version, unknowns=unknowns, first_example_id=7)
    )
    columns = [dict(zip(ORIGINAL_INSTANCE_COLUMNS, row, strict=True)) for row in rows]
    assert len({row.pop("created_at") for row in columns}) == 1
    assert [row.pop("example_id") for row in columns] == list(range(7, 7 + len(rows)))
    assert columns == _rows_encoded_per_row(dataset, version, unknowns)
    assert len(rows) == generators.count(
        template_version_spec(version=version), permutations=permutations
    )


def _spec(**changes) -> TemplateSpec:
    fields = {
        "template_id": "Caste-7",
        "language": "hi",
        "ambiguous_context": "{{NAME1}} और {{NAME2}} {{WORD1}} में मिले। {{WORD2}}",
        "disambiguating_context": "{NAME1}} ने पैसे गिने, {{NAME2}} ने कविता लिखी।",
        "question_negative": "किसने पैसे गिने?",
        "question_non_negative": "किसने कविता लिखी?",
        "answer_negative": "The {{NAME1}}",
        "answer_non_negative": "The {{NAME2}}",
        "placeholders": HINDI,
        "placeholder_groups": {"NAME1": ["old", "old", "old"]},
        "generator": "bharatbbq",
        "generator_data": {"unknown_expressions": list(UNKNOWN_ANSWERS)},
    }
    return TemplateSpec(**{**fields, **changes})


# The digests (sha256 of the repr of every Combination) are those of the generator as it was
# before issue 19 (git 6717d52): the restructured loop must yield the very same instances.
@pytest.mark.parametrize(
    ("changes", "digest"),
    [
        ({}, "d3f9d9e9ee80be3e9f8719f255553cc55c5af04f04282edcd8ace267055fa07a"),
        (
            {"pairing": "anti-stereotypical", "target_placeholder": "NAME2"},
            "90a5ec9faa8c69a3fd5bd2291d49b37a48313508021b37bcd868c0e11cf1e548",
        ),
    ],
)
def test_bharatbbq_generator_yields_what_it_did(changes, digest):
    combos = list(generators.combinations(_spec(**changes), ["unused"], permutations=False))
    assert len(combos) == 3 * 2 * 3 * 2
    assert hashlib.sha256(repr(combos).encode()).hexdigest() == digest
