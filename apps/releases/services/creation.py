"""Release writes: create a release (membership + files), export a stored file.

A release's files are written exactly once, here, and then only copied or streamed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils.text import slugify

from apps.catalog.models import Dataset, TemplateVersion
from apps.catalog.selectors import template_version_label
from apps.catalog.services import instantiation_stale_for_release
from apps.core.errors import ConflictError, KasautiError, NotReleasedError
from apps.core.models import Job

from .content import content_facts, kind_rows, kinds_without_rows, live_instances
from .instance_lines import release_instance_line_batches
from .models import (
    TABLE_KINDS,
    ContentMode,
    FileFormat,
    FileKind,
    Release,
    ReleaseFile,
    ReleaseInstance,
)
from .published import CONTENT_TYPES, published_file_write, release_is_published
from .selectors import dataset_rows, release_latest, release_rows
from .writers import WRITERS, HashingFile, Writer, batched

# progress(done, total): rows written so far, per batch.
Progress = Callable[[int, int], None]

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
    writer = WRITERS.get(release_file.format)
    extension = writer.extension if writer else release_file.format
    name = slugify(release.dataset.name) or "dataset"
    return f"{name}-r{release.number}-{release_file.kind}.{extension}"


def release_file_content_type(*, release_file: ReleaseFile) -> str:
    writer = WRITERS.get(release_file.format)
    return writer.content_type if writer else CONTENT_TYPES[release_file.format]


def release_file_media_types() -> list[str]:
    """The media types release files are served with (parameters such as charset left out),
    for the API schema."""
    types = [writer.content_type for writer in WRITERS.values()] + list(CONTENT_TYPES.values())
    return list(dict.fromkeys(t.split(";")[0].strip() for t in types))


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


def _files_write(
    *, release: Release, directory: Path, relative_dir: str, progress: Progress | None = None
) -> list[ReleaseFile]:
    """Write every kind in every format: one database pass per kind, fanned out to the three
    writers batch by batch, each hashing as it writes. On PostgreSQL the instances (the bulk
    of any release) arrive already serialised; elsewhere (SQLite) as row dicts."""
    files: list[ReleaseFile] = []
    counts = release.counts
    total = sum(counts.get(key, 0) for key in ("total", "sentence_pairs", "tuples", "context_sets"))
    done = 0
    for kind in TABLE_KINDS:  # the published layout is written by apps.releases.published
        if not kind_rows(counts, kind):
            continue  # a kind the release holds none of gets no (empty) files
        with ExitStack() as stack:
            sinks: dict[str, HashingFile] = {}
            writers = {}
            for file_format, writer_class in WRITERS.items():
                name = f"{kind}.{writer_class.extension}"
                raw = stack.enter_context(open(directory / name, "wb"))  # noqa: SIM115
                sinks[file_format] = HashingFile(raw)
                writers[file_format] = writer_class(sinks[file_format], kind=kind)
                # On failure the writer must let go before its file closes (close is
                # idempotent; the directory is discarded anyway).
                stack.callback(writers[file_format].close)
            if kind == FileKind.INSTANCES and _streams_instances(release):
                # The database serialises the rows as JSONL lines; Arrow derives CSV and
                # Parquet from them (published datasets take their rows from the published
                # fields: row dicts).
                for rows in _line_batches_write(release=release, writers=writers):
                    done += rows
                    if progress:
                        progress(done, total)  # rows written, per batch
            else:
                for batch in batched(release_rows(release=release, kind=kind)):
                    for writer in writers.values():
                        writer.write_batch(batch)
                    done += len(batch)
                    if progress:
                        progress(done, total)  # rows written, per batch
            for writer in writers.values():
                writer.close()
            for file_format, writer in writers.items():
                sinks[file_format].raw.flush()
                os.fsync(sinks[file_format].raw.fileno())
                files.append(
                    ReleaseFile(
                        release=release,
                        kind=kind,
                        format=file_format,
                        path=f"{relative_dir}/{kind}.{WRITERS[file_format].extension}",
                        sha256=sinks[file_format].sha256,
                        size=sinks[file_format].size,
                        rows=writer.rows,
                    )
                )
    return files


def _streams_instances(release: Release) -> bool:
    """Whether the database serialises the release's instances (PostgreSQL), and the same
    statement freezes them as the release's membership (release_instance_lines_query). Elsewhere
    (SQLite), and for published datasets (rows from the published fields), rows go through
    Python dicts."""
    return connection.vendor == "postgresql" and not release_is_published(release=release)


def _changed_meanwhile(dataset: Dataset, kind: str = FileKind.INSTANCES) -> ConflictError:
    return ConflictError(
        f"the {kind} of dataset {dataset.name!r} changed while the release was being made; "
        "try again"
    )


def _line_batches_write(*, release: Release, writers: dict[str, Writer]) -> Iterator[int]:
    """Freeze the release's live instances and write them from the database's JSONL lines;
    yields the rows of each batch once all its files have it. Everything overlaps: a thread
    reads the COPY stream (selectors), each writer has its own thread and takes the batches in
    order, and the Arrow parse of the next batch runs meanwhile. Arrow, hashlib and file
    writes release the GIL. At most two batches are in the writers at any time, so memory
    stays flat."""
    lanes = {name: ThreadPoolExecutor(max_workers=1) for name in writers}
    in_flight: deque[tuple[int, list[Future]]] = deque()
    members = live_instances(dataset=release.dataset, content=release.content)
    written = 0
    try:
        for batch in release_instance_line_batches(release=release, members=members):
            written += batch.rows
            if written > release.counts["total"]:  # counted before, in another statement
                raise _changed_meanwhile(release.dataset)
            jsonl = lanes[FileFormat.JSONL].submit(writers[FileFormat.JSONL].write_lines, batch)
            batch.parse()  # once, before the other writers share it
            futures = [jsonl] + [
                lanes[name].submit(writer.write_lines, batch)
                for name, writer in writers.items()
                if name != FileFormat.JSONL
            ]
            if written == release.counts["total"]:
                # The last batch (the counts say so): each file is finished and synced to disk
                # now, while the database inserts the membership at the end of its statement.
                futures += [
                    lane.submit(_file_finish, writers[name]) for name, lane in lanes.items()
                ]
            in_flight.append((batch.rows, futures))
            if len(in_flight) > 1:
                yield _finished(*in_flight.popleft())
        while in_flight:
            yield _finished(*in_flight.popleft())
        if written != release.counts["total"]:
            raise _changed_meanwhile(release.dataset)
    finally:
        for lane in lanes.values():  # on failure: let the running writes end, drop the rest
            lane.shutdown(cancel_futures=True)


def _file_finish(writer: Writer) -> None:
    """Close a writer and sync its file (_files_write does it again, then at no cost)."""
    writer.close()
    writer.fileobj.flush()
    os.fsync(writer.fileobj.raw.fileno())


def _finished(rows: int, futures: list[Future]) -> int:
    for future in futures:
        future.result()
    return rows


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
            raise _changed_meanwhile(release.dataset, release_file.kind)


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
            if latest is not None and latest.fingerprint == fingerprint:
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
            # (On PostgreSQL the statement that streams the instances inserts them: _files_write.)
            if not _streams_instances(release) and (
                _membership_insert(release=release) != counts["total"]
            ):
                raise _changed_meanwhile(dataset)
            relative_dir = release_dir(release=release)
            final_dir = Path(settings.MEDIA_ROOT) / relative_dir
            final_dir.parent.mkdir(parents=True, exist_ok=True)
            tmp_dir = final_dir.parent / f".tmp-{number}-{uuid.uuid4().hex}"
            tmp_dir.mkdir()
            files = _files_write(
                release=release, directory=tmp_dir, relative_dir=relative_dir, progress=progress
            )
            _check_rows(release=release, files=files)
            ReleaseFile.objects.bulk_create(
                files
                + published_file_write(
                    release=release, directory=tmp_dir, relative_dir=relative_dir
                )
            )
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

    from .jobs import RELEASE

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
