"""Import predictions made elsewhere and score them exactly like a run.

Ids are matched against the instance's `source_id` (the id of the published file it came from)
or its Kasauti `example_id`; when the file has category / language columns they narrow the match
(example ids restart per category in BBQ's files). An answer is an option index (0- or 1-based,
`index_base`) or the option's text, compared after case, space and trailing-punctuation
normalisation (apps/evaluation/predictions/answers.py). Ids that match nothing (or more than one
item) and answers that match no option are counted and listed on the run, never dropped
silently; a malformed file is refused with file, line and field, and nothing is written."""

from __future__ import annotations

import shutil
import uuid
from collections import defaultdict
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from apps.catalog.models import Dataset, Instance
from apps.core.errors import ImportProblem, ImportRejected, KasautiError
from apps.core.models import Job
from apps.core.services import job_create, job_dispatch, job_start, job_succeed
from apps.core.text import nfc
from apps.releases.models import Release

from ..jobs import IMPORT_PREDICTIONS
from ..models import EvaluationRun, Prediction, RunKind
from ..predictions.answers import answer_index
from ..predictions.readers import Columns, PredictionRow, reader_for

# How many unmatched ids / unparseable answers the run keeps for display (all are counted).
LISTED = 200


def _instances(*, dataset: Dataset, release: Release | None):
    if release is not None:
        return Instance.objects.filter(memberships__release=release)
    return Instance.objects.filter(dataset=dataset, retired_at__isnull=True)


def _index(queryset) -> dict[str, list[tuple[int, str, str, tuple[str, str, str]]]]:
    index: dict[str, list] = defaultdict(list)
    rows = queryset.values_list(
        "id", "source_id", "example_id", "category__name", "language", "ans0", "ans1", "ans2"
    )
    for pk, source_id, example_id, category, language, *answers in rows.iterator(5000):
        entry = (pk, category, language, tuple(answers))
        keys = {str(example_id)}
        if source_id:
            keys.add(nfc(source_id))
        for key in keys:
            index[key].append(entry)
    return index


def _match(row: PredictionRow, index) -> tuple[Any, str]:
    candidates = index.get(row.item_id, [])
    if row.category:
        wanted = row.category.casefold()
        candidates = [c for c in candidates if c[1].casefold() == wanted]
    if row.language:
        candidates = [c for c in candidates if c[2] == row.language]
    if len({c[0] for c in candidates}) == 1:
        return candidates[0], ""
    if not candidates:
        return None, "no item has this id"
    return None, (
        f"{len(candidates)} items have this id (categories "
        f"{', '.join(sorted({c[1] for c in candidates}))}; languages "
        f"{', '.join(sorted({c[2] for c in candidates}))}): add a category / language column"
    )


