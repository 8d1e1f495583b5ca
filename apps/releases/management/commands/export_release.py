"""python manage.py export_release RELEASE_ID --format {jsonl,csv,parquet} --output PATH
[--kind instances]

python manage.py export_release RELEASE_ID --kind published --output DIR --extract
    (a dataset imported from published instance files: the source files themselves)

python manage.py export_release RELEASE_ID --kind hub --output DIR [--force]
    (the release as a Hugging Face dataset folder: README.md and data/<config>/<split>.parquet,
    written from the release's frozen files; docs/releases/hub.md)"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.core.errors import KasautiError
from apps.releases.hub_export import HubFolder, release_hub_write
from apps.releases.models import FileFormat, FileKind
from apps.releases.published import published_extract
from apps.releases.selectors import release_file_get, release_get
from apps.releases.services import release_file_verify_copy

# Not a kind of stored file: the folder is written from them (apps/releases/hub_export.py).
HUB = "hub"


class Command(BaseCommand):
    help = (
        "Copy a release's stored file to PATH, verifying its sha256 on the way; or, with "
        "--kind hub, write the release as a Hugging Face dataset folder into the directory PATH."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("release_id", type=int)
        parser.add_argument(
            "--format",
            choices=FileFormat.values,
            help="Required, except for --kind published (always a zip of the source files).",
        )
        parser.add_argument(
            "--output", required=True, help="A file; a directory for --kind hub or --extract."
        )
        parser.add_argument("--kind", default=FileKind.INSTANCES, choices=[*FileKind.values, HUB])
        parser.add_argument(
            "--extract",
            action="store_true",
            help="--kind published: write the source files themselves into the --output "
            "directory instead of the zip.",
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="--kind hub: replace a non-empty --output directory (its contents are lost).",
        )

    def handle(
        self, *args, release_id: int, format, output: str, kind: str, extract, force, **options
    ):
        if kind == HUB:
            if format is not None or extract:
                raise CommandError(
                    "--kind hub writes a folder of Parquet files: --format and --extract do not "
                    "apply"
                )
            return self._hub(release_id=release_id, output=Path(output), force=force)
        if force:
            raise CommandError("--force only applies to --kind hub")
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

    def _hub(self, *, release_id: int, output: Path, force: bool) -> None:
        release = release_get(release_id=release_id)
        if release is None:
            raise CommandError(f"no release with id {release_id}")
        start = time.perf_counter()
        try:
            folder = release_hub_write(release=release, output=output, force=force)
        except KasautiError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(hub_summary(folder=folder))
        self.stderr.write(
            f"{release.dataset.name} r{release.number} hub folder: {len(folder.configs)} "
            f"configs, {len(folder.files) - 1} split files, {folder.rows} rows, "
            f"{folder.size} bytes, in {time.perf_counter() - start:.2f} s; sources sha256 verified"
        )


def hub_summary(*, folder: HubFolder) -> str:
    """What the folder holds: one line per file, config by config."""
    lines = [f"{folder.directory}/"]
    readme = next(f for f in folder.files if f.path == "README.md")
    lines.append(f"  README.md  {readme.size} bytes")
    for config in folder.configs:
        what = "all categories" if config.category is None else f"category {config.category}"
        default = ", default" if config.default else ""
        lines.append(f"  config {config.name} ({config.kind}, {what}{default})")
        for hub_file in folder.config_files(config.name):
            lines.append(
                f"    {hub_file.path}  split {hub_file.split} ({hub_file.language}): "
                f"{hub_file.rows} rows, {hub_file.size} bytes"
            )
    return "\n".join(lines)
