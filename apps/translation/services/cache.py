"""The translation cache: TranslatedString rows are keyed by (text hash, language, model
versions); a string stored once is never translated again by the same models."""

from __future__ import annotations

from ..models import TranslatedString

# Hash lists in IN (...) queries are cut to this size.
QUERY_BATCH = 5000


def cached_hashes(*, hashes: list[str], language: str, model_version: str) -> dict[str, int]:
    found: dict[str, int] = {}
    for start in range(0, len(hashes), QUERY_BATCH):
        batch = hashes[start : start + QUERY_BATCH]
        found.update(
            (h, pk)
            for pk, h in TranslatedString.objects.filter(
                language=language, model_version=model_version, text_hash__in=batch
            ).values_list("id", "text_hash")
        )
    return found
