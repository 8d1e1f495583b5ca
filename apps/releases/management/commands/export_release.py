"""python manage.py export_release RELEASE_ID --format {jsonl,csv,parquet} --output PATH
[--kind instances]

python manage.py export_release RELEASE_ID --kind published --output DIR --extract
    (a dataset imported from published instance files: the source files themselves)"""

from __future__ import annotations

import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.core.errors import KasautiError
from apps.releases.models import FileFormat, FileKind
from apps.releases.published import published_extract
from apps.releases.selectors import release_file_get, release_get
from apps.releases.services import release_file_verify_copy


class Command(BaseCommand):
    help = "Copy a release's stored file to PATH, verifying its sha256 on the way."

    def add_arguments(self, parser) -> None:
        parser.add_argument("release_id", type=int)
        parser.add_argument(
            "--format",
            choices=FileFormat.values,
            help="Required, except for --kind published (always a zip of the source files).",
        )
        parser.add_argument("--output", required=True)
        parser.add_argument("--kind", default=FileKind.INSTANCES, choices=FileKind.values)
        parser.add_argument(
            "--extract",
            action="store_true",
            help="--kind published: write the source files themselves into the --output "
            "directory instead of the zip.",
        )

    def handle(self, *args, release_id: int, format, output: str, kind: str, extract, **options):
        if kind == FileKind.PUBLISHED:
            format = format or FileFormat.ZIP
        elif format is None:
            raise CommandError("--format is required for this kind")
        elif extract:
            raise CommandError("--extract only applies to --kind published")
        release = release_get(release_id=release_id)
        if release is None:
            raise CommandError(f"no release with id {release_id}")
        release_file = release_file_get(release=release, kind=kind, file_format=format)
        if release_file is None:
            raise CommandError(f"release {release_id} has no {kind} file in {format}")
        try:
            if extract:
                with tempfile.TemporaryDirectory() as tmp:
                    archive = Path(tmp) / "published.zip"
                    checksum = release_file_verify_copy(release_file=release_file, output=archive)
                    files = published_extract(archive_path=archive, directory=Path(output))
                for path in files:
                    self.stdout.write(str(path))
            else:
                checksum = release_file_verify_copy(release_file=release_file, output=output)
                self.stdout.write(f"{checksum}  {output}")
        except KasautiError as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(
            f"{release.dataset.name} r{release.number} {kind}.{format}: {release_file.rows} "
            f"rows, {release_file.size} bytes, sha256 verified"
        )
