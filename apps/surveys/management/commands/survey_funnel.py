"""python manage.py survey_funnel --survey SLUG [--json]

The survey's funnel as EsBBQ reports it (§3.2.1): answers -> valid stereotypes -> unique
concepts -> kept, overall and by category. docs/surveys/reports.md defines each figure."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from apps.surveys.models import Survey
from apps.surveys.services.reports import FunnelRow, report_funnel


class Command(BaseCommand):
    help = "Print a survey's funnel: answers, valid stereotypes, unique concepts, kept."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--survey", required=True, help="The survey's link name (slug).")
        parser.add_argument(
            "--json",
            action="store_true",
            help='Print {"answers", "valid", "unique", "kept", "by_category": {...}} as JSON.',
        )

    def handle(self, *args, survey: str, json: bool, **options) -> None:
        try:
            target = Survey.objects.get(slug=survey)
        except Survey.DoesNotExist:
            known = ", ".join(Survey.objects.order_by("slug").values_list("slug", flat=True))
            raise CommandError(
                f"no survey with the link name {survey!r}; known: {known or 'none'}"
            ) from None
        funnel = report_funnel(survey=target)
        if json:
            self.stdout.write(_dumps(funnel.as_dict()))
            return
        rows = [funnel.overall, *funnel.by_category]
        width = max(len("Category"), *(len(row.name) for row in rows))
        header = f"{'Category':<{width}}  {'answers':>8}  {'valid':>8}  {'unique':>8}  "
        self.stdout.write(f"Funnel of survey {target.slug}")
        self.stdout.write(header + f"{'kept':>8}  {'kept %':>7}")
        for index, row in enumerate(rows):
            if index == 1:
                self.stdout.write("-" * (width + 50))
            self.stdout.write(_line(row, width))


def _line(row: FunnelRow, width: int) -> str:
    share = "-" if row.kept_share is None else f"{100 * row.kept_share:.0f}%"
    return (
        f"{row.name:<{width}}  {row.answers:>8}  {row.valid:>8}  {row.unique:>8}  "
        f"{row.kept:>8}  {share:>7}"
    )


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False)
