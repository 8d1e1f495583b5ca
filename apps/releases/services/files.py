"""A release's stored files after they are written: where they live, how they are named and
served, the verified copy `export_release` makes; and the refusal to export live data."""

from __future__ import annotations

import hashlib
import os
import uuid
from pathlib import Path

from django.conf import settings
from django.utils.text import slugify

from apps.catalog.models import Dataset
from apps.core.errors import KasautiError, NotReleasedError

from ..models import DOCUMENT_FILES, TABLE_KINDS, Release, ReleaseFile
from ..published import CONTENT_TYPES
from ..selectors import release_latest
from ..writers import WRITERS

COPY_BLOCK = 1024 * 1024


class ReleaseFileMissingError(KasautiError):
    status_code = 500


def _dataset_slug(dataset: Dataset) -> str:
    # The id keeps two names that slugify alike ("A B" and "a-b") in different directories.
    return f"{slugify(dataset.name) or 'dataset'}-{dataset.pk}"


def release_dir(*, release: Release) -> str:
    """Directory of a release's files, relative to MEDIA_ROOT."""
    return f"releases/{_dataset_slug(release.dataset)}/{release.number}"


def release_file_path(*, release_file: ReleaseFile) -> Path:
    return Path(settings.MEDIA_ROOT) / release_file.path


def release_file_name(*, release_file: ReleaseFile) -> str:
    """Download name: <dataset>-r<number>-<kind>.<ext>."""
    release = release_file.release
    document = DOCUMENT_FILES.get((release_file.kind, release_file.format))
    if document:  # README.md, CITATION.cff, ...: the name the Hub and tools look for
        return f"{slugify(release.dataset.name) or 'dataset'}-r{release.number}-{document}"
    writer = WRITERS.get(release_file.format)
    extension = writer.extension if writer else release_file.format
    name = slugify(release.dataset.name) or "dataset"
    return f"{name}-r{release.number}-{release_file.kind}.{extension}"


# The documents written with every release (apps/releases/documents.py), by format.
DOCUMENT_CONTENT_TYPES = {
    "md": "text/markdown; charset=utf-8",
    "json": "application/json",
    # CITATION.cff is YAML; served as plain text, as code hosts serve it.
    "cff": "text/plain; charset=utf-8",
}


def release_file_content_type(*, release_file: ReleaseFile) -> str:
    writer = WRITERS.get(release_file.format)
    if writer and release_file.kind in TABLE_KINDS:
        return writer.content_type
    if release_file.format in DOCUMENT_CONTENT_TYPES:
        return DOCUMENT_CONTENT_TYPES[release_file.format]
    return CONTENT_TYPES[release_file.format]


def release_file_media_types() -> list[str]:
    """The media types release files are served with (parameters such as charset left out),
    for the API schema."""
    types = (
        [writer.content_type for writer in WRITERS.values()]
        + list(CONTENT_TYPES.values())
        + list(DOCUMENT_CONTENT_TYPES.values())
    )
    return list(dict.fromkeys(t.split(";")[0].strip() for t in types))


def dataset_export_refuse(*, dataset: Dataset) -> None:
    """A dataset's live data is never exported, only its releases: always raises."""
    latest = release_latest(dataset_id=dataset.pk)
    if latest is None:
        raise NotReleasedError(
            f"dataset {dataset.name!r} has no release; only released data is exportable; "
            f"create a release first (POST /api/datasets/{dataset.pk}/releases/)"
        )
    raise NotReleasedError(
        f"dataset {dataset.name!r}: only released data is exportable; download its latest "
        f"release r{latest.number} instead (GET /api/releases/{latest.pk}/export/?format=jsonl)"
        " or create a new release"
    )


def release_file_verify_copy(*, release_file: ReleaseFile, output: Path) -> str:
    """Copy a stored release file to `output`, hashing on the way; the copy only appears under
    its name if the checksum matches the one recorded at release time. Returns the checksum."""
    source = release_file_path(release_file=release_file)
    if not source.is_file():
        raise ReleaseFileMissingError(f"release file {release_file.path} is missing from storage")
    output = Path(output)
    tmp = output.with_name(f".{output.name}.{uuid.uuid4().hex}.part")
    digest = hashlib.sha256()
    try:
        with open(source, "rb") as src, open(tmp, "wb") as dst:
            while block := src.read(COPY_BLOCK):
                digest.update(block)
                dst.write(block)
        if digest.hexdigest() != release_file.sha256:
            raise KasautiError(
                f"checksum mismatch for {release_file.path}: stored file has "
                f"{digest.hexdigest()}, release recorded {release_file.sha256}; not exported"
            )
        os.replace(tmp, output)
    finally:
        tmp.unlink(missing_ok=True)
    return release_file.sha256
