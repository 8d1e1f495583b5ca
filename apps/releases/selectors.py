"""Release reads, and the row streams the release files are written from.

Every stream reads through a server-side cursor (`.iterator(chunk_size=...)` over
values_list), so memory stays at one chunk whatever the size of the dataset. Row order is
deterministic: category name, language, then the kind's own id. (On PostgreSQL a release's
instances are serialised by the database instead: apps.releases.instance_lines.)
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import django_filters
from django.db.models import QuerySet, TextField
from django.db.models.functions import Cast
from django.urls import reverse

from apps.catalog.bulk import INSTANCE_TEXT_COLUMNS
from apps.catalog.models import (
    ContextSentence,
    Dataset,
    Instance,
    StereotypeTuple,
    TemplateVersion,
)
from apps.core.filters import ReferenceFilter

from .content import (
    KIND_LABELS,
    content_preview,
    exclusion_lines,
    kind_rows,
    kinds_without_rows,
    released_context_sentences,
    released_context_sets,
    released_sentence_pairs,
    tuple_released,
)
from .hub import FRONT_MATTER_RE
from .models import DOCUMENT_FILES, FileKind, Release, ReleaseFile
from .published import published_instance_rows, release_is_published
from .schemas import instance_provenance

CHUNK_SIZE = 5000
ANSWER_KEYS = ("ans0", "ans1", "ans2")

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
    "id",
    "template_version_id",
    "example_id",
    "question_index",
    "question_polarity",
    "context_condition",
    "category__name",
    "answer_info_text",
    "pairing",
    "proper_noun",
    *INSTANCE_TEXT_COLUMNS,  # catalog's one list of an instance's texts
    "label",
    "language",
    "source_instance_id",
    "review",
)


# The review facts a release exports for a translated instance (catalog Instance.review), in
# the order PostgreSQL's jsonb writes keys (by length, then bytes), so both serialisations of a
# row are the same bytes.
TRANSLATION_REVIEW_KEYS = (
    "status",
    "revision",
    "threshold",
    "similarity",
    "embedder_version",
    "forward_model_version",
    "backward_model_version",
)


def translation_review(review: dict[str, Any] | None) -> dict[str, Any]:
    review = review or {}
    return {key: review.get(key) for key in TRANSLATION_REVIEW_KEYS}


def _template_metadata(*, dataset_id: int) -> dict[int, dict[str, Any]]:
    """BBQ's additional_metadata that comes from the template, per template version. Read
    once instead of joined and JSON-decoded on every row: a dataset has a few thousand
    versions at most, against hundreds of thousands of instances."""
    return {
        version_id: {
            # A missing subcategory is empty, not BBQ's string "None" (apps.releases.
            # instance_lines says the same in SQL); BBQ's "None" version is kept.
            "subcategory": subcategory or "",
            "stereotyped_groups": groups,
            "version": variant or "None",
            "source": source,
            "template_id": template_id,
            # Kasauti's review facts: the template version's status and, for a translation,
            # the row's own (similarity, passed / flagged / corrected, model versions).
            "review_status": status,
        }
        for version_id, subcategory, groups, variant, source, template_id, status in (
            TemplateVersion.objects.filter(template__dataset_id=dataset_id).values_list(
                "id",
                "subcategory",
                "stereotyped_groups",
                "template__variant",
                "source",
                "template__external_id",
                "status",
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
        instance_id, version_id, example_id, question_index, polarity, condition, category,
        info_text, pairing, proper_noun, context, question, ans0, ans1, ans2, label, language,
        source_instance_id, review,
    ) in rows:  # fmt: skip
        if info_text != last_text:
            decoded = json.loads(info_text)
            # Rebuilt in option order so every format has the same ans0..ans2 layout.
            info = {key: decoded[key] for key in ANSWER_KEYS}
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
                "translation_review": translation_review(review) if source_instance_id else None,
            },
            "context": context,
            "question": question,
            "ans0": ans0,
            "ans1": ans1,
            "ans2": ans2,
            "label": label,
            "language": language,
            "provenance": instance_provenance(
                instance_id=instance_id,
                template_version_id=version_id,
                source_instance_id=source_instance_id,
                context=context,
                question=question,
                ans0=ans0,
                ans1=ans1,
                ans2=ans2,
                label=label,
            ),
        }


def dataset_sentence_pair_rows(
    *, dataset_id: int, content: str, chunk_size: int = CHUNK_SIZE
) -> Iterator[Row]:
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
        released_sentence_pairs(dataset_id=dataset_id, content=content)
        .order_by("category__name", "language", "external_id", "id")
        .values_list(*names)
        .iterator(chunk_size=chunk_size)
    )
    for values in rows:
        yield dict(zip(keys, values, strict=True))


def dataset_tuple_rows(
    *, dataset_id: int, content: str, chunk_size: int = CHUNK_SIZE
) -> Iterator[Row]:
    names = ("id", "category__name", "language", "identity_term", "attribute", "polarity", "votes")
    keys = ("id", "category", "language", "identity_term", "attribute", "polarity", "votes")
    rows = (
        StereotypeTuple.objects.filter(dataset_id=dataset_id)
        .order_by("category__name", "language", "identity_term", "attribute", "id")
        .values_list(*names)
        .iterator(chunk_size=chunk_size)
    )
    for values in rows:
        row = dict(zip(keys, values, strict=True))
        if tuple_released(votes=row["votes"], content=content):
            yield row


def dataset_context_set_rows(
    *, dataset_id: int, content: str, chunk_size: int = CHUNK_SIZE
) -> Iterator[Row]:
    """One row per context set with its sentences as two lists (reviewed: the sets and
    sentences that passed review, apps.releases.content). Sentences are fetched per chunk of
    sets (portable, and bounded by the chunk rather than by the dataset)."""
    sets = (
        released_context_sets(dataset_id=dataset_id, content=content)
        .order_by("category__name", "language", "external_id", "id")
        .values_list("id", "external_id", "category__name", "language", "context", "target_group")
        .iterator(chunk_size=chunk_size)
    )
    chunk: list[tuple] = []
    for values in sets:
        chunk.append(values)
        if len(chunk) >= chunk_size:
            yield from _context_set_chunk(chunk, content)
            chunk = []
    if chunk:
        yield from _context_set_chunk(chunk, content)


def _context_set_chunk(chunk: list[tuple], content: str) -> Iterator[Row]:
    sentences: dict[int, dict[str, list[str]]] = {
        values[0]: {ContextSentence.Kind.STEREOTYPE: [], ContextSentence.Kind.ANTI_STEREOTYPE: []}
        for values in chunk
    }
    for set_id, kind, text in (
        released_context_sentences(context_set_ids=list(sentences), content=content)
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


_DATASET_ROWS = {
    FileKind.SENTENCE_PAIRS: dataset_sentence_pair_rows,
    FileKind.TUPLES: dataset_tuple_rows,
    FileKind.CONTEXT_SETS: dataset_context_set_rows,
}


def dataset_rows(*, dataset_id: int, kind: str, content: str) -> Iterator[Row]:
    """The rows of a kind other than instances that a release in `content` mode takes from
    the dataset now. These kinds have no retirement: the release files are their snapshot."""
    if kind not in _DATASET_ROWS:
        raise ValueError(f"unknown release file kind {kind!r}")
    return _DATASET_ROWS[kind](dataset_id=dataset_id, content=content)


def release_rows(*, release: Release, kind: str) -> Iterator[Row]:
    """The rows of one kind for a release being written (non-instance kinds are frozen by
    the files themselves: they have no retirement, so the files are their snapshot)."""
    if kind == FileKind.INSTANCES:
        if release_is_published(release=release):
            return published_instance_rows(release=release)
        return release_instance_rows(release=release)
    return dataset_rows(dataset_id=release.dataset_id, kind=kind, content=release.content)


def release_list_for_page(*, dataset_id: int) -> list[Release]:
    """The dataset's releases, newest first, each with its files (one query for all files)
    and a download URL on every file."""
    releases = list(
        Release.objects.filter(dataset_id=dataset_id).prefetch_related("files").order_by("-number")
    )
    for release in releases:
        release.excluded_lines = exclusion_lines(release.counts)
        release.empty_kinds = [KIND_LABELS[kind] for kind in kinds_without_rows(release.counts)]
        export = reverse("release-export", args=[release.pk])
        for release_file in release.files.all():
            release_file.url = f"{export}?format={release_file.format}&kind={release_file.kind}"
        # The data files; the documents (card, citation, changelog) are on the release page.
        release.data_files = [
            f for f in release.files.all() if (f.kind, f.format) not in DOCUMENT_FILES
        ]
    return releases


def release_preview_for_page(*, dataset: Dataset) -> dict[str, Any]:
    """The release form's table: per kind, what a reviewed and an as-published release would
    contain now, and why reviewed leaves rows out."""
    preview = content_preview(dataset=dataset)
    reviewed, everything = preview["reviewed"], preview["as_published"]
    rows = []
    for kind, label in KIND_LABELS.items():
        rows.append(
            {
                "kind": label,
                "reviewed": kind_rows(reviewed, kind),
                "as_published": kind_rows(everything, kind),
            }
        )
    return {"rows": rows, "excluded": exclusion_lines(reviewed)}


def release_stale_for_page(*, dataset: Dataset) -> dict[str, Any] | None:
    """What the release form warns about before the researcher submits: the templates whose
    current version is not instantiated, per content choice (a reviewed release is held up by
    approved versions only), and the dataset's instantiation job still to finish, if any.
    None when nothing is stale."""
    from apps.catalog.jobs import INSTANTIATE
    from apps.catalog.models import ReviewStatus
    from apps.catalog.selectors import template_version_label
    from apps.catalog.services import instantiation_stale
    from apps.core.models import Job

    stale = instantiation_stale(dataset=dataset)
    if not stale:
        return None
    job = (
        Job.objects.filter(
            kind=INSTANTIATE,
            status__in=[Job.Status.QUEUED, Job.Status.RUNNING],
            params__dataset_id=dataset.pk,
        )
        .order_by("-id")
        .first()
    )
    return {
        "as_published": [template_version_label(version=v) for v in stale],
        "reviewed": [
            template_version_label(version=v) for v in stale if v.status == ReviewStatus.APPROVED
        ],
        "job": job,
    }


def release_document_read(*, release: Release, kind: str, file_format: str) -> bytes | None:
    """A stored document's bytes (README.md, card.json, CITATION.cff, changelog.json); None
    for a release made before documents existed. Picks from release.files.all(), so a page
    that prefetched the files reads each document without another query."""
    from django.conf import settings

    row = next((f for f in release.files.all() if (f.kind, f.format) == (kind, file_format)), None)
    if row is None:
        return None
    path = Path(settings.MEDIA_ROOT) / row.path
    return path.read_bytes() if path.is_file() else None


def release_document_json(*, release: Release, kind: str) -> dict[str, Any] | None:
    data = release_document_read(release=release, kind=kind, file_format="json")
    return None if data is None else json.loads(data)


def release_card_html(readme: str) -> str:
    """The card's Markdown body (front matter dropped) as HTML. Raw HTML in the text (the
    researcher's sections, category names) is escaped, not passed through, and links are
    checked by markdown-it (no javascript: URLs)."""
    from markdown_it import MarkdownIt

    match = FRONT_MATTER_RE.match(readme)
    body = readme[match.end() :] if match else readme
    return MarkdownIt("commonmark", {"html": False}).enable("table").render(body)


def release_documents_for_page(*, release: Release) -> dict[str, Any]:
    """The release page's documents: the rendered card, its figures (card.json), the
    changelog (changelog.json) and the files with their download URLs. A release made before
    documents existed has none (empty values)."""
    from django.utils.safestring import mark_safe

    files = {(f.kind, f.format): f for f in release.files.all()}
    export = reverse("release-export", args=[release.pk])
    for release_file in files.values():
        release_file.url = f"{export}?format={release_file.format}&kind={release_file.kind}"
    readme = (release_document_read(release=release, kind="card", file_format="md") or b"").decode(
        "utf-8"
    )
    card_facts = release_document_json(release=release, kind="card") or {}
    changelog = release_document_json(release=release, kind="changelog") or {}
    return {
        "files": sorted(files.values(), key=lambda f: (f.kind, f.format)),
        "card_readme": readme,
        # Safe: markdown-it escaped every raw HTML in the text (release_card_html).
        "card_html": mark_safe(release_card_html(readme)) if readme else "",  # noqa: S308
        "card_facts": card_facts,
        "changelog": changelog,
        # The licence this release's card was written with (frozen), not the dataset's now.
        "license_unknown": card_facts.get("front_matter", {}).get(
            "license", release.dataset.license
        )
        in ("", "unknown"),
    }
