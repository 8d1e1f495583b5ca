"""python manage.py compare_published --dataset NAME [--json] [--format F] FILE [FILE ...]

Reproduction report: compares a dataset's instances with published instance files (BBQ
data/*.jsonl, BharatBBQ Examples/*_examples.csv, EsBBQ/CaBBQ data_*/*.full.csv or .jsonl).
Nothing is written. See apps/catalog/compare.py for the pairing and the reasons."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.catalog.compare import FIELDS
from apps.catalog.importers import INSTANCES, ImportFile, format_names
from apps.catalog.importers.instances import published_compare
from apps.catalog.models import Dataset
from apps.core.errors import ImportRejected


class Command(BaseCommand):
    help = "Compare a dataset's instances with published instance files (reproduction report)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--dataset", required=True, help="Dataset name.")
        parser.add_argument("--json", action="store_true", help="Print the report as JSON.")
        parser.add_argument(
            "--format",
            choices=format_names(kind=INSTANCES),
            default="",
            dest="fmt",
            help="Format of the files (detected from their first line if not given).",
        )
        parser.add_argument(
            "--language", default="", help="Language of the dataset's instances to compare."
        )
        parser.add_argument(
            "--limit",
            type=int,
            default=20,
            help="Differences listed (text: per reason; --json: in all; -1 for every one).",
        )
        parser.add_argument("files", nargs="+", metavar="FILE")

    def handle(self, *args, dataset: str, json: bool, fmt: str, language: str, limit, files, **kw):
        target = Dataset.objects.filter(name=dataset).first()
        if target is None:
            raise CommandError(f"no dataset named {dataset!r}")
        uploads = []
        for name in files:
            try:
                uploads.append(ImportFile(name=Path(name).name, data=Path(name).read_bytes()))
            except OSError as error:
                raise CommandError(f"{name}: cannot read: {error.strerror}") from None
        try:
            report = published_compare(dataset=target, files=uploads, fmt=fmt, language=language)
        except ImportRejected as rejected:
            self.stderr.write(str(rejected))
            raise CommandError(f"cannot read the published files: {len(rejected.problems)} "
                               "problem(s)") from None  # fmt: skip
        if json:
            self.stdout.write(_dumps(report.as_dict(limit=None if limit < 0 else limit)))
            return
        self._text(report, limit)

    def _text(self, report, limit: int) -> None:
        columns = ("published", "kasauti") + FIELDS + ("all",)
        width = max([len(name) for name in report.by_category] + [8])
        self.stdout.write(f"{'category':<{width}}  " + "  ".join(f"{c:>13}" for c in columns))
        rows = [(name, r.published, r.kasauti, r.matched) for name, r in report.by_category.items()]
        rows.append(("TOTAL", report.published, report.kasauti, report.matched))
        for name, published, kasauti, matched in rows:
            cells = [published, kasauti] + [matched[f] for f in FIELDS + ("all",)]
            self.stdout.write(f"{name:<{width}}  " + "  ".join(f"{c:>13}" for c in cells))
        self.stdout.write("")
        self.stdout.write(f"differences: {len(report.mismatches)}")
        for reason, count in report.reasons.items():
            self.stdout.write(f"  {reason}: {count}")
        if report.rewordings:
            self.stdout.write(f"counted as matched, worded differently: {len(report.rewordings)}")
        shown: dict[str, int] = {}
        for difference in report.differences:
            key = f"{difference.reason}/{difference.field}"
            if limit >= 0 and shown.get(key, 0) >= limit:
                continue
            shown[key] = shown.get(key, 0) + 1
            self.stdout.write(
                f"[{difference.reason}] {difference.category} {difference.field}: "
                f"{difference.published_ref or '-'} {difference.published!r} vs "
                f"{difference.kasauti_ref or '-'} {difference.kasauti!r}"
            )


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)
