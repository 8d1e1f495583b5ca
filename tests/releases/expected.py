"""Expected export rows, built straight from ORM objects (not through the selectors the
writers use), so the format tests compare files against the database itself."""

from __future__ import annotations

import hashlib
from typing import Any

from apps.catalog.models import (
    ContextSentence,
    ContextSet,
    Instance,
    SentencePair,
    StereotypeTuple,
)
from apps.releases.models import Release
from apps.releases.selectors import translation_review

BBQ_KEYS = [
    "example_id",
    "question_index",
    "question_polarity",
    "context_condition",
    "category",
    "answer_info",
    "additional_metadata",
    "context",
    "question",
    "ans0",
    "ans1",
    "ans2",
    "label",
    "language",
    "provenance",
]
METADATA_KEYS = [
    "subcategory",
    "stereotyped_groups",
    "version",
    "source",
    "template_id",
    "review_status",
    "pairing",
    "proper_noun",
    "translation_review",
]
PROVENANCE_KEYS = ["instance_id", "template_version_id", "source_instance_id", "text_sha256"]


def expected_provenance(instance: Instance) -> dict[str, Any]:
    """The provenance value of an instance, with the hash written out again from its
    definition (sha256 of the texts and label joined by U+001F, first 16 hex digits)."""
    texts = [instance.context, instance.question, instance.ans0, instance.ans1, instance.ans2]
    joined = "\x1f".join([*texts, str(instance.label)])
    return {
        "instance_id": instance.pk,
        "template_version_id": instance.template_version_id,
        "source_instance_id": instance.source_instance_id,
        "text_sha256": hashlib.sha256(joined.encode("utf-8")).hexdigest()[:16],
    }


def expected_instances(release: Release) -> list[dict[str, Any]]:
    instances = Instance.objects.filter(memberships__release=release).select_related(
        "category", "template_version__template"
    )
    rows = []
    for i in sorted(instances, key=lambda i: (i.category.name, i.language, i.example_id, i.pk)):
        version = i.template_version
        rows.append(
            {
                "example_id": i.example_id,
                "question_index": i.question_index,
                "question_polarity": i.question_polarity,
                "context_condition": i.context_condition,
                "category": i.category.name,
                "answer_info": {k: i.answer_info[k] for k in ("ans0", "ans1", "ans2")},
                "additional_metadata": {
                    "subcategory": version.subcategory,  # empty when there is none
                    "stereotyped_groups": version.stereotyped_groups,
                    "version": version.template.variant or "None",
                    "source": version.source,
                    "template_id": version.template.external_id,
                    "review_status": version.status,
                    "pairing": i.pairing,
                    "proper_noun": i.proper_noun,
                    "translation_review": (
                        translation_review(i.review) if i.source_instance_id else None
                    ),
                },
                "context": i.context,
                "question": i.question,
                "ans0": i.ans0,
                "ans1": i.ans1,
                "ans2": i.ans2,
                "label": i.label,
                "language": i.language,
                "provenance": expected_provenance(i),
            }
        )
    return rows


def _passed(sentence: ContextSentence) -> bool:
    return sentence.review_tier == "social_science" and sentence.review_decision in (
        "keep",
        "fix",
    )


def expected_rows(release: Release, kind: str) -> list[dict[str, Any]]:
    """The rows of `kind` a release takes, by the content rules written out again here:
    reviewed takes no sentence pairs, tuples with a strict majority of 1 votes, and the
    sentences that passed the social-science tier of sets with both kinds left."""
    dataset = release.dataset
    reviewed = release.content == "reviewed"
    if kind == "instances":
        return expected_instances(release)
    if kind == "sentence_pairs":
        pairs = sorted(
            SentencePair.objects.filter(dataset=dataset).select_related("category"),
            key=lambda p: (p.category.name, p.language, p.external_id, p.pk),
        )
        if reviewed:
            pairs = []
        return [
            {
                "external_id": p.external_id,
                "category": p.category.name,
                "language": p.language,
                "sent_more": p.sent_more,
                "sent_less": p.sent_less,
                "direction": p.direction,
                "target_group": p.target_group,
            }
            for p in pairs
        ]
    if kind == "tuples":
        tuples = sorted(
            StereotypeTuple.objects.filter(dataset=dataset).select_related("category"),
            key=lambda t: (t.category.name, t.language, t.identity_term, t.attribute, t.pk),
        )
        if reviewed:
            tuples = [t for t in tuples if t.votes and sum(t.votes) * 2 > len(t.votes)]
        return [
            {
                "id": t.pk,
                "category": t.category.name,
                "language": t.language,
                "identity_term": t.identity_term,
                "attribute": t.attribute,
                "polarity": t.polarity,
                "votes": t.votes,
            }
            for t in tuples
        ]
    sets = sorted(
        ContextSet.objects.filter(dataset=dataset).select_related("category"),
        key=lambda c: (c.category.name, c.language, c.external_id, c.pk),
    )
    rows = []
    for c in sets:
        sentences = sorted(c.sentences.all(), key=lambda s: (s.kind, s.position, s.pk))
        if reviewed:
            sentences = [s for s in sentences if _passed(s)]
            if {s.kind for s in sentences} != {"stereotype", "anti_stereotype"}:
                continue
        rows.append(
            {
                "external_id": c.external_id,
                "category": c.category.name,
                "language": c.language,
                "context": c.context,
                "target_group": c.target_group,
                "stereotypes": [s.text for s in sentences if s.kind == "stereotype"],
                "anti_stereotypes": [s.text for s in sentences if s.kind == "anti_stereotype"],
            }
        )
    return rows
