"""The survey section of a release's dataset card (issue 22): when the released instances'
concepts were coded from a survey's answers, the questionnaire, respondents, answers by coding
status, the funnel overall and by category, and the released concepts from the survey with
their evidence, each figure counted here from the rows; None otherwise."""

from __future__ import annotations

import json

import pytest

from apps.catalog.models import EvidenceReference, StereotypeConcept
from apps.catalog.services import dataset_instantiate, evidence_add
from apps.releases.registry import CardContext, card_section_get
from apps.releases.services import release_create
from apps.surveys.card import SECTION, render
from apps.surveys.models import Answer, AnswerConcept
from apps.surveys.services.coding import NewConcept, answer_code, answer_mark_invalid
from tests.factories import TemplateFactory, TemplateVersionFactory
from tests.surveys.coding_factories import answer, concept, respondent

pytestmark = pytest.mark.django_db

MARWARI = "मारवाड़ी कंजूस होते हैं"
TAMIL = "தமிழர்கள் கணிதத்தில் வல்லவர்கள்"


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def _facts(release, tmp_path):
    return SECTION.facts(
        CardContext(release=release, previous=None, changelog={}, directory=tmp_path)
    )


@pytest.fixture
def coded(survey, dataset, researcher):
    """Five answers by three respondents: three coded (into a concept created while coding,
    and an existing one), one invalid, one still to code; templates on both concepts and on a
    concept from the literature are instantiated."""
    first, second, third = (respondent(survey) for _ in range(3))
    answers = [
        answer(survey, first, text=MARWARI),
        answer(survey, second, text=MARWARI + "।"),
        answer(survey, third, text=TAMIL, language="hi"),
        answer(survey, first, text="asdf"),
        answer(survey, second, text="मुसलमान …"),
    ]
    existing = concept(dataset, TAMIL, category="Region", target_groups=["Tamils"])
    answer_code(
        answer=answers[0],
        by=researcher,
        new_concepts=[NewConcept(category="Region", statement=MARWARI, target_groups=["Marwaris"])],
    )
    created = StereotypeConcept.objects.get(statement=MARWARI)
    answer_code(answer=answers[1], by=researcher, concept_ids=[created.pk])
    answer_code(answer=answers[2], by=researcher, concept_ids=[existing.pk, created.pk])
    answer_mark_invalid(answer=answers[3], reason="spam", by=researcher)
    evidence_add(
        concept=existing,
        kind=EvidenceReference.Kind.RESEARCH_ARTICLE,
        url="https://example.org/tamil",
        added_by=researcher,
    )
    literature = concept(dataset, "Literature only", source="literature")
    for attached in (created, existing, literature):
        TemplateVersionFactory(template=TemplateFactory(dataset=dataset), concept=attached)
    dataset_instantiate(dataset=dataset)
    return {"created": created, "existing": existing, "literature": literature}


def test_facts_equal_the_rows_and_the_render_shows_them(survey, dataset, coded, tmp_path):
    release = release_create(dataset=dataset, content="as_published")
    facts = _facts(release, tmp_path)
    assert json.loads(json.dumps(facts)) == facts
    [entry] = facts["surveys"]
    assert entry["slug"] == survey.slug == "estereotipos"
    assert entry["questionnaire"] == {"versions": 1, "current": 1, "languages": ["hi", "es"]}
    assert entry["respondents"] == 3
    assert entry["answers"] == {"pending": 1, "coded": 3, "invalid": 1}

    # The funnel, counted from the rows: 5 answers; the links of answers not invalid (1 + 1 +
    # 2); two distinct concepts; kept, those passing the dataset's inclusion rule.
    live = AnswerConcept.objects.filter(answer__survey=survey).exclude(
        answer__status=Answer.Status.INVALID
    )
    concept_ids = set(live.values_list("concept_id", flat=True))
    kept = StereotypeConcept.objects.usable().filter(pk__in=concept_ids).count()
    funnel = entry["funnel"]
    assert (funnel["answers"], funnel["valid"], funnel["unique"], funnel["kept"]) == (
        5,
        live.count(),
        len(concept_ids),
        kept,
    )
    assert (live.count(), len(concept_ids)) == (4, 2)
    assert sum(row["valid"] for row in funnel["by_category"]) == 4
    assert {row["category"] for row in funnel["by_category"]} >= {"Region"}

    # Released concepts from the survey: the created one and the existing one (not the
    # literature concept), both with the survey as evidence, one also with an article.
    assert entry["release_concepts"] == {
        "from_survey": 2,
        "source_survey": 2,
        "evidence_by_kind": {"research_article": 1, "survey": 2},
    }

    markdown = render(facts)
    assert "### Participatory survey `estereotipos`" in markdown
    assert "3 respondent(s) gave 5 answer(s): 1 to code, 3 coded, 1 invalid." in markdown
    assert "| Answers | 5 |" in markdown and "| Unique concepts | 2 |" in markdown
    assert "| Valid stereotypes (answer-to-concept codings) | 4 |" in markdown
    assert f"| Kept (pass the inclusion rule) | {kept} |" in markdown
    assert "2 of this release's concepts were coded from the survey's answers" in markdown
    assert "research article 1, the survey 2" in markdown
    assert MARWARI not in markdown  # respondents' words stay in the survey app
    assert render(json.loads(json.dumps(facts))) == markdown


def test_a_release_whose_concepts_came_from_no_survey_has_no_survey_section(
    survey, dataset, tmp_path
):
    literature = concept(dataset, "Literature only", source="literature")
    TemplateVersionFactory(template=TemplateFactory(dataset=dataset), concept=literature)
    dataset_instantiate(dataset=dataset)
    answer(survey, text="coded into nothing")  # the survey exists, but gave no released concept
    release = release_create(dataset=dataset, content="as_published")
    assert _facts(release, tmp_path) is None


def test_the_section_is_registered_in_the_collection_part():
    assert card_section_get("survey") is SECTION and SECTION.part == "collection"
