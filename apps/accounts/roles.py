"""Roles are Django groups; these names are the only ones the code checks."""

from __future__ import annotations

ANNOTATOR = "annotator"
RESEARCHER = "researcher"
ADMIN = "admin"
ROLES = (ANNOTATOR, RESEARCHER, ADMIN)


def user_roles(user) -> set[str]:
    if not user or not user.is_authenticated:
        return set()
    roles = set(user.groups.filter(name__in=ROLES).values_list("name", flat=True))
    if user.is_superuser:
        roles.add(ADMIN)
    return roles


def is_researcher(user) -> bool:
    """Researchers (and admins) edit the catalog, run jobs and make releases."""
    return bool(user_roles(user) & {RESEARCHER, ADMIN})


def is_annotator(user) -> bool:
    return ANNOTATOR in user_roles(user)
