"""The annotator's pages: the campaign list, the work page (one item at a time), undo and the
correction queue. The researcher's pages are in views_manage.py. Views check access, call a
selector or a service and render; the rules live in services/selectors. Every decision has a
keyboard shortcut (static/annotation/)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from apps.accounts.decorators import (
    annotator_or_researcher_required,
    annotator_required,
)
from apps.accounts.roles import is_researcher
from apps.catalog.models import LANGUAGE_NAMES
from apps.core.error_pages import post_form
from apps.core.errors import KasautiError
from apps.translation.selectors import string_occurrences

from . import corrections, rules, selectors, services
from .models import Assignment, Campaign

User = get_user_model()


@require_GET
@annotator_or_researcher_required
def campaign_list(request: HttpRequest) -> HttpResponse:
    campaigns = list(selectors.campaign_list_for(user=request.user))
    open_counts = selectors.annotator_open_counts(annotator=request.user)
    for campaign in campaigns:
        campaign.pending_for_me = open_counts.get(campaign.pk, 0)
    return render(
        request,
        "annotation/campaign_list.html",
        {"campaigns": campaigns, "manage": is_researcher(request.user)},
    )


@require_GET
@annotator_required
def campaign_work(request: HttpRequest, pk: int) -> HttpResponse:
    assignment = selectors.assignment_next_for_page(campaign_id=pk, annotator=request.user)
    if assignment is None:
        campaign = get_object_or_404(Campaign, pk=pk, annotators=request.user)
        return render(
            request,
            "annotation/done.html",
            {
                "campaign": campaign,
                "undo_target": selectors.assignment_undoable(
                    campaign_id=campaign.pk, annotator=request.user
                ),
                "undo_key": rules.new_idempotency_key(),
            },
        )
    # Rendered here rather than redirected: the next item costs one round trip (P8).
    services.assignment_open(assignment=assignment)
    return render(request, "annotation/work.html", _work_context(request, assignment))


def _work_context(request: HttpRequest, assignment: Assignment, error: str = "") -> dict:
    campaign = assignment.campaign
    summary = selectors.assignment_position_summary(assignment=assignment)
    current = assignment.current
    answers = current.answers if current is not None and current.action != "undo" else {}
    return {
        "assignment": assignment,
        "campaign": campaign,
        "kind": campaign.kind_spec,
        "answers": answers,
        "posted": request.POST if error else None,
        "error": error,
        "prev_position": summary["prev"],
        "next_position": summary["next"],
        "key": rules.new_idempotency_key(),
        "undo_key": rules.new_idempotency_key(),
        # The annotator's last submission in the campaign, undoable from any item (4.4).
        "undo_target": selectors.assignment_undoable(
            campaign_id=campaign.pk, annotator=assignment.annotator
        ),
        **campaign.kind_spec.work_context(),
        "done": summary["done"],
        "total": summary["total"],
        "language_name": LANGUAGE_NAMES.get(campaign.language, campaign.language),
        **selectors.item_context(item=assignment.item),
    }


@require_http_methods(["GET", "POST"])
@annotator_required
def assignment_work(request: HttpRequest, pk: int) -> HttpResponse:
    # Only the annotator's own assignments exist for them: anything else is a 404.
    assignment = get_object_or_404(
        Assignment.objects.select_related(*selectors.PAGE_RELATED),
        pk=pk,
        annotator=request.user,
    )
    if request.method == "POST":
        answers = assignment.campaign.kind_spec.answers_from_form(request.POST)
        try:
            services.judgement_submit(
                assignment_id=assignment.pk,
                annotator=request.user,
                answers=answers,
                idempotency_key=request.POST.get("idempotency_key", ""),
            )
        except KasautiError as exc:
            context = _work_context(request, assignment, error=str(exc))
            return render(request, "annotation/work.html", context, status=exc.status_code)
        messages.success(request, f"Saved item {assignment.position + 1}.")
        return redirect("annotation:campaign-work", pk=assignment.campaign_id)
    services.assignment_open(assignment=assignment)
    return render(request, "annotation/work.html", _work_context(request, assignment))


@require_GET
@annotator_required
def assignment_at(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """The annotator's own item number `number` of the campaign (the j/k links): the number
    the page shows as "Item <number>" (1-based; the stored position is number - 1)."""
    assignment = selectors.assignment_at(
        campaign_id=pk, annotator=request.user, position=number - 1
    )
    if assignment is None:
        raise Http404("no item of yours at this position")
    services.assignment_open(assignment=assignment)
    return render(request, "annotation/work.html", _work_context(request, assignment))


@post_form("undoes your last judgement in this assignment")
@annotator_required
def assignment_undo(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        services.judgement_undo(
            assignment_id=pk,
            annotator=request.user,
            idempotency_key=request.POST.get("idempotency_key", ""),
        )
    except KasautiError as exc:
        messages.error(request, str(exc))
    else:
        messages.info(request, "Your last submission was undone; it stays in the history.")
    return redirect("annotation:assignment", pk=pk)


# --- researchers ----------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@annotator_or_researcher_required
def correction_work(request: HttpRequest) -> HttpResponse:
    """The next open flagged translation of a language (or the one asked for with ?item=):
    English source, machine translation, back-translation and similarity; confirm or edit."""
    language = request.GET.get("language", "")
    queue = corrections.correction_queue_for(user=request.user, language=language)
    error = ""
    if request.method == "POST":
        item = get_object_or_404(
            corrections.correction_queue_for(user=request.user, status=""),
            pk=int(request.POST.get("item") or 0),
        )
        try:
            corrections.correction_apply(
                item=item,
                action=request.POST.get("action", ""),
                text=rules.form_text(request.POST, "text"),
                note=request.POST.get("note", ""),
                author=request.user,
            )
        except KasautiError as exc:
            error = str(exc)
        else:
            messages.success(request, f"Correction {item.pk} saved.")
            return redirect(f"{request.path}?language={language}")
    elif request.GET.get("item"):
        item = get_object_or_404(
            corrections.correction_queue_for(user=request.user, status=""),
            pk=int(request.GET["item"]) if request.GET["item"].isdigit() else 0,
        )
    else:
        item = queue.filter(translated_string__isnull=False).first()
    languages = sorted(
        set(
            corrections.correction_queue_for(user=request.user)
            .values_list("language", flat=True)
            .distinct()
        )
    )
    return render(
        request,
        "annotation/correction.html",
        {
            "item": item,
            "language": language,
            "languages": [(code, LANGUAGE_NAMES.get(code, code)) for code in languages],
            "open_count": queue.count(),
            "history": corrections.correction_history(item=item) if item else [],
            "occurrences": (
                string_occurrences(
                    string=item.translated_string,
                    dataset_id=item.job.dataset_id if item.job_id else None,
                )
                if item and item.translated_string_id
                else None
            ),
            "machine": corrections.machine_text(item) if item else "",
            "error": error,
        },
        status=400 if error else 200,
    )
