"""Who may do what in the workbench. The pages use the same functions as the API."""

from __future__ import annotations

from rest_framework.permissions import BasePermission

from apps.accounts.roles import is_annotator, is_researcher


def can_annotate(user) -> bool:
    return bool(user and user.is_authenticated and user.is_active and is_annotator(user))


def can_manage(user) -> bool:
    return bool(user and user.is_authenticated and is_researcher(user))


class IsAnnotatorOrResearcher(BasePermission):
    message = "Only annotators and researchers use the annotation workbench."

    def has_permission(self, request, view) -> bool:
        return can_annotate(request.user) or can_manage(request.user)


class IsAnnotator(BasePermission):
    message = "Only annotators submit judgements."

    def has_permission(self, request, view) -> bool:
        return can_annotate(request.user)


class IsResearcher(BasePermission):
    message = "Only researchers and admins can do this."

    def has_permission(self, request, view) -> bool:
        return can_manage(request.user)