def predictions_import(
    *,
    dataset: Dataset,
    model_label: str,
    stream: IO[bytes],
    name: str,
    file_format: str = "",
    columns: Columns | None = None,
    index_base: int = 0,
    release: Release | None = None,
    created_by=None,
    job: Job | None = None,
) -> EvaluationRun:
    """Read, match and store a prediction file as a complete `imported` run with its
    metrics. All-or-nothing: a malformed file raises ImportRejected and writes nothing.

    The run's state lives on a job like every run's: `job`, the background job importing the
    file (core marks it succeeded with this import's result), or else a job recorded here,
    succeeded in the same transaction (the work was done inline)."""
    if index_base not in (0, 1):
        raise KasautiError(f"index base must be 0 or 1, not {index_base}")
    if release is not None and release.dataset_id != dataset.pk:
        raise KasautiError(f"release {release.pk} is not a release of {dataset.name!r}")
    model_label = nfc(model_label.strip())
    if not model_label:
        raise KasautiError("a model label is required (what the predictions are from)")
    columns = columns or Columns()
    reader = reader_for(name=name, file_format=file_format, columns=columns)
    rows = reader.read(stream)
    if len(rows) > settings.KASAUTI_IMPORT_MAX_ROWS:
        raise ImportRejected(
            [
                ImportProblem(
                    name,
                    rows[settings.KASAUTI_IMPORT_MAX_ROWS].line,
                    "file",
                    f"{len(rows):,} predictions; the limit is "
                    f"{settings.KASAUTI_IMPORT_MAX_ROWS:,} (KASAUTI_IMPORT_MAX_ROWS)",
                )
            ]
        )
    index = _index(_instances(dataset=dataset, release=release))
    if not index:
        raise KasautiError(f"dataset {dataset.name!r} has no instances to match predictions to")

    seen: dict[int, int] = {}
    duplicates: list[ImportProblem] = []
    predictions: list[Prediction] = []
    unmatched: list[dict[str, Any]] = []
    unparseable: list[dict[str, Any]] = []
    counts = {"rows": len(rows), "matched": 0, "unmatched": 0, "unparseable": 0}
    for row in rows:
        entry, reason = _match(row, index)
        if entry is None:
            counts["unmatched"] += 1
            if len(unmatched) < LISTED:
                unmatched.append({"line": row.line, "id": row.item_id, "reason": reason})
            continue
        pk, _category, _language, answers = entry
        if pk in seen:
            duplicates.append(
                ImportProblem(
                    name,
                    row.line,
                    columns.id,
                    f"item {row.item_id!r} was already given on line {seen[pk]}",
                )
            )
            continue
        seen[pk] = row.line
        chosen = answer_index(row.prediction, answers, index_base=index_base)
        if chosen is None and row.prediction is None and row.logprobs:
            chosen = max(range(len(row.logprobs)), key=row.logprobs.__getitem__)
        if chosen is None:
            counts["unparseable"] += 1
            if len(unparseable) < LISTED:
                unparseable.append(
                    {
                        "line": row.line,
                        "id": row.item_id,
                        "answer": row.prediction,
                        "options": answers,
                    }
                )
        else:
            counts["matched"] += 1
        predictions.append(
            Prediction(
                instance_id=pk,
                item_key=row.item_id,
                chosen=chosen,
                raw="" if row.prediction is None else str(row.prediction),
                sum_logprobs=list(row.logprobs or []),
            )
        )
    if duplicates:
        raise ImportRejected(duplicates[:50])
    if not predictions:
        first = unmatched[0]
        raise KasautiError(
            f"none of the {counts['unmatched']:,} ids in {name} matched an item of "
            f"{'release ' + str(release.number) + ' of ' if release else 'dataset '}"
            f"{dataset.name!r} (line {first['line']}: {first['id']!r}: {first['reason']}); "
            f"check that the id column ({columns.id!r}) holds the items' source ids or "
            "Kasauti example ids, and the dataset"
        )

    from .metrics import run_metrics

    params = {"file": name, "format": reader.format, "index_base": index_base}
    with transaction.atomic():
        run = EvaluationRun.objects.create(
            kind=RunKind.IMPORTED,
            dataset=dataset,
            release=release,
            model_label=model_label,
            params={**params, "columns": vars(columns)},
            report={**counts, "unmatched_ids": unmatched, "unparseable_answers": unparseable},
            created_by=created_by,
            job=job,
        )
        for prediction in predictions:
            prediction.run = run
        Prediction.objects.bulk_create(predictions, batch_size=2000)
        run_metrics(run=run)
        if job is None:
            run.job = job_create(
                kind=IMPORT_PREDICTIONS,
                title=_import_title(name=name, model_label=model_label, dataset=dataset),
                unit="files",
                params={"run_id": run.pk},
                created_by=created_by,
            )
            run.save(update_fields=["job"])
            job_start(job_id=run.job_id)
            job_succeed(job_id=run.job_id, result=predictions_import_result(run=run))
            run.job.refresh_from_db()
    return run


def predictions_import_result(*, run: EvaluationRun) -> dict[str, Any]:
    """The result of the job that imported `run`: what its summary line shows."""
    return {
        "run_id": run.pk,
        **{k: run.report.get(k) for k in ("rows", "matched", "unmatched", "unparseable")},
    }


