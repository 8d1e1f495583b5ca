"""Inclusion rules per dataset (apps/catalog/inclusion.py) on hand-computed cases, the
boundaries included; derived survey counts never mixed with typed ones; evidence required or
not; `usable()` (the query) agreeing with `concept_verdict` (one concept, with reasons); the
rule set per dataset through dataset_inclusion_set; and the concept list page showing it."""

from __future__ import annotations

import itertools

import pytest
from django.db.models import Q
from django.test import Client

from apps.catalog.inclusion import (
    ESBBQ,
    InclusionRule,
    concept_verdict,
    inclusion_rule_get,
    inclusion_rule_register,
    inclusion_rule_unregister,
)
from apps.catalog.models import Category, Dataset, EvidenceReference, StereotypeConcept
from apps.catalog.services.datasets import dataset_inclusion_set
from apps.core.errors import KasautiError

pytestmark = pytest.mark.django_db


@pytest.fixture
def category():
    return Category.objects.get_or_create(name="Religion")[0]


@pytest.fixture
def bharat():
    return Dataset.objects.create(name="Bharat", inclusion_rule="bharatbbq", evidence_required=True)


@pytest.fixture
def esbbq():
    return Dataset.objects.create(name="Es", inclusion_rule="esbbq", evidence_required=True)


def make(
    category,
    dataset,
    *,
    mentions: int = 0,
    survey: tuple[int, int] | None = None,
    evidence: tuple[str, ...] = ("pending",),
    source: str = "survey",
    validation: str = "validated",
    statement: str = "",
) -> StereotypeConcept:
    """A concept with typed `mentions`, or derived survey counts (respondents, affected), and
    evidence references in the given validation states."""
    concept = StereotypeConcept.objects.create(
        category=category,
        dataset=dataset,
        statement=statement or f"concept {StereotypeConcept.objects.count() + 1}",
        mentions=mentions,
        survey_mentions=survey[0] if survey else None,
        survey_affected=survey[1] if survey else None,
        source=source,
        validation_status=validation,
    )
    for status in evidence:
        EvidenceReference.objects.create(
            concept=concept,
            kind="news_report",
            url="https://example.org/a",
            validation_status=status,
        )
    return concept


def usable(concept) -> bool:
    return StereotypeConcept.objects.usable().filter(pk=concept.pk).exists()


def verdict(concept):
    return concept_verdict(StereotypeConcept.objects.get(pk=concept.pk))


# --- the two rules, hand-computed ----------------------------------------------------------


@pytest.mark.parametrize(
    ("respondents", "affected", "passes"),
    [(0, 0, False), (1, 1, False), (2, 0, False), (2, 2, False), (3, 0, True), (4, 1, True)],
)
def test_bharatbbq_needs_three(category, bharat, respondents, affected, passes):
    concept = make(category, bharat, survey=(respondents, affected))
    v = verdict(concept)
    assert v.passes is passes and usable(concept) is passes
    assert v.rule.name == "bharatbbq" and v.counted_as == "survey"
    if not passes:
        word = "mention" if respondents == 1 else "mentions"
        assert v.reasons == [f"{respondents} {word}; needs at least 3"]


@pytest.mark.parametrize(
    ("respondents", "affected", "passes", "reason"),
    [
        (2, 0, False, "2 mentions and none affected; needs 3, or 2 with one affected"),
        (2, 1, True, None),
        (1, 1, False, "1 mention; needs 3, or 2 with one affected"),
        (0, 0, False, "0 mentions; needs 3, or 2 with one affected"),
        (3, 0, True, None),
        (5, 5, True, None),
    ],
)
def test_esbbq_three_or_two_with_one_affected(
    category, esbbq, respondents, affected, passes, reason
):
    concept = make(category, esbbq, survey=(respondents, affected))
    v = verdict(concept)
    assert v.passes is passes and usable(concept) is passes
    assert v.reasons == ([] if passes else [reason])
    assert (v.mentions, v.affected) == (respondents, affected)


def test_the_same_counts_pass_under_esbbq_and_fail_under_bharatbbq(category, bharat, esbbq):
    under_es = make(category, esbbq, survey=(2, 1))
    under_bharat = make(category, bharat, survey=(2, 1))
    assert verdict(under_es).passes and usable(under_es)
    assert not verdict(under_bharat).passes and not usable(under_bharat)
    # Moving the dataset to the other rule flips its concepts, live.
    dataset_inclusion_set(dataset=esbbq, rule="bharatbbq", evidence_required=True)
    assert not verdict(under_es).passes and not usable(under_es)


def test_a_concept_with_no_dataset_is_judged_by_the_default_rule(category):
    concept = make(category, None, survey=(2, 1))
    v = verdict(concept)
    assert v.rule.name == "bharatbbq" and not v.passes and not usable(concept)


