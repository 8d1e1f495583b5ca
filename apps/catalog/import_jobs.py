"""Benchmark imports as background jobs: large uploads are stored, and a worker imports them.

The request only streams the uploaded files to MEDIA_ROOT/imports/<job key>/ and queues a
core Job (kind "import"); the worker reads them back and runs the same all-or-nothing
benchmark_import. A worker that dies mid-import leaves the files in place and the job
unfinished, so the redelivered task imports them again (the import is one transaction,
nothing half-written). The files are removed once the job has finished either way.
"""

from __future__ import annotations

import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile

from apps.core.errors import ImportRejected
from apps.core.models import Job
from apps.core.services import job_create, job_dispatch

from .importers import ImportFile, ImportReport, InstanceImportReport, benchmark_import
from .importers.limits import TableError, TableLimits, xlsx_extent, xlsx_extent_check
from .importers.tables import XLSX_MAGIC
from .jobs import IMPORT

IMPORTS_DIR = "imports"


def _job_dir(key: str) -> Path:
    return Path(settings.MEDIA_ROOT) / IMPORTS_DIR / key


def _safe_name(name: str) -> str:
    # Only for the stored copy; the job keeps the name as uploaded for its messages.
    cleaned = "".join(c if c.isalnum() or c in "._-" else "_" for c in Path(name).name)
    return cleaned[:100] or "upload"


def benchmark_files_import(
    *,
    dataset_name: str,
    fmt: str,
    files: list[ImportFile],
    created_by=None,
    language: str = "en",
    category: str = "",
    strict: bool = False,
    seed: int = 0,
    adapted_from: str = "",
) -> ImportReport | InstanceImportReport:
    """Import files of any format (the page, the API and the job all come here); the format's
    kind decides which import runs (apps.catalog.importers.pipeline). `adapted_from`: the
    source dataset the files adapt (the adaptation record is written too)."""
    return benchmark_import(
        dataset_name=dataset_name,
        fmt=fmt,
        files=files,
        created_by=created_by,
        language=language,
        category=category,
        strict=strict,
        seed=seed,
        adapted_from=adapted_from,
    )


@dataclass(frozen=True)
class ImportWork:
    """How much parsing an upload asks for, known before any of it is parsed: bytes to parse
    (a CSV's size; a workbook's uncompressed size, from its zip directory) and the cells its
    workbooks declare (their sheets' <dimension ref>)."""

    parse_bytes: int
    declared_cells: int

    @property
    def inline(self) -> bool:
        """Small enough to import inside the request; anything more goes to a job."""
        return (
            self.parse_bytes <= settings.KASAUTI_IMPORT_INLINE_MAX_BYTES
            and self.declared_cells <= settings.KASAUTI_IMPORT_INLINE_MAX_CELLS
        )


def import_work_measure(*, uploads: list[UploadedFile]) -> ImportWork:
    """Measure the uploads (and refuse, with ImportRejected naming file and limit, a workbook
    past the import limits by what it declares): inline or background is decided on what
    parsing will cost, not on the compressed size (a 568 KB workbook can unpack to 288 MB)."""
    limits = TableLimits.from_settings()
    parse_bytes = declared_cells = 0
    problems = []
    for upload in uploads:
        upload.seek(0)
        magic = upload.read(4)
        upload.seek(0)
        if magic != XLSX_MAGIC:
            parse_bytes += upload.size
            continue
        try:
            extent = xlsx_extent(upload)
            xlsx_extent_check(extent, limits)
        except TableError as error:
            problems.append(error.problem(upload.name))
            continue
        parse_bytes += extent.unpacked_bytes
        declared_cells += extent.cells or 0
    if problems:
        raise ImportRejected(problems)
    return ImportWork(parse_bytes=parse_bytes, declared_cells=declared_cells)


def benchmark_import_async(
    *,
    dataset_name: str,
    fmt: str,
    uploads: list[UploadedFile],
    created_by=None,
    language: str = "en",
    category: str = "",
    seed: int = 0,
    strict: bool = False,
    adapted_from: str = "",
) -> Job:
    """Store the uploads and queue their import; the job's result is the import report."""
    key = uuid.uuid4().hex
    directory = _job_dir(key)
    directory.mkdir(parents=True)
    files = []
    for index, upload in enumerate(uploads):
        stored = f"{index:03d}-{_safe_name(upload.name)}"
        with open(directory / stored, "wb") as out:
            for chunk in upload.chunks():  # streamed: never the whole file in memory
                out.write(chunk)
        files.append({"name": upload.name, "stored": stored, "size": upload.size})
    job = job_create(
        kind=IMPORT,
        title=f"Import {fmt} files into dataset {dataset_name}",
        unit="files",
        params={
            "dataset": dataset_name,
            "format": fmt,
            "language": language,
            "category": category,
            "seed": seed,
            "strict": strict,
            "adapted_from": adapted_from,
            "directory": key,
            "files": files,
        },
        created_by=created_by,
    )
    return job_dispatch(job=job)


def benchmark_import_job_work(*, job: Job) -> dict[str, Any]:
    """The import a job describes. ImportRejected (with every problem) fails the job; the
    problems are also kept in the job's result for clients that read them field by field."""
    params = job.params
    directory = _job_dir(params["directory"])
    files = [
        ImportFile(name=item["name"], data=(directory / item["stored"]).read_bytes())
        for item in params["files"]
    ]
    try:
        report = benchmark_files_import(
            dataset_name=params["dataset"],
            fmt=params["format"],
            files=files,
            created_by=job.created_by,
            language=params["language"],
            category=params["category"],
            seed=params.get("seed", 0),
            strict=params.get("strict", False),
            adapted_from=params.get("adapted_from", ""),
        )
    except ImportRejected as rejected:
        Job.objects.filter(pk=job.pk).update(
            result={"problems": [problem.as_dict() for problem in rejected.problems]}
        )
        raise
    return report.as_dict()


def benchmark_import_job_cleanup(*, job_id: int) -> None:
    """Remove a finished job's stored uploads (an unfinished job still needs them)."""
    job = Job.objects.filter(pk=job_id).first()
    if job is not None and job.is_finished and job.params.get("directory"):
        shutil.rmtree(_job_dir(job.params["directory"]), ignore_errors=True)
