"""The documents written with a release's files (issue 22): the changelog against the previous
release, the dataset card (README.md in the Hub's format and card.json, the figures it was
written from) and CITATION.cff. Written once, inside release_create's transaction, into the
release's directory, each recorded as a ReleaseFile with its checksum like the tables."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from django.db import connection

from .card import release_card
from .changelog import release_changelog
from .models import DOCUMENT_FILES, Release, ReleaseFile, ReleaseInstance


def release_documents_write(
    *, release: Release, previous: Release | None, directory: Path, relative_dir: str
) -> list[ReleaseFile]:
    """Write changelog.json, README.md, card.json and CITATION.cff; return their rows."""
    if connection.vendor == "postgresql":
        # The sections' queries join the membership rows just inserted, of which the planner
        # knows nothing yet (it guesses a few thousand where there are hundreds of thousands
        # and probes row by row: 1.5 s instead of 0.2 s for the card at 400,000 instances).
        # ANALYZE counts this transaction's own rows too.
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {ReleaseInstance._meta.db_table}")
    changelog = release_changelog(release=release, previous=previous, directory=directory)
    card = release_card(
        release=release, previous=previous, changelog=changelog, directory=directory
    )
    contents: dict[tuple[str, str], bytes] = {
        ("changelog", "json"): _json_bytes(changelog),
        ("card", "md"): card.readme.encode("utf-8"),
        ("card", "json"): _json_bytes(card.facts),
        ("citation", "cff"): card.citation.encode("utf-8"),
    }
    files = []
    for (kind, file_format), data in contents.items():
        name = DOCUMENT_FILES[(kind, file_format)]
        with open(directory / name, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        files.append(
            ReleaseFile(
                release=release,
                kind=kind,
                format=file_format,
                path=f"{relative_dir}/{name}",
                sha256=hashlib.sha256(data).hexdigest(),
                size=len(data),
                rows=_rows(kind, changelog, card.facts),
            )
        )
    return files


def _json_bytes(value: dict[str, Any]) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=1, sort_keys=False) + "\n").encode()


def _rows(kind: str, changelog: dict[str, Any], facts: dict[str, Any]) -> int:
    """A document's `rows`: the changes it lists (changelog), else 1 (one document)."""
    if kind == "changelog":
        totals = changelog.get("totals", {})
        return sum(totals.get(key, 0) for key in ("added", "removed", "changed"))
    return 1
