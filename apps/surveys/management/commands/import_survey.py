"""python manage.py import_survey --survey SLUG --format {google-forms,typeform}
[--map FIELD=COLUMN]... [--dry-run] [--json] FILE

Imports a Google Forms or Typeform CSV export into a survey's answers. The mapping starts from
the guess (printed); each --map overrides one field (an empty COLUMN unmaps it) or sets one
option (date_order=dmy, timezone=Asia/Kolkata, default_language=hi, affected_words=a|b).
A repeated section's fields are FIELD.2, FIELD.3; demographic questions demographics.KEY.
Re-importing the same file adds nothing. On rejection the problems are printed (file:line:
field: message), nothing is written, and the command exits non-zero."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.core.commands import command_import_rejected
from apps.core.errors import ImportRejected

from ...importers import survey_format_names
from ...models import Survey
from ...services.imports import survey_import, survey_import_preview


class Command(BaseCommand):
    help = "Import a Google Forms or Typeform CSV export into a survey's answers."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the CSV export")
        parser.add_argument("--survey", required=True, help="the survey's link name (slug)")
        parser.add_argument("--format", required=True, choices=survey_format_names())
        parser.add_argument(
            "--map",
            action="append",
            default=[],
            metavar="FIELD=COLUMN",
            help="map a field to a column (title, 'Title (2)' for a repeated title, or number); "
            "or set an option (date_order, timezone, default_language, <kind>_words)",
        )
        parser.add_argument("--dry-run", action="store_true", help="count, write nothing")
        parser.add_argument("--json", action="store_true", help="print the result as JSON")

    def handle(self, *args, **options) -> None:
        path = Path(options["file"])
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(f"{path}: cannot read: {exc.strerror}") from None
        survey = Survey.objects.filter(slug=options["survey"]).first()
        if survey is None:
            raise CommandError(f"no survey with the link name {options['survey']!r}")
        given: dict[str, str] = {}
        for item in options["map"]:
            field, sep, column = item.partition("=")
            if not sep or not field.strip():
                raise CommandError(f"--map {item!r}: write FIELD=COLUMN")
            given[field.strip()] = column
        preview = survey_import_preview(
            survey=survey, format=options["format"], data=data, filename=path.name
        )
        # An unreadable file has no columns: the import then rejects it with the reason.
        mapping = {**preview.guessed, **given} if preview.columns else None
        as_json = options["json"]
        if not as_json and mapping:
            self.stdout.write("Mapping (field <- column):")
            for field, column in mapping.items():
                mark = " (given)" if field in given else ""
                self.stdout.write(f"  {field} <- {column}{mark}" if column else f"  {field}: -")
        try:
            result = survey_import(
                survey=survey,
                format=options["format"],
                data=data,
                filename=path.name,
                mapping=mapping,
                dry_run=options["dry_run"],
            )
        except ImportRejected as rejected:
            command_import_rejected(command=self, rejected=rejected, as_json=as_json)
        if as_json:
            self.stdout.write(json.dumps(result.as_dict(), ensure_ascii=False, indent=2))
            return
        if result.dry_run:
            self.stdout.write("Dry run: nothing was written.")
        for line in result.lines():
            self.stdout.write(line)
        for finding in result.findings[:50]:
            self.stdout.write(f"  finding: {finding}")
        if len(result.findings) > 50:
            self.stdout.write(f"  ... and {len(result.findings) - 50} more findings")
