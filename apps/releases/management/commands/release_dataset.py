"""python manage.py release_dataset --dataset NAME [--notes TEXT] [--json]"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from apps.catalog.models import Dataset
from apps.core.errors import KasautiError
from apps.releases.content import exclusion_lines
from apps.releases.services import release_create, release_summary


class Command(BaseCommand):
    help = "Create the next release of a dataset: freeze its instances and write its files."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--dataset", required=True, help="Dataset name.")
        parser.add_argument("--notes", default="", help="Release notes.")
        parser.add_argument("--json", action="store_true", help="Print a JSON summary.")
        parser.add_argument(
            "--content",
            choices=["reviewed", "as_published"],
            default="reviewed",
            help="reviewed (default): instances of approved templates (translations: passed "
            "or corrected), tuples voted stereotypical, context-set sentences kept or fixed by "
            "social-science review, no sentence pairs; as_published: every live row.",
        )

    def handle(self, *args, dataset: str, notes: str, json: bool, content: str, **options) -> None:
        try:
            target = Dataset.objects.get(name=dataset)
        except Dataset.DoesNotExist as exc:
            raise CommandError(f"no dataset named {dataset!r}") from exc
        try:
            release = release_create(dataset=target, notes=notes, content=content)
        except KasautiError as exc:
            raise CommandError(str(exc)) from exc
        summary = release_summary(release=release)
        if json:
            self.stdout.write(_json_dumps(summary))
            return
        counts = summary["counts"]
        self.stdout.write(
            f"release {summary['release_id']}: {summary['dataset']} r{summary['number']}, "
            f"{counts['total']} instances, {counts['sentence_pairs']} sentence pairs, "
            f"{counts['tuples']} tuples, {counts['context_sets']} context sets"
        )
        for category, languages in counts["by_category_language"].items():
            per_language = ", ".join(f"{lang}={n}" for lang, n in languages.items())
            self.stdout.write(f"  {category}: {per_language}")
        for line in exclusion_lines(counts):
            self.stdout.write(f"  left out: {line['n']} {line['kind'].lower()} ({line['reason']})")
        for f in summary["files"]:
            self.stdout.write(f"  {f['sha256']}  {f['path']} ({f['rows']} rows, {f['size']} bytes)")


def _json_dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)
