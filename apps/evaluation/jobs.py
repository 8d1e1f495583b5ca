"""The evaluation app's kinds of background job, plugged into core's job system. Every kind's
task is routed to the Celery `gpu` queue (CELERY_TASK_ROUTES in kasauti/settings/base.py)."""

from __future__ import annotations

from django.urls import reverse

from apps.core.models import Job
from apps.core.registry import JobKind, JobLink

EVALUATE = "evaluate"


def _run_links(job: Job) -> list[JobLink]:
    run_id = (job.params or {}).get("run_id")
    return [JobLink("View run", reverse("evaluation:run", args=[run_id]))] if run_id else []


def _fmt(value) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _evaluate_summary(job: Job) -> list[str]:
    result = job.result or {}
    overall = result.get("overall") or {}
    if not overall:
        return []
    return [
        f"{result.get('predictions', 0):,} predictions "
        f"({overall.get('n_amb', 0):,} ambiguous, {overall.get('n_dis', 0):,} disambiguated).",
        f"Acc_A {_fmt(overall.get('acc_a'))}, Acc_D {_fmt(overall.get('acc_d'))}, "
        f"BS_A {_fmt(overall.get('bs_a'))}, BS_D {_fmt(overall.get('bs_d'))}, "
        f"SBS_A {_fmt(overall.get('sbs_a'))}, SBS_D {_fmt(overall.get('sbs_d'))}.",
    ]


EVALUATE_KIND = JobKind(
    name=EVALUATE,
    label="Evaluate model",
    task="apps.evaluation.tasks.evaluate_run",
    summary=_evaluate_summary,
    links=_run_links,
)

# Every kind this app registers (apps.py ready()); add new kinds here.
KINDS: list[JobKind] = [EVALUATE_KIND]
