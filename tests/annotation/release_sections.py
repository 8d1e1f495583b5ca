"""Campaigns over the translated dataset of tests/translation/release_sections.py, through the
annotation services: a template validation by two annotators (disagreeing on some criteria, so
the statistics are defined and one item is adjudicated) and a Hindi translation scoring (Table
3). The answers are given by item and slot, so a test can compute every figure on its own."""

from __future__ import annotations

from dataclasses import dataclass

from apps.annotation import services
from apps.annotation.models import Assignment, Campaign, CampaignItem
from tests.translation.release_sections import Translated, work

# Validation answers by template index (0, 1, 2) and slot: criterion -> answer.
VALIDATION = {
    0: [{"a": "yes", "b": "yes", "c": "yes"}, {"a": "yes", "b": "yes", "c": "no"}],
    1: [{"a": "yes", "b": "yes", "c": "yes"}, {"a": "no", "b": "yes", "c": "yes"}],
    2: [{"a": "no", "b": "yes", "c": "yes"}, {"a": "no", "b": "yes", "c": "yes"}],
}
# (adequacy, fluency) by item position, for slot 0 and slot 1.
SCORES = {
    0: [(5, 4), (4, 4)],
    1: [(3, 2), (3, 3)],
    2: [(4, 5), (5, 5)],
    3: [(2, 3), (2, 2)],
}
NOTE = "मानदंड (c) ठीक है: समूह सही हैं।"


@dataclass
class Annotated:
    validation: Campaign
    scoring: Campaign
    adjudicated: CampaignItem


def _slot(item, user) -> int:
    return Assignment.objects.get(item=item, annotator=user).slot


def annotate(translated: Translated, annotators, researcher) -> Annotated:
    dataset = translated.dataset
    index = {version.pk: n for n, version in enumerate(translated.versions)}
    validation = services.campaign_create(
        dataset=dataset, kind="template_validation", annotators=annotators, name="Validation"
    )

    def validate(user, item):
        answers = VALIDATION[index[item.template_version_id]][_slot(item, user)]
        return {**answers, **{f"{key}_comment": "" for key in answers}}

    work(validation, validate)
    adjudicated = CampaignItem.objects.get(
        campaign=validation, template_version=translated.versions[0]
    )
    services.item_decide(item=adjudicated, verdict="approve", decided_by=researcher, note=NOTE)
    scoring = services.campaign_create(
        dataset=dataset,
        kind="translation_scoring",
        language="hi",
        annotators=annotators,
        sample_size=2,
        seed=1,
        name="Hindi | adequacy",
    )

    def score(user, item):
        adequacy, fluency = SCORES[item.position][_slot(item, user)]
        return {
            "adequacy": adequacy,
            "fluency": fluency,
            "adequacy_reason": "ठीक",
            "fluency_reason": "ठीक",
        }

    work(scoring, score)
    return Annotated(validation=validation, scoring=scoring, adjudicated=adjudicated)
