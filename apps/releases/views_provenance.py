"""An instance's provenance page (issue 22). To be built."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse


def instance_provenance(request: HttpRequest, pk: int) -> HttpResponse:
    raise Http404("not built yet")
