"""The releases app's kind of background job, plugged into core's job system."""

from __future__ import annotations

from django.urls import reverse

from apps.core.models import Job
from apps.core.registry import JobKind, JobLink

RELEASE = "release"


def _links(job: Job) -> list[JobLink]:
    dataset_id = job.params.get("dataset_id")
    if not dataset_id:
        return []
    name = job.params.get("dataset_name") or f"dataset #{dataset_id}"
    links = [JobLink(f"Dataset {name}", reverse("web:dataset", args=[dataset_id]))]
    if job.status == Job.Status.SUCCEEDED:
        links.append(JobLink("View releases", reverse("releases:list", args=[dataset_id])))
    return links


def _summary(job: Job) -> list[str]:
    result = job.result or {}
    counts = result.get("counts") or {}
    name = f"release {result.get('number')} of {result.get('dataset', 'the dataset')}"
    lines = [
        f"Nothing changed since {name}: that release is the answer, no new one was made."
        if result.get("reused")
        else f"Created {name}.",
        f"{counts.get('total', 0):,} instances, {counts.get('sentence_pairs', 0):,} sentence "
        f"pairs, {counts.get('tuples', 0):,} tuples, "
        f"{counts.get('context_sets', 0):,} context sets.",
    ]
    for f in result.get("files") or []:
        lines.append(f"{f['path']}: {f['rows']:,} rows, {f['size']:,} bytes, sha256 {f['sha256']}")
    return lines


RELEASE_KIND = JobKind(
    name=RELEASE,
    label="Release dataset",
    task="apps.releases.tasks.release_dataset_task",
    summary=_summary,
    links=_links,
)
