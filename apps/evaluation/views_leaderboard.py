"""The leaderboard page: rows of the latest complete BBQ-style runs (filter, order, CSV), two
runs' heat maps side by side, and "evaluate every registered model on this release".

Server-rendered, no script: sorting is a link per column header, the filters and the heat-map
choice are GET forms (every state of the page is an address that can be shared), and the CSV
link is the API's download with the same query, so the file holds exactly the rows shown."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from apps.accounts.decorators import researcher_required, role_required
from apps.accounts.roles import is_researcher
from apps.core.error_pages import post_form
from apps.core.errors import KasautiError
from apps.releases.models import Release

from . import leaderboard
from .forms import ReleaseChoice
from .metrics.bbq import METRIC_KEYS, METRIC_NAMES
from .models import InstructionLanguage
from .services.batch import model_eligibility_list, release_evaluate_all

# Rows drawn on the page (the CSV has every row of the query).
PAGE_ROWS = 500
DEFAULT_HEAT_MAP_METRIC = "bs_a"


class EvaluateAllForm(forms.Form):
    release = ReleaseChoice(
        queryset=Release.objects.select_related("dataset").order_by("dataset__name", "-number"),
        empty_label="Choose a release",
    )
    shots = forms.TypedChoiceField(
        choices=[(0, "Zero-shot"), (2, "Two-shot")], coerce=int, initial=0
    )
    instruction_language = forms.ChoiceField(
        choices=InstructionLanguage.choices, initial=InstructionLanguage.ENGLISH
    )


def _href(params: dict[str, Any], anchor: str = "") -> str:
    query = urlencode(params, doseq=True)
    return reverse("evaluation:leaderboard") + (f"?{query}" if query else "") + anchor


def _columns(query: leaderboard.LeaderboardQuery, keep: dict[str, Any]) -> list[dict[str, Any]]:
    """The table's sortable headers: each links to the board ordered by it (ascending first,
    then descending), keeping the filters and the heat-map choice."""
    labels = {
        "model": "Model",
        "dataset": "Dataset",
        "release": "Release",
        "language": "Language",
        "setting": "Prompt setting",
        "n_amb": "n_amb",
        "n_dis": "n_dis",
        "n_nnp": "n_nnp",
        **METRIC_NAMES,
    }
    columns = []
    for key in ("model", "release", "language", "setting", "n_amb", "n_dis", "n_nnp"):
        columns.append({"key": key, "label": labels[key], "numeric": key.startswith("n_")})
    for key in METRIC_KEYS:
        columns.append(
            {"key": key, "label": labels[key], "numeric": True, "n": leaderboard.METRIC_N[key]}
        )
    for column in columns:
        current = query.order_key == column["key"]
        ordering = f"-{column['key']}" if current and not query.descending else column["key"]
        column["href"] = _href({**query.params(ordering=ordering), **keep}, "#board")
        column["sorted"] = (
            ("descending" if query.descending else "ascending") if current else "none"
        )
    return columns


def _display_rows(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows with their figure cells; each distinct reason for an undefined figure is numbered
    once and listed under the table (a tooltip alone is out of reach on a touch screen)."""
    reasons: list[str] = []
    shown = []
    for row in rows:
        cells = []
        for key in METRIC_KEYS:
            value = row[key]
            reason = row["undefined"].get(key, "") if value is None else ""
            if value is None:
                reason = reason or "not computed for this run"
                if reason not in reasons:
                    reasons.append(reason)
            cells.append(
                {
                    "key": key,
                    "value": value,
                    "n": row.get(leaderboard.METRIC_N[key]),
                    "reason": reason,
                    "note": reasons.index(reason) + 1 if value is None else None,
                }
            )
        shown.append({**row, "cells": cells})
    return shown, reasons


def _heat_maps(request: HttpRequest) -> dict[str, Any]:
    """The side-by-side heat maps asked for with ?runs=A,B&metric=... (none asked: none)."""
    metric = request.GET.get("metric") or DEFAULT_HEAT_MAP_METRIC
    context: dict[str, Any] = {"metric": metric, "run_ids": [], "maps": None, "error": ""}
    try:
        ids = leaderboard.run_ids_parse(request.GET.getlist("runs"))
        context["run_ids"] = ids
        if ids:
            context["maps"] = leaderboard.heat_maps_side_by_side(run_ids=ids, metric=metric)
    except leaderboard.HeatMapsError as exc:
        context["error"] = str(exc)
    return context


def _page(
    request: HttpRequest, *, form: EvaluateAllForm | None = None, status: int = 200
) -> HttpResponse:
    everything = leaderboard.leaderboard_rows()
    query = leaderboard.leaderboard_query(request.GET)
    rows = leaderboard.leaderboard_table(query=query, rows=everything)
    heat = _heat_maps(request)
    keep = {"runs": ",".join(map(str, heat["run_ids"]))} if heat["run_ids"] else {}
    if heat["run_ids"]:
        keep["metric"] = heat["metric"]
    shown, reasons = _display_rows(rows[:PAGE_ROWS])
    # The runs the heat-map selects offer: those of the rows shown, and any asked for.
    runs: dict[int, str] = {}
    for row in rows:
        release = f" r{row['release_number']}" if row["release_number"] is not None else ""
        runs.setdefault(
            row["run"],
            f"#{row['run']} {row['model']} · {row['dataset_name']}{release} · "
            f"{row['setting_label']}",
        )
    researcher = is_researcher(request.user)
    context = {
        "query": query,
        "rows": shown,
        "total": len(rows),
        "board_total": len(everything),
        "truncated": len(rows) > PAGE_ROWS,
        "page_rows": PAGE_ROWS,
        "reasons": reasons,
        "columns": _columns(query, keep),
        "choices": leaderboard.leaderboard_choices(everything),
        "any_demo": any(row["demo"] for row in shown),
        "csv_href": reverse("evaluation-leaderboard-download")
        + (f"?{urlencode(query.params())}" if query.params() else ""),
        "filter_params": query.params(),
        "heat": heat,
        "heat_run_choices": sorted(runs.items(), key=lambda item: item[1].casefold()),
        "heat_metrics": [(key, METRIC_NAMES[key]) for key in METRIC_KEYS],
        "can_evaluate": researcher,
        "form": (form or EvaluateAllForm()) if researcher else None,
        "eligibility": model_eligibility_list() if researcher else [],
    }
    return render(request, "evaluation/leaderboard.html", context, status=status)


@require_GET
@role_required
def leaderboard_page(request: HttpRequest) -> HttpResponse:
    return _page(request)


@post_form("evaluates every registered model on a release")
@researcher_required
def evaluate_all(request: HttpRequest) -> HttpResponse:
    """One run per registered model that can be evaluated; the report lists what was started
    (with links) and what was skipped and why. A refusal common to all models is shown on the
    board's form and nothing is started."""
    form = EvaluateAllForm(request.POST)
    if not form.is_valid():
        return _page(request, form=form, status=400)
    try:
        outcome = release_evaluate_all(created_by=request.user, **form.cleaned_data)
    except KasautiError as exc:
        form.add_error(None, str(exc))
        return _page(request, form=form, status=exc.status_code)
    return render(request, "evaluation/leaderboard_evaluate_all.html", {"outcome": outcome})
