"""The catalog's kind of background job, plugged into core's job system (registered from
CatalogConfig.ready)."""

from __future__ import annotations

from django.urls import reverse

from apps.core.models import Job
from apps.core.registry import JobKind, JobLink

INSTANTIATE = "instantiate"
IMPORT = "import"


def dataset_job_links(job: Job, *, on_success: tuple[str, str]) -> list[JobLink]:
    """The dataset a job worked on, and once it succeeded, where its output is
    (`on_success` = (label, URL name taking the dataset id)). Shared by the job kinds of the
    apps above catalog."""
    dataset_id = job.params.get("dataset_id")
    if not dataset_id:
        return []
    name = job.params.get("dataset_name") or f"dataset #{dataset_id}"
    links = [JobLink(f"Dataset {name}", reverse("web:dataset", args=[dataset_id]))]
    if job.status == Job.Status.SUCCEEDED:
        label, url_name = on_success
        links.append(JobLink(label, reverse(url_name, args=[dataset_id])))
    return links


def _dataset_links(job: Job) -> list[JobLink]:
    return dataset_job_links(job, on_success=("View instances", "web:instances"))


def _summary(job: Job) -> list[str]:
    result = job.result or {}
    lines = [
        f"{result.get('created', 0):,} instance(s) created, "
        f"{result.get('retired', 0):,} retired; the dataset plans {result.get('total', 0):,}."
    ]
    for category, count in sorted((result.get("by_category") or {}).items()):
        lines.append(f"{category}: {count:,} planned")
    return lines


INSTANTIATE_KIND = JobKind(
    name=INSTANTIATE,
    label="Instantiate dataset",
    task="apps.catalog.tasks.instantiate_dataset",
    summary=_summary,
    links=_dataset_links,
)


def _import_links(job: Job) -> list[JobLink]:
    from .models import Dataset

    dataset_id = (
        Dataset.objects.filter(name=job.params.get("dataset", "")).values_list("id", flat=True)
    ).first()
    if dataset_id is None:
        return []
    name = job.params.get("dataset")
    return [
        JobLink(f"Dataset {name}", reverse("web:dataset", args=[dataset_id])),
        JobLink("Findings", reverse("web:findings", args=[dataset_id])),
    ]


def _import_summary(job: Job) -> list[str]:
    result = job.result or {}
    files = ", ".join(result.get("files") or []) or "no file"
    lines = [f"Imported {files} ({result.get('format', '?')}) into {result.get('dataset')!r}."]
    if result.get("format") == "bbq":
        lines.append(f"Seed of the name and word draws: {result.get('seed', 0)}.")
    for key, label in (
        ("templates", "templates"),
        ("pairs", "sentence pairs"),
        ("tuples", "tuples"),
        ("context_sets", "context sets"),
    ):
        counts = result.get(key) or {}
        if any(counts.values()):
            lines.append(
                f"{label}: {counts.get('created', 0):,} created, {counts.get('updated', 0):,} "
                f"updated, {counts.get('unchanged', 0):,} unchanged"
            )
    if result.get("findings_by_kind"):
        lines.append(
            "findings: "
            + ", ".join(f"{kind} {n:,}" for kind, n in result["findings_by_kind"].items())
        )
    return lines


def _import_failed(job: Job) -> None:
    from .import_jobs import benchmark_import_job_cleanup

    benchmark_import_job_cleanup(job_id=job.pk)  # the stored upload goes with the job


IMPORT_KIND = JobKind(
    name=IMPORT,
    label="Import benchmark files",
    task="apps.catalog.tasks.import_benchmark",
    summary=_import_summary,
    links=_import_links,
    on_fail=_import_failed,
)
