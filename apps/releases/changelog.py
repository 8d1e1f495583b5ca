"""The changelog of a release against the previous release of its dataset (issue 22).

FIRST CUT, to be completed (issue 22): the shape is final, the figures are not computed yet.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .models import Release


def release_changelog(
    *, release: Release, previous: Release | None, directory: Path
) -> dict[str, Any]:
    return {
        "release": {"id": release.pk, "number": release.number},
        "against": None if previous is None else {"id": previous.pk, "number": previous.number},
        "totals": {"added": 0, "removed": 0, "changed": 0, "unchanged": 0},
        "by_category_language": [],
        "reasons": [],
        "other_kinds": {},
    }
