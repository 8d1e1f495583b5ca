"""The researcher's annotation pages: new campaign, its dashboard, adjudication of an item,
people (annotators and their languages) and Table 3. The annotator's pages are in views.py."""

from __future__ import annotations

import math

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from apps.accounts.decorators import (
    researcher_required,
)
from apps.catalog.models import Dataset, Finding, TemplateVersion
from apps.catalog.review import TUPLE_VOTES_RULE
from apps.catalog.versions import template_version_history
from apps.core.errors import KasautiError

from . import reports, rules, selectors, services
from .kinds import campaign_kinds
from .models import Campaign, CampaignItem, Decision

User = get_user_model()

# The template texts an adjudicator may edit on the page: the contexts and questions (the
# answers are not shown there, so a posted form never carries them).
ADJUDICATION_EDIT_FIELDS = tuple(
    field for field in TemplateVersion.TEXT_FIELDS if not field.startswith("answer_")
)


@require_http_methods(["GET", "POST"])
@researcher_required
def campaign_new(request: HttpRequest) -> HttpResponse:
    annotators = User.objects.filter(groups__name="annotator", is_active=True).order_by("username")
    only = (request.POST if request.method == "POST" else request.GET).getlist("only")
    error = ""
    if request.method == "POST":
        try:
            dataset = get_object_or_404(Dataset, pk=int(request.POST.get("dataset") or 0))
            per_item = request.POST.get("annotators_per_item") or None
            campaign = services.campaign_create(
                dataset=dataset,
                kind=request.POST.get("kind", ""),
                name=request.POST.get("name", ""),
                language=request.POST.get("language", ""),
                annotators=list(annotators.filter(pk__in=request.POST.getlist("annotators"))),
                annotators_per_item=int(per_item) if per_item else None,
                sample_size=int(request.POST.get("sample_size") or services.DEFAULT_SAMPLE),
                seed=int(request.POST.get("seed") or 0),
                tier=request.POST.get("tier") or "language",
                created_by=request.user,
                only=[int(pk) for pk in request.POST.getlist("only")] or None,
            )
        except ValueError:
            error = "annotators per item, sample size, seed and chosen items are whole numbers"
        except KasautiError as exc:
            error = str(exc)
        else:
            messages.success(request, f"Campaign “{campaign.name}” created.")
            return redirect("annotation:dashboard", pk=campaign.pk)
    return render(
        request,
        "annotation/campaign_new.html",
        {
            "datasets": Dataset.objects.order_by("name"),
            "kinds": [(kind.name, kind.label) for kind in campaign_kinds()],
            "annotators": [(u, selectors.annotator_languages(user=u)) for u in annotators],
            "error": error,
            # A link may preselect the form (the template studio's "Send to validation":
            # ?dataset=<pk>&kind=template_validation); a refused POST shows what was posted.
            "posted": request.POST if request.method == "POST" else request.GET,
            "posted_annotators": request.POST.getlist("annotators"),
            # Items chosen elsewhere (the template page's "Send to validation": ?only=<id>).
            "only": only,
            "only_named": selectors.campaign_targets_named(
                kind=(request.POST or request.GET).get("kind", ""), ids=only
            ),
        },
        status=400 if error else 200,
    )


def _calibration_plot(calibration: dict) -> dict:
    """SVG coordinates of the calibration plot (frame in dashboard.html: x 0..360, y 0..180):
    the x axis spans the tenths around the similarities judged, wherever they lie in -1..1."""
    sims = [p["similarity"] for p in calibration["points"]]
    low = math.floor(min(sims, default=0.0) * 10) / 10
    high = max(math.ceil(max(sims, default=1.0) * 10) / 10, low + 0.1)

    def x(value: float) -> int:
        return round((value - low) / (high - low) * 360)

    suggested = calibration["suggested_threshold"]
    return {
        "calibration_points": [
            {**p, "x": x(p["similarity"]), "y": round(p["adequacy"] / 5 * 180)}
            for p in calibration["points"]
        ],
        "calibration_threshold_x": None if suggested is None else x(suggested),
        "calibration_xticks": [
            (50 + round(i * 90), f"{low + (high - low) * i / 4:.3g}") for i in range(5)
        ],
        "calibration_yticks": [(200 - 36 * y, str(y)) for y in range(1, 6)],
    }


@require_GET
@researcher_required
def campaign_dashboard(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("dataset"), pk=pk)
    context = {
        "campaign": campaign,
        "progress": selectors.campaign_progress(campaign=campaign),
        "agreement": selectors.campaign_agreement(campaign=campaign),
        "queue": selectors.adjudication_queue(campaign=campaign),
        "tuple_votes": selectors.campaign_tuple_votes(campaign=campaign),
        "tuple_votes_rule": TUPLE_VOTES_RULE,
    }
    if campaign.kind_spec.feeds_calibration:
        calibration = reports.calibration(campaign=campaign)
        context |= {"calibration": calibration, **_calibration_plot(calibration)}
    return render(request, "annotation/dashboard.html", context)


