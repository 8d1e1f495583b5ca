"""``{% run_results run %}``: a run's results section, as its kind draws it (the kind's
template and context, apps/evaluation/kinds.py); ``{% bias_results run %}``: the same for runs
scored item by item (CrowS-Pairs, SEAT, IndiCASA) only. Nothing while such a run has no
results."""

from __future__ import annotations

from django import template
from django.template.loader import render_to_string

register = template.Library()


@register.simple_tag
def run_results(run) -> str:
    kind = run.evaluation_kind
    context = kind.results_context_of(run=run)
    if context is None:
        return ""
    return render_to_string(
        kind.results_template, {"run": run, "results": run.results or {}, **context}
    )


@register.simple_tag
def bias_results(run) -> str:
    return "" if run.evaluation_kind.scored_by_prediction else run_results(run)


@register.filter
def num(value, digits: int = 2) -> str:
    """A number with ``digits`` decimals, or "undefined" (never a fake 0)."""
    if value is None:
        return "undefined"
    return f"{value:.{int(digits)}f}"
