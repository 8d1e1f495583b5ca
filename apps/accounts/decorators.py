"""Page access rules: the same rules as the API's permission classes (permissions.py), for
server-rendered views. Every app's pages use these; none keeps its own copy."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse

from .roles import is_active_annotator, is_researcher, is_workbench_member, user_roles

View = Callable[..., HttpResponse]


def role_required(view: View) -> View:
    """Signed in and holding a Kasauti role; the same rule as the API's HasRole."""

    @login_required
    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not user_roles(request.user):
            raise PermissionDenied("Your account has no Kasauti role.")
        return view(request, *args, **kwargs)

    return wrapped


def researcher_required(view: View) -> View:
    """A researcher or admin; the same rule as the API's IsResearcher. Buttons are hidden from
    annotators, but the server decides: a POST by an annotator is refused here."""

    @role_required
    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not is_researcher(request.user):
            raise PermissionDenied("Only researchers and admins can do this.")
        return view(request, *args, **kwargs)

    return wrapped


def annotator_required(view: View) -> View:
    """An active annotator; the same rule as the API's IsAnnotator."""

    @login_required
    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not is_active_annotator(request.user):
            raise PermissionDenied("Only annotators work on annotation items.")
        return view(request, *args, **kwargs)

    return wrapped


def annotator_or_researcher_required(view: View) -> View:
    """Annotators and researchers; the same rule as the API's IsAnnotatorOrResearcher."""

    @login_required
    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not is_workbench_member(request.user):
            raise PermissionDenied("The workbench is for annotators and researchers.")
        return view(request, *args, **kwargs)

    return wrapped
