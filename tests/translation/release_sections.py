"""A small translated, annotated dataset built through the real services, for the tests of what
translation and annotation tell a release (card sections, provenance steps; issue 22).

Three English templates are instantiated (48 instances). The translation jobs run for real
(apps.translation.services, drained in-process by the `inline_queue` fixture) with the tiny
real engines configured (`real_engines`): the string cache is filled beforehand with Hindi and
Tamil strings under the engines' own model versions, so every string is found cached and the
job goes straight to assembly, which writes the translated instances, their review facts and
the correction queue exactly as in production, with text we control. Hindi is judged at 0.75
and its question falls below; Tamil at 0.8 and one answer falls below. A human corrects the
Hindi question (translation's correction service): the instances that use it get a new
revision.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from apps.accounts.roles import ANNOTATOR
from apps.accounts.services import user_create_with_role
from apps.annotation import selectors as annotation_selectors
from apps.annotation import services as annotation_services
from apps.catalog.models import Dataset, Instance, TemplateVersion
from apps.catalog.services import dataset_instantiate
from apps.translation import engines, pipeline, services
from apps.translation.models import (
    CorrectionItem,
    TranslatedString,
    TranslationSource,
    translation_model_version,
)
from tests.factories import DatasetFactory, TemplateFactory, TemplateVersionFactory

QUESTION = "Who forgot the ticket?"
HUMAN_QUESTION = "टिकट किसने भुला दिया?"
LOW_TAMIL = "The grandson"
THRESHOLDS = {"hi": 0.75, "ta": 0.8}
WORD = {"hi": "हिंदी वाक्य", "ta": "தமிழ் வாக்கியம்"}


def similarity(language: str, text: str) -> float:
    """The back-translation cosine each string is given: the question falls below Hindi's
    threshold; "The grandson" passes Hindi's 0.75 but not Tamil's 0.8."""
    if language == "hi" and text == QUESTION:
        return 0.61
    if text == LOW_TAMIL:
        return 0.78
    return 0.9


@dataclass
class Translated:
    dataset: Dataset
    versions: list[TemplateVersion]
    corrector: object
    item: CorrectionItem  # the corrected Hindi question
    strings: dict[tuple[str, str], TranslatedString] = field(default_factory=dict)


def strings_cache(
    dataset: Dataset, languages: list[str]
) -> dict[tuple[str, str], TranslatedString]:
    """Every English string of the dataset, translated into `languages`, stored in the string
    cache under the configured engines' model versions (so a job reuses them)."""
    versions = engines.model_versions()
    key = translation_model_version(versions.forward, versions.backward, versions.embedder)
    texts = services.sources_collect(dataset=dataset, source=TranslationSource.INSTANCES).unique
    out = {}
    for language in languages:
        for index, text in enumerate(texts):
            score = similarity(language, text)
            out[(language, text)] = TranslatedString.objects.create(
                text_hash=pipeline.text_hash(text),
                language=language,
                model_version=key,
                source_text=text,
                translation=f"{WORD[language]} {index}",
                back_translation=f"{text} (back)",
                similarity=score,
                threshold=THRESHOLDS[language],
                passed=score >= THRESHOLDS[language],
                forward_model_version=versions.forward,
                backward_model_version=versions.backward,
                embedder_version=versions.embedder,
            )
    return out


def translated_dataset(queue) -> Translated:
    """The dataset of the module docstring; `queue` is the inline_queue fixture (and the
    real_engines fixture must be active)."""
    dataset = DatasetFactory()
    versions = []
    for n, (old, young) in enumerate(
        (("grandfather", "grandson"), ("uncle", "nephew"), ("aunt", "niece"))
    ):
        versions.append(
            TemplateVersionFactory(
                template=TemplateFactory(dataset=dataset),
                ambiguous_context=f"In town {n}, a {{{{NAME1}}}} and a {{{{NAME2}}}} waited.",
                question_non_negative=f"Who was ready in town {n}?",
                placeholders={"NAME1": [old, f"old {old}"], "NAME2": [young, f"young {young}"]},
            )
        )
    dataset_instantiate(dataset=dataset)
    strings = strings_cache(dataset, list(THRESHOLDS))
    for language, threshold in THRESHOLDS.items():
        services.translation_job_create(dataset=dataset, languages=[language], threshold=threshold)
        queue.drain()
    corrector = user_create_with_role(username="corrector", role=ANNOTATOR, password="x")
    item = CorrectionItem.objects.get(translated_string=strings[("hi", QUESTION)])
    services.correction_item_resolve(item=item, text=HUMAN_QUESTION, author=corrector)
    return Translated(
        dataset=dataset, versions=versions, corrector=corrector, item=item, strings=strings
    )


def live(dataset: Dataset, language: str):
    return Instance.objects.filter(dataset=dataset, language=language, retired_at__isnull=True)


def work(campaign, answers_for) -> None:
    """Every annotator of the campaign answers each of their items: answers_for(user, item)."""
    for user in campaign.annotators.order_by("username"):
        while assignment := annotation_selectors.assignment_next(
            campaign_id=campaign.pk, annotator=user
        ):
            annotation_services.judgement_submit(
                assignment_id=assignment.pk,
                annotator=user,
                answers=answers_for(user, assignment.item),
                idempotency_key=annotation_services.new_idempotency_key(),
            )
