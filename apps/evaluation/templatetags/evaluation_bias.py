"""``{% bias_results run %}``: the results section of a CrowS-Pairs, SEAT or IndiCASA run
(nothing for other kinds, or before the run is complete)."""

from __future__ import annotations

from django import template
from django.template.loader import render_to_string

from ..bias_tables import bias_results_context

register = template.Library()


@register.simple_tag
def bias_results(run) -> str:
    context = bias_results_context(run)
    if not context["bias_template"]:
        return ""
    return render_to_string(context["bias_template"], context)


@register.filter
def num(value, digits: int = 2) -> str:
    """A number with ``digits`` decimals, or "undefined" (never a fake 0)."""
    if value is None:
        return "undefined"
    return f"{value:.{int(digits)}f}"