# --- reported versus derived: never mixed -------------------------------------------------


def test_derived_counts_replace_typed_ones_never_added(category, esbbq):
    concept = make(category, esbbq, mentions=5, survey=(1, 0))
    v = verdict(concept)
    assert (v.mentions, v.affected, v.counted_as) == (1, 0, "survey")
    assert not v.passes and not usable(concept)
    assert v.reasons == ["1 mention; needs 3, or 2 with one affected"]


def test_typed_counts_are_reported_with_no_affected(category, esbbq):
    # Typed mentions carry no affected count: 2 reported fail EsBBQ's "2 with one affected".
    two = make(category, esbbq, mentions=2)
    v = verdict(two)
    assert (v.mentions, v.affected, v.counted_as) == (2, 0, "reported")
    assert not v.passes and not usable(two)
    three = make(category, esbbq, mentions=3)
    assert verdict(three).passes and usable(three)
    assert verdict(three).counted_as == "reported"


def test_zero_coded_respondents_still_count_as_survey(category, bharat):
    # survey_mentions = 0 is a derived count (answers coded, then all erased), not "no survey".
    concept = make(category, bharat, mentions=9, survey=(0, 0))
    v = verdict(concept)
    assert v.counted_as == "survey" and v.mentions == 0 and not v.passes and not usable(concept)


# --- evidence, source, validation ------------------------------------------------------------


def test_evidence_required_on_and_off(category, esbbq):
    concept = make(category, esbbq, survey=(3, 0), evidence=())
    assert verdict(concept).reasons == ["no evidence reference (or all rejected)"]
    assert not usable(concept)
    dataset_inclusion_set(dataset=esbbq, rule="esbbq", evidence_required=False)
    assert verdict(concept).passes and usable(concept)


@pytest.mark.parametrize(
    ("states", "passes"),
    [
        ((), False),
        (("rejected",), False),
        (("rejected", "rejected"), False),
        (("pending",), True),
        (("rejected", "validated"), True),
    ],
)
def test_only_evidence_not_rejected_counts(category, esbbq, states, passes):
    concept = make(category, esbbq, survey=(3, 1), evidence=states)
    assert verdict(concept).passes is passes and usable(concept) is passes


def test_every_reason_is_listed(category, esbbq):
    concept = make(
        category, esbbq, survey=(1, 0), evidence=("rejected",), source="other", validation="pending"
    )
    assert verdict(concept).reasons == [
        "1 mention; needs 3, or 2 with one affected",
        "source 'Other' is not a trusted source",
        "not validated (pending)",
        "no evidence reference (or all rejected)",
    ]


def test_usable_agrees_with_concept_verdict_on_a_grid(category, bharat, esbbq):
    lax = Dataset.objects.create(name="Lax", inclusion_rule="esbbq", evidence_required=False)
    concepts = []
    grid = itertools.product(
        (bharat, esbbq, lax, None),
        (None, (0, 0), (1, 1), (2, 0), (2, 1), (3, 0)),
        (0, 2, 3),
        ((), ("rejected",), ("pending",)),
        ("survey", "other"),
        ("validated", "pending"),
    )
    for dataset, survey, typed, evidence, source, validation in grid:
        concepts.append(
            make(
                category,
                dataset,
                mentions=typed,
                survey=survey,
                evidence=evidence,
                source=source,
                validation=validation,
            )
        )
    assert len(concepts) == 4 * 6 * 3 * 3 * 2 * 2
    kept = set(StereotypeConcept.objects.usable().values_list("pk", flat=True))
    by_verdict = {
        c.pk
        for c in StereotypeConcept.objects.select_related("dataset").prefetch_related("evidence")
        if concept_verdict(c).passes
    }
    assert kept == by_verdict
    # Both sides of the rule are present, so the agreement is not vacuous.
    assert 0 < len(kept) < len(concepts)


# --- rules are registered objects; the dataset's rule is set through a service ------------


def test_a_registered_rule_is_used_by_verdict_and_query(category):
    lenient = InclusionRule(
        name="one-affected",
        label="One affected respondent",
        check=lambda m, a: None if a >= 1 else "nobody affected",
        q=lambda: Q(_affected__gte=1),
    )
    inclusion_rule_register(lenient)
    try:
        dataset = Dataset.objects.create(
            name="Team", inclusion_rule="esbbq", evidence_required=False
        )
        dataset_inclusion_set(dataset=dataset, rule="one-affected", evidence_required=False)
        yes = make(category, dataset, survey=(1, 1))
        no = make(category, dataset, survey=(9, 0))
        assert verdict(yes).passes and usable(yes)
        assert verdict(no).reasons == ["nobody affected"] and not usable(no)
    finally:
        inclusion_rule_unregister("one-affected")


