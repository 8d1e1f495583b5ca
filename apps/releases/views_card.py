"""The dataset card's own texts and licence, edited on the dataset (issue 22). To be built."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse


def dataset_card_edit(request: HttpRequest, pk: int) -> HttpResponse:
    raise Http404("not built yet")
