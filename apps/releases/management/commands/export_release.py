"""python manage.py export_release RELEASE_ID --format {jsonl,csv,parquet} --output PATH
[--kind instances]"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from apps.core.errors import KasautiError
from apps.releases.models import FileFormat, FileKind
from apps.releases.selectors import release_file_get, release_get
from apps.releases.services import release_file_verify_copy


class Command(BaseCommand):
    help = "Copy a release's stored file to PATH, verifying its sha256 on the way."

    def add_arguments(self, parser) -> None:
        parser.add_argument("release_id", type=int)
        parser.add_argument("--format", required=True, choices=FileFormat.values)
        parser.add_argument("--output", required=True)
        parser.add_argument("--kind", default=FileKind.INSTANCES, choices=FileKind.values)

    def handle(self, *args, release_id: int, format: str, output: str, kind: str, **options):
        release = release_get(release_id=release_id)
        if release is None:
            raise CommandError(f"no release with id {release_id}")
        release_file = release_file_get(release=release, kind=kind, file_format=format)
        if release_file is None:
            raise CommandError(f"release {release_id} has no {kind} file in {format}")
        try:
            checksum = release_file_verify_copy(release_file=release_file, output=output)
        except KasautiError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"{checksum}  {output}")
        self.stderr.write(
            f"{release.dataset.name} r{release.number} {kind}.{format}: {release_file.rows} "
            f"rows, {release_file.size} bytes, sha256 verified"
        )
