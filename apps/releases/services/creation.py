"""Creating a release: check the dataset is ready, freeze its live content (membership and a
fingerprint), write its files once into a temporary directory renamed into place at the end.
All-or-nothing. Also the summary the command and the job report."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from apps.catalog.models import Dataset, TemplateVersion
from apps.catalog.selectors import template_version_label
from apps.catalog.services import instantiation_stale_for_release
from apps.core.errors import ConflictError, KasautiError
from apps.core.models import Job

from ..content import content_facts, kinds_without_rows, live_instances
from ..documents import release_documents_write
from ..models import ContentMode, FileKind, Release, ReleaseFile, ReleaseInstance
from ..published import published_file_write
from ..selectors import dataset_rows
from .file_writing import (
    Progress,
    ReleaseChangedError,
    release_files_write,
    release_instances_streamed,
)
from .files import release_dir


def _live_fingerprint(
    dataset: Dataset, counts: dict[str, Any], content: str, instance_marks: dict[str, Any]
) -> str:
    """A digest of what a release of the dataset would freeze now. Instances are never
    edited in place (a new template version or a correction makes new rows and retires the
    old), so their counts and id range stand for them, with the status of each template
    version (exported as review_status). Sentence pairs, tuples and context sets are edited in
    place (a sentence fix, new votes), so their rows as they would be written are hashed: a
    review decision that changes what is released changes the fingerprint."""
    marks: dict[str, Any] = {"counts": counts, "content": content}
    marks["instances"] = instance_marks  # low, high, n of the instances it takes
    marks["template_versions"] = list(
        TemplateVersion.objects.filter(template__dataset=dataset)
        .order_by("id")
        .values_list("id", "status")
    )
    for kind in (FileKind.SENTENCE_PAIRS, FileKind.TUPLES, FileKind.CONTEXT_SETS):
        digest = hashlib.sha256()
        for row in dataset_rows(dataset_id=dataset.pk, kind=kind, content=content):
            digest.update(json.dumps(row, sort_keys=True, ensure_ascii=False).encode())
            digest.update(b"\n")
        marks[kind] = digest.hexdigest()
    encoded = json.dumps(marks, sort_keys=True, default=str).encode()
    return hashlib.sha256(encoded).hexdigest()


def _membership_insert(*, release: Release) -> int:
    """Freeze the dataset's live instances into the release: one INSERT ... SELECT, nothing
    passes through Python. The rows are valid by construction (the instances are read in this
    transaction, the dataset row is locked), so the keys have no database constraints to check
    per row (see ReleaseInstance)."""
    membership = ReleaseInstance._meta.db_table
    with connection.cursor() as cursor:
        members, params = (
            live_instances(dataset=release.dataset, content=release.content)
            .values("id")
            .query.sql_with_params()
        )
        cursor.execute(
            f"INSERT INTO {membership} (release_id, instance_id) "  # noqa: S608 (table names)
            f"SELECT %s, m.id FROM ({members}) m",
            [release.pk, *params],
        )
        return cursor.rowcount


def _check_instantiated(dataset: Dataset, content: str) -> None:
    """Refuse a release that would take a template's older version in place of its current
    one: only the versions this content takes count (a reviewed release takes approved versions
    only, so a version still in review does not hold it up)."""
    pending = instantiation_stale_for_release(
        dataset=dataset, approved_only=content == ContentMode.REVIEWED
    )
    if pending:
        shown = ", ".join(template_version_label(version=v) for v in pending[:5]) + (
            " ..." if len(pending) > 5 else ""
        )
        raise ConflictError(
            f"dataset {dataset.name!r} has {len(pending)} template(s) whose current version is "
            f"not instantiated ({shown}); instantiate the dataset before releasing it (an "
            "approved version is instantiated by a background job: see Jobs)"
        )


def _check_rows(*, release: Release, files: list[ReleaseFile]) -> None:
    """Sentence pairs, tuples and context sets are read twice (counted, then written) and a
    review decision may land in between (annotation does not take the dataset's lock): the
    files must hold what the counts say, or the release is refused and rolled back."""
    for release_file in files:
        expected = release.counts.get(release_file.kind)
        if release_file.kind != FileKind.INSTANCES and release_file.rows != expected:
            raise ReleaseChangedError(release.dataset, release_file.kind)


def _nothing_to_release(dataset: Dataset, content: str) -> str:
    if content != ContentMode.REVIEWED:
        return (
            f"dataset {dataset.name!r} has nothing to release: no live instances, sentence "
            "pairs, tuples or context sets"
        )
    return (
        f"dataset {dataset.name!r} has nothing to release as reviewed content: no instances "
        "of approved templates (translations: passed or corrected), no tuples voted "
        "stereotypical, no context sets whose sentences passed social-science review, and "
        "sentence pairs have no review step; choose content=as_published to release "
        "everything as it is"
    )


def release_create(
    *,
    dataset: Dataset,
    created_by=None,
    notes: str = "",
    content: str = ContentMode.REVIEWED,
    progress: Progress | None = None,
) -> Release:
    """Create the next release of a dataset: freeze its live instances, write its files once
    (into a temporary directory, renamed into place at the end) and record their checksums.
    All-or-nothing: on any failure no row and no file remains."""
    tmp_dir: Path | None = None
    final_dir: Path | None = None
    renamed = False
    try:
        with transaction.atomic():
            # The lock serialises releases (numbering) and instantiation of this dataset.
            dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
            _check_instantiated(dataset, content)
            facts = content_facts(dataset=dataset)
            counts = facts.counts(content)
            if not any(
                counts[key] for key in ("total", "sentence_pairs", "tuples", "context_sets")
            ):
                raise KasautiError(_nothing_to_release(dataset, content))
            fingerprint = _live_fingerprint(dataset, counts, content, facts.instance_marks[content])
            latest = dataset.releases.order_by("-number").first()
            # A release made before cards existed is not reused: the new one has its card.
            if (
                latest is not None
                and latest.fingerprint == fingerprint
                and latest.files.filter(kind=FileKind.CARD).exists()
            ):
                # Identical to the latest release (a double click, concurrent requests: the
                # lock above serialises them): that release is the answer, not a copy; but a
                # request whose notes it does not carry is told so, not silently answered.
                if notes.strip() and notes.strip() != latest.notes.strip():
                    raise ConflictError(
                        f"dataset {dataset.name!r} has not changed since release "
                        f"{latest.number} (notes: {latest.notes!r}), so no release was made "
                        f"and the notes {notes!r} were not kept: a release freezes new content, "
                        "it is not a copy with other notes"
                    )
                latest.reused = True
                return latest
            number = (latest.number if latest else 0) + 1
            release = Release.objects.create(
                dataset=dataset,
                number=number,
                notes=notes,
                created_by=created_by,
                counts=counts,
                fingerprint=fingerprint,
                content=content,
            )
            # (On PostgreSQL the statement that streams the instances inserts them, in
            # release_files_write.)
            if not release_instances_streamed(release=release) and (
                _membership_insert(release=release) != counts["total"]
            ):
                raise ReleaseChangedError(dataset)
            relative_dir = release_dir(release=release)
            final_dir = Path(settings.MEDIA_ROOT) / relative_dir
            final_dir.parent.mkdir(parents=True, exist_ok=True)
            tmp_dir = final_dir.parent / f".tmp-{number}-{uuid.uuid4().hex}"
            tmp_dir.mkdir()
            files = release_files_write(
                release=release, directory=tmp_dir, relative_dir=relative_dir, progress=progress
            )
            _check_rows(release=release, files=files)
            files += published_file_write(
                release=release, directory=tmp_dir, relative_dir=relative_dir
            )
            # The changelog against the latest release and the dataset card, written from
            # the database and the files just written (apps/releases/documents.py).
            files += release_documents_write(
                release=release, previous=latest, directory=tmp_dir, relative_dir=relative_dir
            )
            ReleaseFile.objects.bulk_create(files)
            if final_dir.exists():
                # No committed release owns this number (we hold the lock), so this is the
                # leftover of a transaction that was rolled back after its rename.
                shutil.rmtree(final_dir)
            os.replace(tmp_dir, final_dir)
            renamed = True
    except BaseException:
        if tmp_dir is not None:
            shutil.rmtree(tmp_dir, ignore_errors=True)
        if renamed and final_dir is not None:
            shutil.rmtree(final_dir, ignore_errors=True)
        raise
    return release


def release_create_async(
    *, dataset: Dataset, requested_by=None, notes: str = "", content: str = ContentMode.REVIEWED
) -> Job:
    """Queue a release job; the worker picks it up after this transaction commits."""
    from apps.core.services import job_create, job_dispatch

    from ..jobs import RELEASE

    with transaction.atomic():
        job = job_create(
            kind=RELEASE,
            title=f"Release dataset {dataset.name}",
            params={
                "dataset_id": dataset.pk,
                "dataset_name": dataset.name,
                "notes": notes,
                "content": content,
            },
            unit="rows",
            created_by=requested_by,
        )
        return job_dispatch(job=job)


def release_summary(*, release: Release) -> dict[str, Any]:
    """What the command and the job report about a release."""
    return {
        "release_id": release.pk,
        "number": release.number,
        "dataset": release.dataset.name,
        # True when the request matched the latest release and no new release was made.
        "reused": getattr(release, "reused", False),
        "created_at": release.created_at.isoformat(),
        "counts": release.counts,
        "content": release.content,
        # The kinds it holds none of: no files are written for them.
        "empty_kinds": kinds_without_rows(release.counts),
        "files": [
            {
                "kind": f.kind,
                "format": f.format,
                "path": f.path,
                "sha256": f.sha256,
                "rows": f.rows,
                "size": f.size,
            }
            for f in release.files.order_by("kind", "format")
        ],
    }
