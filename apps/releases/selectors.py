"""Release reads, and the row streams the release files are written from.

Every stream reads through a server-side cursor (`.iterator(chunk_size=...)` over
values_list), so memory stays at one chunk whatever the size of the dataset. Row order is
deterministic: category name, language, then the kind's own id.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import django_filters
from django.db.models import QuerySet, TextField
from django.db.models.functions import Cast

from apps.catalog.models import (
    ContextSentence,
    ContextSet,
    Dataset,
    Instance,
    SentencePair,
    StereotypeTuple,
    TemplateVersion,
)
from apps.core.filters import ReferenceFilter

from .models import FileKind, Release, ReleaseFile
from .published import published_instance_rows, release_is_published

CHUNK_SIZE = 5000

Row = dict[str, Any]


class ReleaseFilter(django_filters.FilterSet):
    dataset = ReferenceFilter(model=Dataset)
    # Kept for existing clients; `dataset` takes the name too.
    dataset_name = ReferenceFilter(model=Dataset, field_name="dataset")

    class Meta:
        model = Release
        fields = ["dataset", "dataset_name"]


def release_list(*, filters: dict[str, Any] | None = None) -> QuerySet[Release]:
    queryset = Release.objects.select_related("dataset", "created_by").prefetch_related("files")
    return ReleaseFilter(filters or {}, queryset.order_by("dataset__name", "-number")).qs


def release_get(*, release_id: int) -> Release | None:
    return (
        Release.objects.select_related("dataset", "created_by")
        .prefetch_related("files")
        .filter(pk=release_id)
        .first()
    )


def release_latest(*, dataset_id: int) -> Release | None:
    return Release.objects.filter(dataset_id=dataset_id).order_by("-number").first()


def release_file_get(*, release: Release, kind: str, file_format: str) -> ReleaseFile | None:
    return (
        ReleaseFile.objects.select_related("release__dataset")
        .filter(release=release, kind=kind, format=file_format)
        .first()
    )


# --- row streams ---------------------------------------------------------------------------

_INSTANCE_FIELDS = (
    "template_version_id",
    "example_id",
    "question_index",
    "question_polarity",
    "context_condition",
    "category__name",
    "answer_info_text",
    "pairing",
    "proper_noun",
    "context",
    "question",
    "ans0",
    "ans1",
    "ans2",
    "label",
    "language",
)


def _template_metadata(*, dataset_id: int) -> dict[int, dict[str, Any]]:
    """BBQ's additional_metadata that comes from the template, per template version. Read
    once instead of joined and JSON-decoded on every row: a dataset has a few thousand
    versions at most, against hundreds of thousands of instances."""
    return {
        version_id: {
            # BBQ writes the string "None" for a missing subcategory / version.
            "subcategory": subcategory or "None",
            "stereotyped_groups": groups,
            "version": variant or "None",
            "source": source,
            "template_id": template_id,
        }
        for version_id, subcategory, groups, variant, source, template_id in (
            TemplateVersion.objects.filter(template__dataset_id=dataset_id).values_list(
                "id",
                "subcategory",
                "stereotyped_groups",
                "template__variant",
                "source",
                "template__external_id",
            )
        )
    }


def release_instance_rows(*, release: Release, chunk_size: int = CHUNK_SIZE) -> Iterator[Row]:
    """The release's instances as BBQ-compatible dicts (key order is BBQ's)."""
    metadata = _template_metadata(dataset_id=release.dataset_id)
    rows = (
        Instance.objects.filter(memberships__release=release)
        # As text: the instances of one combination are consecutive and share their
        # answer_info, so decoding only when the text changes saves most of the JSON work.
        .annotate(answer_info_text=Cast("answer_info", TextField()))
        .order_by("category__name", "language", "example_id", "id")
        .values_list(*_INSTANCE_FIELDS)
        .iterator(chunk_size=chunk_size)
    )
    last_text, info = None, {}
    for (
        version_id, example_id, question_index, polarity, condition, category, info_text,
        pairing, proper_noun, context, question, ans0, ans1, ans2, label, language,
    ) in rows:  # fmt: skip
        if info_text != last_text:
            decoded = json.loads(info_text)
            # Rebuilt in option order so every format has the same ans0..ans2 layout.
            info = {"ans0": decoded["ans0"], "ans1": decoded["ans1"], "ans2": decoded["ans2"]}
            last_text = info_text
        yield {
            "example_id": example_id,
            "question_index": question_index,
            "question_polarity": polarity,
            "context_condition": condition,
            "category": category,
            "answer_info": info,
            "additional_metadata": {
                **metadata[version_id],
                "pairing": pairing,
                "proper_noun": proper_noun,
            },
            "context": context,
            "question": question,
            "ans0": ans0,
            "ans1": ans1,
            "ans2": ans2,
            "label": label,
            "language": language,
        }


def dataset_sentence_pair_rows(*, dataset_id: int, chunk_size: int = CHUNK_SIZE) -> Iterator[Row]:
    names = (
        "external_id",
        "category__name",
        "language",
        "sent_more",
        "sent_less",
        "direction",
        "target_group",
    )
    keys = (
        "external_id",
        "category",
        "language",
        "sent_more",
        "sent_less",
        "direction",
        "target_group",
    )
    rows = (
        SentencePair.objects.filter(dataset_id=dataset_id)
        .order_by("category__name", "language", "external_id", "id")
        .values_list(*names)
        .iterator(chunk_size=chunk_size)
    )
    for values in rows:
        yield dict(zip(keys, values, strict=True))


def dataset_tuple_rows(*, dataset_id: int, chunk_size: int = CHUNK_SIZE) -> Iterator[Row]:
    names = ("id", "category__name", "language", "identity_term", "attribute", "polarity", "votes")
    keys = ("id", "category", "language", "identity_term", "attribute", "polarity", "votes")
    rows = (
        StereotypeTuple.objects.filter(dataset_id=dataset_id)
        .order_by("category__name", "language", "identity_term", "attribute", "id")
        .values_list(*names)
        .iterator(chunk_size=chunk_size)
    )
    for values in rows:
        yield dict(zip(keys, values, strict=True))


def dataset_context_set_rows(*, dataset_id: int, chunk_size: int = CHUNK_SIZE) -> Iterator[Row]:
    """One row per context set with its sentences as two lists. Sentences are fetched per
    chunk of sets (portable, and bounded by the chunk rather than by the dataset)."""
    sets = (
        ContextSet.objects.filter(dataset_id=dataset_id)
        .order_by("category__name", "language", "external_id", "id")
        .values_list("id", "external_id", "category__name", "language", "context", "target_group")
        .iterator(chunk_size=chunk_size)
    )
    chunk: list[tuple] = []
    for values in sets:
        chunk.append(values)
        if len(chunk) >= chunk_size:
            yield from _context_set_chunk(chunk)
            chunk = []
    if chunk:
        yield from _context_set_chunk(chunk)


def _context_set_chunk(chunk: list[tuple]) -> Iterator[Row]:
    sentences: dict[int, dict[str, list[str]]] = {
        values[0]: {ContextSentence.Kind.STEREOTYPE: [], ContextSentence.Kind.ANTI_STEREOTYPE: []}
        for values in chunk
    }
    for set_id, kind, text in (
        ContextSentence.objects.filter(context_set_id__in=list(sentences))
        .order_by("context_set_id", "kind", "position", "id")
        .values_list("context_set_id", "kind", "text")
    ):
        sentences[set_id].setdefault(kind, []).append(text)
    for set_id, external_id, category, language, context, target_group in chunk:
        yield {
            "external_id": external_id,
            "category": category,
            "language": language,
            "context": context,
            "target_group": target_group,
            "stereotypes": sentences[set_id][ContextSentence.Kind.STEREOTYPE],
            "anti_stereotypes": sentences[set_id][ContextSentence.Kind.ANTI_STEREOTYPE],
        }


def release_rows(*, release: Release, kind: str) -> Iterator[Row]:
    """The rows of one kind for a release being written (non-instance kinds are frozen by
    the files themselves: they have no retirement, so the files are their snapshot)."""
    if kind == FileKind.INSTANCES:
        if release_is_published(release=release):
            return published_instance_rows(release=release)
        return release_instance_rows(release=release)
    if kind == FileKind.SENTENCE_PAIRS:
        return dataset_sentence_pair_rows(dataset_id=release.dataset_id)
    if kind == FileKind.TUPLES:
        return dataset_tuple_rows(dataset_id=release.dataset_id)
    if kind == FileKind.CONTEXT_SETS:
        return dataset_context_set_rows(dataset_id=release.dataset_id)
    raise ValueError(f"unknown release file kind {kind!r}")
