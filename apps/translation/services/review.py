"""Review facts on translated instances, and corrections that rewrite them.

A translated catalog Instance carries its review facts in `Instance.review` (written here, read
by releases through catalog fields only): whether every string it is made of passed the
back-translation similarity check ("passed"), some did not and no human has corrected them yet
("flagged"), or every flagged string was confirmed or corrected by a human ("corrected"); the
lowest similarity of its strings, the threshold, and the model versions.

An accepted correction never edits an instance in place: every live translated instance that
uses the corrected string is replaced by a new revision (a new row, `review.revision` + 1,
`review.replaces` = the old id) and the old row is retired, so the machine output and each
edit stay in the catalog with who and when (`review.corrections`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from apps.catalog.bulk import (
    INSTANCE_COLUMNS,
    INSTANCE_TEXT_COLUMNS,
    TRANSLATED_INSTANCE_COLUMNS,
    instance_row,
    instances_insert,
)
from apps.catalog.models import Instance

from ..models import CorrectionItem, TranslatedString
from ..selectors import WHOLE_STRING_COLUMNS

PASSED, FLAGGED, CORRECTED = "passed", "flagged", "corrected"


def resolved_corrections(*, language: str, string_ids: Iterable[int]) -> dict[int, str]:
    """Translated string id -> the human's accepted text, for the resolved low-similarity items
    among `string_ids`."""
    return dict(
        CorrectionItem.objects.filter(
            language=language,
            translated_string_id__in=list(string_ids),
            status=CorrectionItem.Status.RESOLVED,
        ).values_list("translated_string_id", "corrected_text")
    )


def review_facts(
    *, strings: Iterable[TranslatedString], threshold: float, corrected: Mapping[int, str]
) -> dict[str, Any]:
    """The review facts of one translated instance made of `strings`."""
    strings = list(strings)
    below = [s for s in strings if s.similarity < threshold]
    flagged = sorted(s.source_text for s in below if s.pk not in corrected)
    fixed = sorted(s.source_text for s in below if s.pk in corrected)
    first = strings[0] if strings else None
    return {
        "status": FLAGGED if flagged else CORRECTED if fixed else PASSED,
        "similarity": round(min((s.similarity for s in strings), default=1.0), 4),
        "threshold": threshold,
        "flagged": flagged,
        "corrected": fixed,
        "forward_model_version": first.forward_model_version if first else "",
        "backward_model_version": first.backward_model_version if first else "",
        "embedder_version": first.embedder_version if first else "",
        "revision": 1,
    }


def _replace_part(text: str, old: str, new: str) -> str:
    """`text` with the translated unit `old` (the whole text, or the first or last part of a
    joined context) replaced by `new`."""
    if text == old:
        return new
    if text.startswith(old + " "):
        return new + text[len(old) :]
    if text.endswith(" " + old):
        return text[: -len(old)] + new
    return text


def _source_uses(source: Mapping[str, Any], source_text: str) -> bool:
    if any(source[column] == source_text for column in WHOLE_STRING_COLUMNS):
        return True
    context = source["context"]
    return (
        context == source_text
        or context.startswith(source_text + " ")
        or context.endswith(" " + source_text)
    )


def _revise(
    old: Mapping[str, Any], changes: Mapping[str, str], review: dict[str, Any], now
) -> tuple:
    review = {
        **review,
        "revision": int(review.get("revision", 1)) + 1,
        "replaces": old["id"],
    }
    return instance_row(
        {**old, **changes, "review": review, "retired_at": None, "created_at": now},
        columns=TRANSLATED_INSTANCE_COLUMNS,
    )


def _correction_note(item: CorrectionItem, author, now) -> dict[str, Any]:
    return {
        "item": item.pk,
        "by": author.username if author else "",
        # What release outputs name the corrector by (apps.accounts.pseudonyms), never "by".
        "by_id": author.pk if author else None,
        "at": now.isoformat(),
    }


def translated_instances_revise(*, item: CorrectionItem, author=None) -> list[int]:
    """After `item` was resolved: replace every live translated instance that uses its text by
    a new revision carrying the accepted text and updated review facts. Returns the new ids.
    Runs in the caller's transaction."""
    now = timezone.now()
    note = _correction_note(item, author, now)
    if item.instance_id:  # an option mismatch: the human rewrote this instance's context
        old = Instance.objects.filter(pk=item.instance_id, retired_at__isnull=True)
        rows = list(old.values("id", "review", *INSTANCE_COLUMNS))
        if not rows:
            return []
        review = {
            **rows[0]["review"],
            "corrections": [*rows[0]["review"].get("corrections", []), note],
        }
        new_rows = [_revise(rows[0], {"context": item.corrected_text}, review, now)]
        return _replace(rows, new_rows, now)
    string = item.translated_string
    previous = (
        item.revisions.order_by("-created_at", "-id")
        .values_list("previous_text", flat=True)
        .first()
    )
    current = previous or string.translation  # the text the live rows carry now
    text_filter = Q()
    for column in WHOLE_STRING_COLUMNS:
        text_filter |= Q(**{column: current})
    text_filter |= (
        Q(context=current)
        | Q(context__startswith=current + " ")
        | Q(context__endswith=" " + current)
    )
    candidates = list(
        Instance.objects.filter(
            text_filter,
            language=item.language,
            source_instance__isnull=False,
            retired_at__isnull=True,
        ).values("id", "review", *INSTANCE_COLUMNS)
    )
    sources = {
        row["id"]: row
        for row in Instance.objects.filter(
            pk__in=[row["source_instance_id"] for row in candidates]
        ).values("id", *INSTANCE_TEXT_COLUMNS)
    }
    rows, new_rows = [], []
    for row in candidates:
        if not _source_uses(sources[row["source_instance_id"]], string.source_text):
            continue  # another English string with the same translation
        changes = {
            field: _replace_part(row[field], current, item.corrected_text)
            for field in INSTANCE_TEXT_COLUMNS
        }
        review = dict(row["review"])
        flagged = [t for t in review.get("flagged", []) if t != string.source_text]
        corrected = sorted({*review.get("corrected", []), string.source_text})
        if string.similarity >= review.get("threshold", 0):
            corrected = review.get("corrected", [])  # a passed string edited: still passed
        review |= {
            "flagged": flagged,
            "corrected": corrected,
            "status": FLAGGED if flagged else CORRECTED if corrected else PASSED,
            "corrections": [*review.get("corrections", []), note],
        }
        review.pop("backfilled", None)
        rows.append(row)
        new_rows.append(_revise(row, changes, review, now))
    return _replace(rows, new_rows, now)


def _replace(old_rows: list[dict], new_rows: list[tuple], now) -> list[int]:
    if not old_rows:
        return []
    with transaction.atomic():
        ids = [row["id"] for row in old_rows]
        Instance.objects.filter(pk__in=ids).update(retired_at=now)
        instances_insert(new_rows, columns=TRANSLATED_INSTANCE_COLUMNS)
        return list(
            Instance.objects.filter(retired_at__isnull=True, review__replaces__in=ids).values_list(
                "id", flat=True
            )
        )


def instance_revisions(*, instance: Instance) -> list[dict[str, Any]]:
    """An instance's revisions, oldest first (following `review.replaces` back)."""
    chain, current = [], instance
    while current is not None:
        chain.append(current)
        replaces = (current.review or {}).get("replaces")
        current = Instance.objects.filter(pk=replaces).first() if replaces else None
    return [
        {
            "id": row.pk,
            "revision": (row.review or {}).get("revision", 1),
            "context": row.context,
            "question": row.question,
            "answers": row.answers,
            "status": (row.review or {}).get("status", ""),
            "corrections": (row.review or {}).get("corrections", []),
            "retired_at": row.retired_at,
            "created_at": row.created_at,
        }
        for row in reversed(chain)
    ]
