"""Writing a release's files: every kind in every format, one database pass per kind fanned
out to the writers batch by batch, each hashing as it writes. On PostgreSQL the instances
arrive already serialised as JSONL lines (apps.releases.instance_lines), written by a thread
per format while the next batch is parsed."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

from django.db import connection

from apps.catalog.models import Dataset
from apps.core.errors import ConflictError

from ..content import kind_rows, live_instances
from ..instance_lines import release_instance_line_batches
from ..models import TABLE_KINDS, FileFormat, FileKind, Release, ReleaseFile
from ..published import release_is_published
from ..selectors import release_rows
from ..writers import WRITERS, HashingFile, Writer, batched

# progress(done, total): rows written so far, per batch.
Progress = Callable[[int, int], None]


class ReleaseChangedError(ConflictError):
    """The dataset changed between counting what a release takes and writing it: the release
    is refused and rolled back."""

    def __init__(self, dataset: Dataset, kind: str = FileKind.INSTANCES) -> None:
        super().__init__(
            f"the {kind} of dataset {dataset.name!r} changed while the release was being made; "
            "try again"
        )


def release_files_write(
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
            if kind == FileKind.INSTANCES and release_instances_streamed(release=release):
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


def release_instances_streamed(*, release: Release) -> bool:
    """Whether the database serialises the release's instances (PostgreSQL), and the same
    statement freezes them as the release's membership (release_instance_lines_query). Elsewhere
    (SQLite), and for published datasets (rows from the published fields), rows go through
    Python dicts."""
    return connection.vendor == "postgresql" and not release_is_published(release=release)


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
                raise ReleaseChangedError(release.dataset)
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
            raise ReleaseChangedError(release.dataset)
    finally:
        for lane in lanes.values():  # on failure: let the running writes end, drop the rest
            lane.shutdown(cancel_futures=True)


def _file_finish(writer: Writer) -> None:
    """Close a writer and sync its file (release_files_write does it again, at no cost)."""
    writer.close()
    writer.fileobj.flush()
    os.fsync(writer.fileobj.raw.fileno())


def _finished(rows: int, futures: list[Future]) -> int:
    for future in futures:
        future.result()
    return rows
