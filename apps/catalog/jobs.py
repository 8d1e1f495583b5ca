"""The catalog's kind of background job, plugged into core's job system (registered from
CatalogConfig.ready)."""

from __future__ import annotations

from django.urls import reverse

from apps.core.models import Job
from apps.core.registry import JobKind, JobLink

INSTANTIATE = "instantiate"


def _dataset_links(job: Job) -> list[JobLink]:
    dataset_id = job.params.get("dataset_id")
    if not dataset_id:
        return []
    name = job.params.get("dataset_name") or f"dataset #{dataset_id}"
    links = [JobLink(f"Dataset {name}", reverse("web:dataset", args=[dataset_id]))]
    if job.status == Job.Status.SUCCEEDED:
        links.append(JobLink("View instances", reverse("web:instances", args=[dataset_id])))
    return links


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
