"""python manage.py export_templates --dataset NAME --format LAYOUT --output DIR
[--approved-only]"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.catalog.exporters import (
    ExportRefused,
    dataset_templates_export,
    export_write,
    exporter_get,
    exporter_names,
)
from apps.catalog.models import Dataset
from apps.core.errors import KasautiError


class Command(BaseCommand):
    help = (
        "Write a dataset's templates and vocabularies in a benchmark's own layout (the files "
        "its own tools and Kasauti's importer read). Exports the current version of every "
        "template that is not rejected (--approved-only: only the approved ones). "
        "All-or-nothing: a template the layout cannot express is named with the reason and "
        "nothing is written."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--dataset", required=True, help="Dataset name.")
        parser.add_argument(
            "--format",
            required=True,
            choices=exporter_names(),
            dest="fmt",
            help="; ".join(
                f"{name}: {exporter_get(name=name).description}" for name in exporter_names()
            ),
        )
        parser.add_argument("--output", required=True, type=Path, help="Directory to write to.")
        parser.add_argument(
            "--approved-only", action="store_true", help="Only the approved templates."
        )

    def handle(self, *args, dataset: str, fmt: str, output: Path, approved_only: bool, **kw):
        found = Dataset.objects.filter(name=dataset).first()
        if found is None:
            raise CommandError(f"no dataset named {dataset!r}")
        try:
            files = dataset_templates_export(dataset=found, fmt=fmt, approved_only=approved_only)
        except ExportRefused as error:
            lines = [f"  {external_id}: {reason}" for external_id, reason in error.problems]
            raise CommandError(
                f"nothing written: the {fmt} layout cannot express {len(lines)} template(s) of "
                f"{dataset!r}:\n" + "\n".join(lines)
            ) from None
        except KasautiError as error:
            raise CommandError(f"nothing written: {error}") from None
        if output.exists() and not output.is_dir():
            raise CommandError(f"--output {output} exists and is not a directory")
        written = export_write(files=files, directory=output)
        language = _languages(found, approved_only)
        exporter = exporter_get(name=fmt)
        formats = sorted({exporter.import_format(lang) for lang in language})
        self.stdout.write(f"Wrote {len(written)} files to {output}:")
        for path in written:
            self.stdout.write(f"  {path}")
        self.stdout.write(
            "Import them back with: python manage.py import_benchmark "
            f"--format {' or '.join(formats)} --dataset NEW_NAME"
            + (f" --language {next(iter(language))}" if fmt == "bharatbbq" else "")
            + f" {output}/..."
        )


def _languages(dataset: Dataset, approved_only: bool) -> set[str]:
    from apps.catalog.exporters import export_templates_select

    chosen = export_templates_select(dataset=dataset, approved_only=approved_only)
    return {item.version.language for item in chosen}
