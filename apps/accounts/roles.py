"""Roles are Django groups; these names are the only ones the code checks."""

from __future__ import annotations

ANNOTATOR = "annotator"
RESEARCHER = "researcher"
ADMIN = "admin"
ROLES = (ANNOTATOR, RESEARCHER, ADMIN)


def remember_roles(user, groups: set[str]) -> None:
    """Role groups read together with `user` (authentication.TokenAuthentication), so that
    user_roles needs no query of its own for this user object (one request's)."""
    user._kasauti_role_groups = frozenset(groups)


def user_roles(user) -> set[str]:
    if not user or not user.is_authenticated:
        return set()
    known = getattr(user, "_kasauti_role_groups", None)
    if known is not None:
        roles = set(known)
    else:
        roles = set(user.groups.filter(name__in=ROLES).values_list("name", flat=True))
    if user.is_superuser:
        roles.add(ADMIN)
    return roles


def is_researcher(user) -> bool:
    """Researchers (and admins) edit the catalog, run jobs and make releases."""
    return bool(user_roles(user) & {RESEARCHER, ADMIN})


def is_annotator(user) -> bool:
    return ANNOTATOR in user_roles(user)


def is_active_annotator(user) -> bool:
    """An annotator whose account is active: the only users who are given items to judge."""
    return bool(user and user.is_authenticated and user.is_active and is_annotator(user))


def is_workbench_member(user) -> bool:
    """Annotators and researchers: the people who use the annotation workbench."""
    return is_active_annotator(user) or is_researcher(user)
