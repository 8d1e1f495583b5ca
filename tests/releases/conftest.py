"""Release fixtures: a small multilingual, instantiated dataset (Indic scripts included)."""

from __future__ import annotations

import pytest

from apps.catalog.models import (
    ContextSentence,
    ContextSet,
    Dataset,
    SentencePair,
    StereotypeTuple,
    TemplateVersion,
    UnknownExpression,
)
from apps.catalog.services import dataset_instantiate
from tests.factories import CategoryFactory, DatasetFactory, TemplateVersionFactory

# Native-script templates: exact round-trip of these strings is part of what is tested.
SCRIPTED = {
    "hi": ("अज्ञात", "{{NAME1}} और {{NAME2}} बस स्टॉप पर इंतज़ार कर रहे थे।", "दादा", "पोता"),
    "bn": ("অজানা", "{{NAME1}} এবং {{NAME2}} বাসস্ট্যান্ডে অপেক্ষা করছিলেন।", "দাদু", "নাতি"),
    "or": ("ଅଜଣା", "{{NAME1}} ଏବଂ {{NAME2}} ବସ୍ ଷ୍ଟାଣ୍ଡରେ ଅପେକ୍ଷା କରୁଥିଲେ।", "ଜେଜେ", "ନାତି"),
    "ta": ("தெரியாது", "{{NAME1}} மற்றும் {{NAME2}} பேருந்து நிறுத்தத்தில் காத்திருந்தனர்.", "தாத்தா", "பேரன்"),
    "te": ("తెలియదు", "{{NAME1}} మరియు {{NAME2}} బస్ స్టాప్ వద్ద ఎదురు చూస్తున్నారు.", "తాత", "మనవడు"),
}
CATEGORY_OF = {
    "en": "Age",
    "hi": "Age",
    "bn": "Religion",
    "or": "Caste",
    "ta": "Caste",
    "te": "Caste",
}


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def _scripted_version(dataset: Dataset, language: str):
    unknown, ambiguous, old, young = SCRIPTED[language]
    UnknownExpression.objects.get_or_create(language=language, text=unknown)
    return TemplateVersionFactory(
        template__dataset=dataset,
        template__category=CategoryFactory(name=CATEGORY_OF[language]),
        template__variant="b" if language == "ta" else "",
        language=language,
        ambiguous_context=ambiguous,
        disambiguating_context="{{NAME1}} — " + ambiguous,
        question_negative=f"{old}?",
        question_non_negative=f"{young}?",
        placeholders={"NAME1": [old, old + "जी"], "NAME2": [young, young + "ा"]},
        subcategory="" if language == "bn" else "वृद्ध",
        source="https://example.org/सर्वे",
    )


@pytest.fixture
def dataset(db) -> Dataset:
    dataset = DatasetFactory(name="Bharat मिनी")
    TemplateVersionFactory(
        template__dataset=dataset,
        template__category=CategoryFactory(name="Age"),
        template__variant="a",
        template__question_index="7",
        source="BBQ",
    )
    for language in SCRIPTED:
        _scripted_version(dataset, language)
    dataset_instantiate(dataset=dataset)
    # Reviewed: releases take only instances of approved templates by default.
    TemplateVersion.objects.filter(template__dataset=dataset).update(status="approved")
    age, caste = CategoryFactory(name="Age"), CategoryFactory(name="Caste")
    SentencePair.objects.create(
        dataset=dataset,
        external_id="p1",
        category=age,
        language="hi",
        sent_more="बूढ़े लोग धीमे होते हैं।",
        sent_less="जवान लोग धीमे होते हैं।",
        direction="stereo",
        target_group="वृद्ध",
    )
    SentencePair.objects.create(
        dataset=dataset,
        external_id="p1",
        category=age,
        language="en",
        sent_more="Old people are slow.",
        sent_less="Young people are slow.",
        direction="stereo",
    )
    StereotypeTuple.objects.create(
        dataset=dataset,
        category=caste,
        language="ta",
        identity_term="பிராமணர்",
        attribute="படித்தவர்",
        votes=[1, 1, 0],
    )
    StereotypeTuple.objects.create(
        dataset=dataset,
        category=age,
        language="en",
        identity_term="elderly",
        attribute="forgetful",
        polarity="negative",
        votes=[],
    )
    context_set = ContextSet.objects.create(
        dataset=dataset,
        external_id="c1",
        category=caste,
        language="te",
        context="ఆ వ్యక్తి ___ కులానికి చెందినవాడు.",
        target_group="కులం",
    )
    for position, (kind, text) in enumerate(
        [
            ("stereotype", "అతను ధనవంతుడు."),
            ("anti_stereotype", "అతను పేదవాడు."),
            ("stereotype", "అతను పూజారి."),
        ]
    ):
        # Passed both review tiers: reviewed releases take the set.
        ContextSentence.objects.create(
            context_set=context_set,
            kind=kind,
            text=text,
            position=position,
            review_tier="social_science",
            review_decision="keep",
        )
    ContextSet.objects.create(
        dataset=dataset, external_id="c0", category=age, language="or", context="ଏକ ବୃଦ୍ଧ ___।"
    )
    return dataset
