"""Kasauti's own error pages for every page address, also with DEBUG on (`make run`).

Without DEBUG, Django already renders templates/404.html, 403.html and 500.html (through
kasauti.urls' handlers, which answer JSON under /api/). With DEBUG on it shows its debug pages
instead; ErrorPagesMiddleware puts the app's pages back there too, unless
KASAUTI_DJANGO_DEBUG_PAGES is set (then Django's debug pages, for developers; a 500's
traceback is always in the server log). A GET on an address that only takes a form's POST
(and any other method a view refuses) answers Django's empty 405; the middleware turns it into
a page that says what the address is for and links to the page with the form."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import Resolver404, resolve
from django.views.decorators.http import require_POST

from .views import not_found, server_error

logger = logging.getLogger("django.request")

View = Callable[..., HttpResponse]


def post_form(purpose: str) -> Callable[[View], View]:
    """require_POST for an address a form posts to, saying what it does: a GET there gets the
    405 page with `purpose` (e.g. "registers a model for evaluation runs") and a link to the
    page one level up, where the form is."""

    def decorator(view: View) -> View:
        view = require_POST(view)
        view.post_form_purpose = purpose
        return view

    return decorator


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def _form_page(path: str) -> str:
    """The nearest page above `path` (/evaluation/models/new/ -> /evaluation/models/; from
    /vocabularies/unknown-answers/5/delete/, where .../5/ is no address and .../unknown-answers/
    only takes a form's POST, -> /vocabularies/), where the form is; else the home page."""
    parent = path
    while parent.strip("/"):
        parent = parent.rstrip("/").rsplit("/", 1)[0] + "/"
        try:
            match = resolve(parent)
        except Resolver404:
            continue
        if not hasattr(match.func, "post_form_purpose"):
            return parent
    return "/"


def method_not_allowed(request: HttpRequest, refused: HttpResponse) -> HttpResponse:
    match = request.resolver_match
    purpose = getattr(match.func, "post_form_purpose", "") if match else ""
    allowed = [m.strip() for m in refused.get("Allow", "").split(",") if m.strip()]
    response = render(
        request,
        "405.html",
        {
            "method": request.method,
            "allowed": allowed,
            "purpose": purpose,
            "form_url": _form_page(request.path),
        },
        status=405,
    )
    response["Allow"] = refused.get("Allow", "")
    return response


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: the 403 page with what to do, instead of Django's technical one."""
    return render(
        request,
        "403.html",
        {
            "exception": "The form could not be checked (it was open too long, or this "
            "browser blocks cookies for this site). Go back, reload the page and send the "
            "form again."
        },
        status=403,
    )


def _debug_pages_wanted() -> bool:
    return not settings.DEBUG or getattr(settings, "KASAUTI_DJANGO_DEBUG_PAGES", False)


class ErrorPagesMiddleware:
    """Near the end of MIDDLEWARE, so CommonMiddleware still sees a 404 to add a missing slash."""

    def __init__(self, get_response: View) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            response.status_code == 404
            and request.resolver_match is None  # no route: Django's debug "URLconf" page
            and not _debug_pages_wanted()
        ):
            return not_found(request, Http404(request.path))  # JSON under /api/
        if response.status_code == 405 and not response.content and not _is_api(request):
            return method_not_allowed(request, response)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception):
        if _debug_pages_wanted():
            return None  # Django's own handling (its handlers without DEBUG)
        if isinstance(exception, Http404):
            return not_found(request, exception)
        if isinstance(exception, (PermissionDenied, BadRequest, SuspiciousOperation)):
            return None  # Django answers these with its 403/400 handlers, also with DEBUG
        logger.error("Internal Server Error: %s", request.path, exc_info=exception)
        response = server_error(request)
        response._has_been_logged = True  # the traceback is logged above, once
        return response
