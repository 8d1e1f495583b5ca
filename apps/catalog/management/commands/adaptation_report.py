"""python manage.py adaptation_report --dataset NAME [--json]: how a dataset adapted its
source (EsBBQ Table 1: per source category, Simply-Transferred / Target-Modified / Culturally
Transformed / Sample-Removed; Newly-Created per target category). docs/studio/adaptation-report.md
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from apps.catalog.adaptation_report import OUTCOMES, TO_DO, adaptation_report
from apps.catalog.models import Dataset
from apps.core.errors import KasautiError

_HEADINGS = {
    "simply_transferred": "ST",
    "target_modified": "TM",
    "culturally_transformed": "CT",
    "sample_removed": "SR",
    "to_do": "to do",
}


class Command(BaseCommand):
    help = (
        "The adaptation report of a dataset adapted from another: per source category the "
        "source templates Simply-Transferred, Target-Modified, Culturally Transformed and "
        "Sample-Removed (counted as EsBBQ Table 1 counts them), and the Newly-Created "
        "templates per target category."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--dataset", required=True, help="The adapted dataset's name.")
        parser.add_argument("--json", action="store_true", dest="as_json", help="Print JSON.")

    def handle(self, *args, dataset: str, as_json: bool, **options) -> None:
        found = Dataset.objects.filter(name=dataset).first()
        if found is None:
            raise CommandError(f"no dataset named {dataset!r}")
        try:
            report = adaptation_report(dataset=found)
        except KasautiError as error:
            raise CommandError(str(error)) from error
        if as_json:
            self.stdout.write(json.dumps(report.as_dict(), ensure_ascii=False))
            return
        keys = OUTCOMES + ((TO_DO,) if report.has_to_do else ())
        self.stdout.write(f"{found.name} adapted from {report.source}")
        header = "".join(f"{_HEADINGS[key]:>7}" for key in keys)
        self.stdout.write(f"{'source category':<28}{'total':>7}{header}")
        for row in report.rows():
            cells = "".join(f"{row[key]:>7}" for key in keys)
            self.stdout.write(f"{row['category']:<28}{row['units']:>7}{cells}")
        total = report.total
        cells = "".join(f"{total[key]:>7}" for key in keys)
        self.stdout.write(f"{'total':<28}{sum(total[k] for k in keys):>7}{cells}")
        self.stdout.write("Newly-Created per target category:")
        for name, count in report.newly_created.items():
            self.stdout.write(f"  {name:<26}{count:>7}")
        self.stdout.write(f"  {'total':<26}{total['newly_created']:>7}")
