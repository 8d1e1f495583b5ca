"""Collecting what a job translates: the items (kept for assembly) and their unique strings,
from instances, sentence pairs or context sets."""

from __future__ import annotations

from dataclasses import dataclass, field

from apps.catalog.bulk import INSTANCE_TEXT_COLUMNS
from apps.catalog.models import ContextSet, Dataset, Instance, SentencePair
from apps.core.errors import KasautiError

from .. import pipeline
from ..models import TranslationSource

SOURCE_LANGUAGE = "en"


@dataclass
class SourceCollection:
    """What a job translates: the items (for assembly) and their unique strings."""

    source: str
    instances: list[pipeline.InstanceText] = field(default_factory=list)
    pairs: list[SentencePair] = field(default_factory=list)
    context_sets: list[ContextSet] = field(default_factory=list)
    strings_in_items: int = 0
    unique: list[str] = field(default_factory=list)


def _instance_queryset(*, dataset: Dataset, release_id: int | None):
    qs = Instance.objects.filter(
        dataset=dataset,
        language=SOURCE_LANGUAGE,
        source_instance__isnull=True,
        retired_at__isnull=True,
    )
    if release_id is not None:
        # A release is frozen: its members count even if retired since.
        qs = Instance.objects.filter(
            language=SOURCE_LANGUAGE,
            source_instance__isnull=True,
            memberships__release_id=release_id,
        )
    return qs


# What pipeline.instance_texts reads: the identity of the row and its translatable texts (the text
# columns are catalog's one list, bulk.INSTANCE_TEXT_COLUMNS).
_INSTANCE_TEXTS_INPUT_FIELDS = (
    "id",
    "template_version_id",
    "combination",
    "name_order",
    "context_condition",
    *INSTANCE_TEXT_COLUMNS,
)


def sources_collect(
    *, dataset: Dataset, source: str, release_id: int | None = None
) -> SourceCollection:
    collection = SourceCollection(source=source)
    if source == TranslationSource.INSTANCES:
        rows = _instance_queryset(dataset=dataset, release_id=release_id).values(
            *_INSTANCE_TEXTS_INPUT_FIELDS
        )
        collection.instances = pipeline.instance_texts(rows.order_by("id"))
        collection.strings_in_items = pipeline.STRINGS_PER_INSTANCE * len(collection.instances)
        collection.unique = pipeline.unique_strings(t.strings() for t in collection.instances)
    elif source == TranslationSource.SENTENCE_PAIRS:
        collection.pairs = list(
            SentencePair.objects.filter(dataset=dataset, language=SOURCE_LANGUAGE).order_by("id")
        )
        collection.strings_in_items = 2 * len(collection.pairs)
        collection.unique = pipeline.unique_strings(
            (pair.sent_more, pair.sent_less) for pair in collection.pairs
        )
    elif source == TranslationSource.CONTEXT_SETS:
        collection.context_sets = list(
            ContextSet.objects.filter(dataset=dataset, language=SOURCE_LANGUAGE)
            .prefetch_related("sentences")
            .order_by("id")
        )
        groups = [
            (cs.context, *(s.text for s in cs.sentences.all())) for cs in collection.context_sets
        ]
        collection.strings_in_items = sum(len(group) for group in groups)
        collection.unique = pipeline.unique_strings(groups)
    else:
        raise KasautiError(f"unknown translation source {source!r}")
    return collection


def empty_message(*, dataset: Dataset, source: str) -> str:
    what = {
        TranslationSource.INSTANCES: "live English instances (instantiate it first)",
        TranslationSource.SENTENCE_PAIRS: "English sentence pairs",
        TranslationSource.CONTEXT_SETS: "English context sets",
    }.get(source, "items")
    return f"dataset {dataset.name!r} has no {what}: nothing to translate"


def sources_collect_exists(*, dataset: Dataset, source: str, release=None) -> bool:
    if source == TranslationSource.INSTANCES:
        release_id = release.pk if release is not None else None
        return _instance_queryset(dataset=dataset, release_id=release_id).exists()
    if source == TranslationSource.SENTENCE_PAIRS:
        return SentencePair.objects.filter(dataset=dataset, language=SOURCE_LANGUAGE).exists()
    return ContextSet.objects.filter(dataset=dataset, language=SOURCE_LANGUAGE).exists()