def _import_title(*, name: str, model_label: str, dataset: Dataset) -> str:
    return f"Import predictions {name} ({model_label}) into {dataset.name}"


# --- large files: imported by a background job ---------------------------------------------
IMPORTS_DIR = "imports"


def _upload_dir(key: str) -> Path:
    return Path(settings.MEDIA_ROOT) / IMPORTS_DIR / key


def predictions_import_async(
    *,
    dataset: Dataset,
    model_label: str,
    upload: UploadedFile,
    file_format: str = "",
    columns: Columns | None = None,
    index_base: int = 0,
    release: Release | None = None,
    created_by=None,
) -> Job:
    """Store the upload (streamed, never whole in memory) and queue its import: the same
    `predictions_import`, run by a worker. The job's result names the run."""
    if not nfc(model_label.strip()):
        raise KasautiError("a model label is required (what the predictions are from)")
    key = uuid.uuid4().hex
    directory = _upload_dir(key)
    directory.mkdir(parents=True)
    with open(directory / "predictions", "wb") as out:
        for chunk in upload.chunks():
            out.write(chunk)
    job = job_create(
        kind=IMPORT_PREDICTIONS,
        title=_import_title(name=upload.name, model_label=model_label, dataset=dataset),
        unit="files",
        params={
            "dataset_id": dataset.pk,
            "release_id": release.pk if release else None,
            "model_label": model_label,
            "name": upload.name,
            "file_format": file_format,
            "columns": vars(columns or Columns()),
            "index_base": index_base,
            "directory": key,
        },
        created_by=created_by,
    )
    return job_dispatch(job=job)


def predictions_upload_import(
    *,
    upload: UploadedFile,
    values: dict[str, Any],
    created_by=None,
    background: bool = False,
) -> EvaluationRun | Job:
    """An uploaded predictions file from the API or the page, with its form's cleaned
    `values`: scored now (the run), or by a background job (the job) when asked or when it is
    over KASAUTI_IMPORT_INLINE_MAX_BYTES."""
    common = {
        "dataset": values["dataset"],
        "release": values["release"],
        "model_label": values["model"],
        "file_format": values["file_format"],
        "columns": Columns(id=values["id_column"], prediction=values["prediction_column"]),
        "index_base": values["index_base"],
        "created_by": created_by,
    }
    if background or upload.size > settings.KASAUTI_IMPORT_INLINE_MAX_BYTES:
        return predictions_import_async(upload=upload, **common)
    return predictions_import(stream=upload, name=upload.name, **common)


def predictions_import_job_work(*, job: Job) -> dict[str, Any]:
    """The import a job describes; a rejected file fails the job, its problems (file, line,
    field) kept in the job's result."""
    params = job.params
    try:
        with open(_upload_dir(params["directory"]) / "predictions", "rb") as stream:
            run = predictions_import(
                dataset=Dataset.objects.get(pk=params["dataset_id"]),
                release=Release.objects.filter(pk=params.get("release_id")).first()
                if params.get("release_id")
                else None,
                model_label=params["model_label"],
                stream=stream,
                name=params["name"],
                file_format=params["file_format"],
                columns=Columns(**params["columns"]),
                index_base=params["index_base"],
                created_by=job.created_by,
                job=job,
            )
    except ImportRejected as rejected:
        Job.objects.filter(pk=job.pk).update(
            result={"problems": [problem.as_dict() for problem in rejected.problems]}
        )
        raise
    return predictions_import_result(run=run)


def predictions_import_job_cleanup(*, job_id: int) -> None:
    """Remove a finished job's stored upload (an unfinished job still needs it)."""
    job = Job.objects.filter(pk=job_id).first()
    if job is not None and job.is_finished and job.params.get("directory"):
        shutil.rmtree(_upload_dir(job.params["directory"]), ignore_errors=True)
