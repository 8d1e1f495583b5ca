"""Fixtures for the survey tests: a dataset, and an open survey in Hindi and Spanish whose
questionnaire is complete (every string, category, group and demographic label filled)."""

from __future__ import annotations

import copy

import pytest

from apps.catalog.models import Dataset
from apps.surveys.questionnaire import content_problems, default_content
from apps.surveys.services.surveys import survey_create, survey_open

CATEGORIES = [
    {
        "key": "religion",
        "category": "Religion",
        "labels": {"hi": "धर्म", "es": "Religión", "en": "Religion"},
        "allow_other": True,
        "groups": [
            {"key": "muslim", "labels": {"hi": "मुसलमान", "es": "Musulmanes", "en": "Muslims"}},
            {"key": "hindu", "labels": {"hi": "हिंदू", "es": "Hindúes", "en": "Hindus"}},
        ],
    },
    {
        "key": "region",
        "category": "Region",
        "labels": {"hi": "क्षेत्र", "es": "Región", "en": "Region"},
        "allow_other": True,
        "groups": [
            {
                "key": "andalusia",
                "labels": {"hi": "अंडालूसिया", "es": "Andalucía", "en": "Andalusia"},
            },
        ],
    },
]


def complete_content(languages: list[str]) -> dict:
    """A questionnaire with no gaps in `languages`: default texts where Kasauti has them, and
    a marked filler where it does not (so a test sees which strings came from where)."""
    content = default_content(languages=languages, categories=copy.deepcopy(CATEGORIES))
    from apps.surveys.strings import STRING_KEYS

    for lang in languages:
        for key in STRING_KEYS:
            content["strings"][lang].setdefault(key, "")
            if not content["strings"][lang][key]:
                content["strings"][lang][key] = f"[{lang}] {key}" + (
                    " {limit}" if key == "too_long" else ""
                )
        for question in content["demographics"]:
            question["labels"][lang] = question["labels"].get(lang) or f"[{lang}] {question['key']}"
            for option in question["options"]:
                option["labels"][lang] = option["labels"].get(lang) or f"[{lang}] {option['key']}"
    for category in content["categories"]:
        for item in [category, *category["groups"]]:
            item["labels"] = {
                lang: item["labels"].get(lang) or f"[{lang}] {item['key']}" for lang in languages
            }
    assert content_problems(content) == []
    return content


@pytest.fixture
def dataset(db):
    return Dataset.objects.create(name="Survey-DS", inclusion_rule="esbbq")


@pytest.fixture
def survey(dataset, researcher):
    survey = survey_create(
        dataset=dataset,
        slug="estereotipos",
        languages=["hi", "es"],
        content=complete_content(["hi", "es"]),
        created_by=researcher,
    )
    return survey_open(survey=survey)
