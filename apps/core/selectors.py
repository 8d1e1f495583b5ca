"""Reads of the job system: lists and the readable view of a job (title, summary lines,
links, parts) that the page and the API both show."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import QuerySet
from django.urls import reverse

from .models import Job
from .registry import JobLink, JobPart, job_kind_get


def job_list(*, kind: str = "", status: str = "") -> QuerySet[Job]:
    jobs = Job.objects.select_related("created_by")
    if kind:
        jobs = jobs.filter(kind=kind)
    if status:
        jobs = jobs.filter(status=status)
    return jobs


@dataclass
class JobView:
    job: Job
    title: str
    kind_label: str
    summary: list[str] = field(default_factory=list)
    links: list[JobLink] = field(default_factory=list)
    parts: list[JobPart] = field(default_factory=list)
    page_url: str = ""


def job_view(*, job: Job) -> JobView:
    kind = job_kind_get(job.kind, default=None)
    view = JobView(
        job=job,
        title=job.display_title,
        kind_label=kind.label if kind else job.kind,
        page_url=reverse("jobs:detail", args=[job.pk]),
    )
    if kind is None:
        return view
    view.links = kind.links(job)
    view.parts = kind.parts(job)
    if job.status == Job.Status.SUCCEEDED:
        view.summary = kind.summary(job)
    return view