def test_dataset_inclusion_set_refuses_an_unknown_rule(esbbq):
    with pytest.raises(KasautiError, match="unknown inclusion rule 'strict'; known: bharatbbq"):
        dataset_inclusion_set(dataset=esbbq, rule="strict", evidence_required=False)
    esbbq.refresh_from_db()
    assert esbbq.inclusion_rule == "esbbq" and esbbq.evidence_required is True
    assert inclusion_rule_get("esbbq") is ESBBQ


# --- the concept list page -------------------------------------------------------------------


@pytest.fixture
def page_concepts(category, bharat, esbbq):
    return {
        "survey_pass": make(category, esbbq, survey=(2, 1), statement="Es survey pass"),
        "survey_fail": make(category, esbbq, mentions=5, survey=(1, 0), statement="Es survey fail"),
        "reported": make(category, bharat, mentions=4, statement="Bharat reported"),
        "bharat_fail": make(category, bharat, survey=(2, 1), statement="Bharat survey fail"),
    }


def row(html: str, concept) -> str:
    return html.split(f'id="concept-{concept.pk}"')[1].split("</tr>")[0]


def counts_cell(row_html: str) -> str:
    return row_html.split('class="counts"')[1].split(">", 1)[1].split("</td>")[0].strip()


def test_concept_list_shows_verdicts_reasons_and_counts_never_mixed(annotator, page_concepts):
    client = Client()
    client.force_login(annotator)
    html = client.get("/concepts/").content.decode()
    r = row(html, page_concepts["survey_pass"])
    assert "2 respondents (1 affected)" in r and 'data-usable="yes"' in r
    r = row(html, page_concepts["survey_fail"])
    assert counts_cell(r) == "1 respondent (0 affected)"  # the typed 5 is not shown or added
    assert "1 mention; needs 3, or 2 with one affected" in r and 'data-usable="no"' in r
    r = row(html, page_concepts["reported"])
    assert counts_cell(r) == "4 reported" and "respondent" not in r and 'data-usable="yes"' in r
    r = row(html, page_concepts["bharat_fail"])
    assert "2 mentions; needs at least 3" in r and 'data-usable="no"' in r
    assert html.count('data-usable="yes"') == StereotypeConcept.objects.usable().count() == 2


def test_concept_list_filters_by_dataset(annotator, researcher, page_concepts, esbbq):
    client = Client()
    client.force_login(annotator)
    html = client.get(f"/concepts/?dataset={esbbq.pk}").content.decode()
    assert "Es survey pass" in html and "Bharat reported" not in html
    assert "At least 3 mentions, or 2 with one respondent affected (EsBBQ)" in html
    # Annotators read the rule; only researchers get the form to change it.
    assert 'id="inclusion-form"' not in html
    assert (
        'id="inclusion-form"'
        in _researcher(researcher).get(f"/concepts/?dataset={esbbq.pk}").content.decode()
    )
    # A hand-edited filter value is ignored, not an error.
    assert client.get("/concepts/?dataset=abc").status_code == 200


def _researcher(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_rule_set_from_the_concept_list(researcher, annotator, page_concepts, esbbq):
    client = _researcher(researcher)
    response = client.post(f"/datasets/{esbbq.pk}/inclusion/", {"rule": "bharatbbq"})
    assert response.status_code == 302 and response["Location"] == f"/concepts/?dataset={esbbq.pk}"
    esbbq.refresh_from_db()
    assert esbbq.inclusion_rule == "bharatbbq" and esbbq.evidence_required is False
    html = client.get(f"/concepts/?dataset={esbbq.pk}").content.decode()
    assert 'data-usable="yes"' not in row(html, page_concepts["survey_pass"])
    bad = client.post(f"/datasets/{esbbq.pk}/inclusion/", {"rule": "nope"}, follow=True)
    assert "Select a valid choice" in bad.content.decode()
    esbbq.refresh_from_db()
    assert esbbq.inclusion_rule == "bharatbbq"
    refused = _researcher(annotator).post(f"/datasets/{esbbq.pk}/inclusion/", {"rule": "esbbq"})
    assert refused.status_code == 403
    esbbq.refresh_from_db()
    assert esbbq.inclusion_rule == "bharatbbq"


def test_concept_list_queries_do_not_grow_with_concepts(
    annotator, category, esbbq, django_assert_max_num_queries
):
    for i in range(40):
        make(
            category,
            esbbq if i % 2 else None,
            survey=(i % 4, i % 2),
            evidence=("pending",) * (i % 3),
        )
    client = Client()
    client.force_login(annotator)
    with django_assert_max_num_queries(12):
        html = client.get("/concepts/").content.decode()
    assert html.count('data-usable="') == 40
