"""Release pages: a dataset's releases with their files, and the button that freezes a new one.
Views check access and call a selector or a service; the rules live there."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET

from apps.accounts.decorators import researcher_required, role_required
from apps.accounts.roles import is_researcher
from apps.catalog.models import Dataset
from apps.core.error_pages import post_form

from .models import ContentMode, Release
from .selectors import (
    release_documents_for_page,
    release_list_for_page,
    release_preview_for_page,
    release_stale_for_page,
)
from .services import release_create_async


@require_GET
@role_required
def release_list(request: HttpRequest, pk: int) -> HttpResponse:
    dataset = get_object_or_404(Dataset, pk=pk)
    can_release = is_researcher(request.user)
    return render(
        request,
        "releases/release_list.html",
        {
            "dataset": dataset,
            "releases": release_list_for_page(dataset_id=dataset.pk),
            "can_release": can_release,
            # What each content choice would contain now, shown next to the choice.
            "preview": release_preview_for_page(dataset=dataset) if can_release else None,
            # Templates whose current version is not instantiated yet (issue 18, 2.1).
            "stale": release_stale_for_page(dataset=dataset) if can_release else None,
        },
    )


@post_form("freezes the dataset into a new numbered release (a background job)")
@researcher_required
def release_create(request: HttpRequest, pk: int) -> HttpResponse:
    """Freeze the dataset into a new release, as a background job."""
    dataset = get_object_or_404(Dataset, pk=pk)
    content = request.POST.get("content", ContentMode.REVIEWED)
    if content not in ContentMode.values:
        return HttpResponseBadRequest(f"content: {content!r} is not one of reviewed, as_published")
    job = release_create_async(dataset=dataset, requested_by=request.user, content=content)
    return redirect("jobs:detail", pk=job.pk)


@require_GET
@role_required
def release_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """One release: its dataset card (rendered), its changelog against the previous release
    and its files."""
    release = get_object_or_404(Release.objects.select_related("dataset"), pk=pk)
    return render(
        request,
        "releases/release_detail.html",
        {
            "release": release,
            "dataset": release.dataset,
            "can_release": is_researcher(request.user),
            **release_documents_for_page(release=release),
        },
    )
