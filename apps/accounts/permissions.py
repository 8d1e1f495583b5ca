"""API permissions. Checked on the server for every request; the UI only hides buttons."""

from __future__ import annotations

from rest_framework.permissions import SAFE_METHODS, BasePermission

from .roles import is_active_annotator, is_researcher, is_workbench_member, user_roles


class HasRole(BasePermission):
    """Any signed-in user with one of the Kasauti roles."""

    message = "Your account has no Kasauti role (annotator, researcher or admin)."

    def has_permission(self, request, view) -> bool:
        return bool(user_roles(request.user))


class ResearcherOrReadOnly(BasePermission):
    """Everyone with a role reads; only researchers and admins change anything (the catalog,
    releases, translation jobs)."""

    message = "Only researchers and admins can make changes; your role can only read."

    def has_permission(self, request, view) -> bool:
        if not user_roles(request.user):
            return False
        if request.method in SAFE_METHODS:
            return True
        return is_researcher(request.user)


class IsResearcher(BasePermission):
    message = "Only researchers and admins can do this."

    def has_permission(self, request, view) -> bool:
        return is_researcher(request.user)


class IsAnnotator(BasePermission):
    message = "Only annotators submit judgements."

    def has_permission(self, request, view) -> bool:
        return is_active_annotator(request.user)


class IsAnnotatorOrResearcher(BasePermission):
    message = "Only annotators and researchers use the annotation workbench."

    def has_permission(self, request, view) -> bool:
        return is_workbench_member(request.user)
