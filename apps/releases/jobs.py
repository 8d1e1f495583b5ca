"""The releases app's kind of background job, plugged into core's job system."""

from __future__ import annotations

from apps.catalog.jobs import dataset_job_links
from apps.core.models import Job
from apps.core.registry import JobKind, JobLink

from .content import exclusion_lines

RELEASE = "release"


def _links(job: Job) -> list[JobLink]:
    return dataset_job_links(job, on_success=("View releases", "releases:list"))


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
    left_out = exclusion_lines(counts)
    if left_out:
        lines.append(
            "Left out (reviewed content): "
            + "; ".join(f"{x['n']:,} {x['kind'].lower()} ({x['reason']})" for x in left_out)
            + "."
        )
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