@require_http_methods(["GET", "POST"])
@researcher_required
def item_adjudicate(request: HttpRequest, pk: int) -> HttpResponse:
    item = get_object_or_404(CampaignItem.objects.select_related("campaign"), pk=pk)
    error = ""
    if request.method == "POST":
        findings = {
            int(name.split("_", 1)[1]): value
            for name, value in request.POST.items()
            if name.startswith("finding_") and value in ("resolved", "accepted")
        }
        changes = (
            {"text": rules.form_text(request.POST, "text")}
            if item.context_sentence_id and request.POST.get("verdict") == "edit"
            else {}
        )
        changes |= {
            field: rules.form_text(request.POST, field)
            for field in ADJUDICATION_EDIT_FIELDS
            if request.POST.get("verdict") == "edit"
            and item.template_version_id
            and rules.form_text(request.POST, field) != getattr(item.template_version, field)
        }
        try:
            services.item_decide(
                item=item,
                verdict=request.POST.get("verdict", ""),
                note=request.POST.get("note", ""),
                changes=changes,
                findings=findings,
                decided_by=request.user,
            )
        except KasautiError as exc:
            error = str(exc)
        else:
            messages.success(request, f"Item {item.position + 1}: decision recorded.")
            following = selectors.adjudication_queue(campaign=item.campaign).first()
            if following is not None:
                return redirect("annotation:adjudicate", pk=following.pk)
            return redirect("annotation:dashboard", pk=item.campaign_id)
    context = {
        **selectors.item_context(item=item),
        "rows": _side_by_side(item),
        "decisions": item.decisions.select_related("decided_by", "new_version"),
        "revisions": (
            selectors.sentence_history(context_sentence_id=item.context_sentence_id)
            if item.context_sentence_id
            else []
        ),
        "columns": item.campaign.kind_spec.judgement_columns(),
        "history": _version_history(item),
        "verdicts": Decision.Verdict.choices,
        "error": error,
        "open_status": Finding.Status.OPEN,
    }
    return render(request, "annotation/adjudicate.html", context, status=400 if error else 200)


def _version_history(item: CampaignItem) -> list[dict]:
    """The template's versions, newest first, each with its changes from the previous one and
    the adjudication decisions taken on it (with their notes)."""
    if not item.template_version_id:
        return []
    history = template_version_history(template=item.template_version.template)
    decisions = selectors.template_decisions(template_id=item.template_version.template_id)
    for row in history:
        row["decisions"] = decisions.get(row["version"].pk, [])
    return history


def _side_by_side(item: CampaignItem) -> list[dict]:
    kind = item.campaign.kind_spec
    rows = []
    for a in selectors.item_judgements(item=item):
        answers = a.current.answers if a.done_at and a.current else {}
        cells = kind.judgement_cells(answers)
        rows.append({"annotator": a.annotator.username, "done": bool(a.done_at), "cells": cells})
    return rows


def _site_url(request: HttpRequest) -> str:
    return request.build_absolute_uri("/").rstrip("/")


@require_http_methods(["GET", "POST"])
@researcher_required
def people(request: HttpRequest) -> HttpResponse:
    error, error_status = "", 400
    if request.method == "POST":
        action = request.POST.get("action")
        try:
            if action == "create":
                services.annotator_create(
                    username=request.POST.get("username", ""),
                    email=request.POST.get("email", ""),
                    languages=request.POST.get("languages", "").replace(",", " ").split(),
                    password=request.POST.get("password") or None,
                    invite_base_url=_site_url(request) if request.POST.get("invite") else None,
                )
                messages.success(
                    request,
                    "Annotator created; invitation sent."
                    if request.POST.get("invite")
                    else "Annotator created.",
                )
            else:
                user = get_object_or_404(
                    User, pk=int(request.POST.get("user") or 0), groups__name="annotator"
                )
                if action == "languages":
                    services.annotator_update(
                        user=user,
                        languages=request.POST.get("languages", "").replace(",", " ").split(),
                    )
                elif action == "invite":
                    services.annotator_invite(user=user, base_url=_site_url(request))
                elif action in ("deactivate", "activate"):
                    services.annotator_update(user=user, active=action == "activate")
                messages.success(request, f"{user.username} updated.")
        except (KasautiError, ValueError) as exc:
            error = str(exc)
            error_status = getattr(exc, "status_code", 400)
        else:
            return redirect("annotation:people")
    users = User.objects.filter(groups__name="annotator").order_by("username")
    return render(
        request,
        "annotation/people.html",
        {
            "people": [
                (u, selectors.annotator_languages(user=u), selectors.annotator_manageable(user=u))
                for u in users
            ],
            "error": error,
        },
        status=error_status if error else 200,
    )


@require_GET
@researcher_required
def table3(request: HttpRequest, pk: int) -> HttpResponse:
    dataset = get_object_or_404(Dataset, pk=pk)
    blocks = reports.table3(dataset_id=dataset.pk)
    if request.GET.get("format") == "csv":
        response = HttpResponse(
            reports.Table3CsvWriter().write(blocks), content_type="text/csv; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="table3-{dataset.pk}.csv"'
        return response
    return render(
        request,
        "annotation/table3.html",
        {
            "dataset": dataset,
            "blocks": blocks,
            "columns": reports.COLUMNS,
            "annotator_rule": reports.ANNOTATOR_RULE,
        },
    )
