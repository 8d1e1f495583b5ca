"""The JobKind registry: how an app plugs a kind of background job into the one job system
without editing core.

An app describes each of its job kinds once, in its own `jobs.py`, and registers it from its
AppConfig.ready():

    job_kind_register(
        JobKind(name="evaluate", label="Evaluate model", task="apps.evaluation.tasks.evaluate")
    )

Core then dispatches, runs, heartbeats, cancels, resumes, recovers and shows jobs of that kind
(one API: /api/jobs/, one page: /jobs/<id>/, one poller: static/js/job.js).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .models import Job


@dataclass(frozen=True)
class JobLink:
    label: str
    url: str


@dataclass(frozen=True)
class JobPart:
    """Progress of one part of a job (one language of a translation...)."""

    label: str
    done: int
    total: int


@dataclass(frozen=True)
class JobKind:
    name: str
    label: str
    # Celery task name run with the job id to start the job, and again to resume it (tasks are
    # sent by name so that services never import tasks).
    task: str
    # Readable result: short lines ("12,480 instances created") from job.result.
    summary: Callable[[Job], list[str]] = field(default=lambda job: [])
    # Links to what the job works on and what it made ("View instances").
    links: Callable[[Job], list[JobLink]] = field(default=lambda job: [])
    # Progress by part, shown under the main bar.
    parts: Callable[[Job], list[JobPart]] = field(default=lambda job: [])
    # A template included at the bottom of the job page, and what it needs: (job, request) ->
    # context. For what only this kind shows (a translation's strings).
    page_template: str = ""
    page_context: Callable[[Job, Any], dict[str, Any]] = field(default=lambda job, request: {})
    # Re-queue an unfinished job (resume button, watchdog). None: send `task` again, which
    # must then be idempotent (it is, for the run wrapper skips finished work).
    resume: Callable[[Job], Any] | None = None
    # Called after core marked the job cancelled, to stop the kind's own pieces (chunks...).
    on_cancel: Callable[[Job], Any] | None = None
    # Called after core marked the job failed (by its work, an unreachable broker or the
    # watchdog), to fail what the job works on and remove what it stored. Must be idempotent.
    on_fail: Callable[[Job], Any] | None = None


_KINDS: dict[str, JobKind] = {}
_MISSING = object()


def job_kind_register(kind: JobKind) -> JobKind:
    existing = _KINDS.get(kind.name)
    if existing is not None and existing != kind:
        raise ValueError(f"job kind {kind.name!r} is already registered")
    _KINDS[kind.name] = kind
    return kind


def job_kind_get(name: str, default: Any = _MISSING) -> JobKind:
    try:
        return _KINDS[name]
    except KeyError:
        if default is not _MISSING:
            return default
        raise LookupError(
            f"unknown job kind {name!r}; registered: {', '.join(sorted(_KINDS)) or 'none'}"
        ) from None


def job_kinds() -> list[JobKind]:
    return sorted(_KINDS.values(), key=lambda kind: kind.name)
