"""The one NUL guard of every request.

PostgreSQL text cannot hold NUL (U+0000): a value carrying one reaches the database as a lookup
(`?kind=`, a dataset named in a form) or an insert and fails there as a 500. No Kasauti text
needs the character, so it is refused at the boundary, before any view runs, with a 400 that
names where it is: the URL path, a query parameter, a form field or a JSON field (by its path,
`components[0]`). API paths get DRF's validation-error shape (`{"field": ["..."]}`), pages a
plain-text 400.

Multipart bodies are the one part not read here: they may be large uploads that a view refuses
from their Content-Length (or only for some users) before a byte is read. Their fields go
through the same check in the API's multipart parser (`NulSafeMultiPartParser`), which every
API view parses multipart with (apps/core/parsers.py); Django's form fields refuse NUL on
their own (ProhibitNullCharactersValidator)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme

from .errors import BrokerUnavailable

NUL = "\x00"
_SPLIT = re.compile(r"[.\[]")


def nul_message(where: str) -> str:
    return f"{where}: text may not contain the NUL character (U+0000)"


def _printable(name: str) -> str:
    return name.replace(NUL, "\\x00")


def nul_find(value: Any, path: str = "") -> str | None:
    """The path of the first NUL in a parsed JSON value (`a.b`, `items[2]`; "" for the value
    itself), or None."""
    if isinstance(value, str):
        return path if NUL in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if NUL in str(key):
                return _printable(where)
            found = nul_find(item, where)
            if found is not None:
                return found
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = nul_find(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def nul_find_pairs(pairs: Iterable[tuple[str, list[str]]]) -> str | None:
    """The first name whose name or values hold a NUL, in (name, values) pairs (a QueryDict's
    lists())."""
    for key, values in pairs:
        if NUL in key:
            return _printable(key)
        if any(NUL in value for value in values):
            return key
    return None


def nul_errors(where: str) -> dict[str, list[str]]:
    """DRF's validation-error shape: the top-level field (`components` for
    `components[0]`), with the full path in the message."""
    field = _SPLIT.split(where, maxsplit=1)[0] if where else ""
    if not field or NUL in where or "\\x00" in field:
        field = "detail"
    return {field: [nul_message(where or "body")]}


def _body_nul(request: HttpRequest) -> str | None:
    content_type = request.content_type or ""
    is_json = content_type == "application/json" or content_type.endswith("+json")
    if not (is_json or content_type == "application/x-www-form-urlencoded"):
        return None  # multipart: NulSafeMultiPartParser; anything else is no field
    try:
        raw = request.body  # bounded by DATA_UPLOAD_MAX_MEMORY_SIZE; the view reads it anyway
    except (RequestDataTooBig, SuspiciousOperation):
        return None  # the view refuses it as it always did (the stream is left unread)
    if is_json:
        if b"\\u0000" not in raw and b"\x00" not in raw:
            return None
        try:
            data = json.loads(raw)
        except ValueError:
            return None  # not JSON: the parser's 400 says so
        return nul_find(data)
    if b"%00" not in raw and b"\x00" not in raw:
        return None
    try:
        form = QueryDict(raw, encoding=request.encoding)
    except SuspiciousOperation:
        return None
    return nul_find_pairs(form.lists())


def request_nul_find(request: HttpRequest) -> tuple[str, dict[str, list[str]]] | None:
    """(message, errors) for the first NUL in the request's path, query or body, or None."""
    if NUL in request.path:
        message = nul_message("the URL path")
        return message, {"detail": [message]}
    query = request.META.get("QUERY_STRING", "")
    if "%00" in query or NUL in query:
        where = nul_find_pairs(request.GET.lists())
        if where is not None:
            return nul_message(f"query parameter {where}"), nul_errors(where)
    where = _body_nul(request)
    if where is not None:
        return nul_message(where or "body"), nul_errors(where)
    return None


class NulGuardMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        found = request_nul_find(request)
        if found is None:
            return self.get_response(request)
        message, errors = found
        if request.path.startswith("/api/"):
            if list(errors) == ["detail"]:
                return JsonResponse({"detail": errors["detail"][0]}, status=400)
            return JsonResponse(errors, status=400)
        return HttpResponse(
            f"Bad request: {message}.", status=400, content_type="text/plain; charset=utf-8"
        )


class BrokerUnavailableMiddleware:
    """A page whose request queues a job answers 503 with the reason when the task broker is
    down (the API does the same through its exception handler); the job is already failed
    with that reason (apps.core.services.task_send)."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception):
        if not isinstance(exception, BrokerUnavailable) or request.path.startswith("/api/"):
            return None
        back = request.META.get("HTTP_REFERER", "")
        if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
            back = "/"
        job_url = reverse("jobs:detail", args=[exception.job_id]) if exception.job_id else ""
        return render(
            request,
            "core/unavailable.html",
            {"message": str(exception), "back": back, "job_url": job_url},
            status=503,
        )
