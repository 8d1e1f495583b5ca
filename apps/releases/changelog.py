"""The changelog of a release against the previous release of its dataset (issue 22).

FIRST CUT, to be completed (issue 22): the shape is final, the figures are not computed yet.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .models import Release
from .registry import CardContext, CardSection


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


def changelog_markdown(changelog: dict[str, Any]) -> str:
    """The card's "Changes since the previous release" section (first cut)."""
    against = changelog.get("against")
    if not against:
        return "This is the dataset's first release.\n"
    totals = changelog["totals"]
    return (
        f"Against release {against['number']}: {totals['added']:,} instances added, "
        f"{totals['removed']:,} removed, {totals['changed']:,} changed.\n"
    )


def _changes_facts(context: CardContext) -> dict[str, Any]:
    return context.changelog


# Registered by apps/releases/card_sections.py.
CHANGES_SECTION = CardSection(
    name="changes", part="changes", order=10, facts=_changes_facts, render=changelog_markdown
)
