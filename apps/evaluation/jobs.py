"""The evaluation app's kinds of background job, plugged into core's job system: one per
evaluation kind (apps/evaluation/kinds.py holds each, and registering the evaluation kind
registers its job kind). Every kind's task is routed to the Celery `gpu` queue
(CELERY_TASK_ROUTES in kasauti/settings/base.py).

A run's status, error and finished time are its job's (EvaluationRun.status): nothing of the
run needs undoing when its job fails, so the run kinds have no `on_fail`; a predictions import
removes its stored upload."""

from __future__ import annotations

from django.urls import reverse

from apps.core.models import Job
from apps.core.registry import JobKind, JobLink, JobPart

EVALUATE = "evaluate"
EVALUATE_PART = "evaluate_part"
IMPORT_PREDICTIONS = "import_predictions"


def _run_links(job: Job) -> list[JobLink]:
    run_id = (job.params or {}).get("run_id") or (job.result or {}).get("run_id")
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


def _run_parts(job: Job) -> list[JobPart]:
    """A run split into parts (services/parts.py): each part's progress and its worker."""
    total = len((job.params or {}).get("parts") or [])
    return [
        JobPart(
            f"Part {child.params.get('part', 0) + 1} of {total} · "
            f"{child.worker or 'not started'} · {child.get_status_display().lower()}",
            child.progress_done,
            child.progress_total or child.params.get("items", 0),
        )
        for child in job.children.order_by("id")
    ]


def _run_stopped(job: Job) -> None:
    from .services.parts import run_job_stopped

    run_job_stopped(job=job)


EVALUATE_KIND = JobKind(
    name=EVALUATE,
    label="Evaluate model",
    task="apps.evaluation.tasks.evaluate_run",
    summary=_evaluate_summary,
    links=_run_links,
    parts=_run_parts,
    # A run split into parts stops its parts with it.
    on_cancel=_run_stopped,
    on_fail=_run_stopped,
)


def _part_summary(job: Job) -> list[str]:
    r = job.result or {}
    if "items" not in r:
        return []
    workers = ", ".join(r.get("workers") or []) or "unknown"
    return [f"{r['scored']:,} of {r['items']:,} items scored here; worker(s): {workers}"]


def _part_cancelled(job: Job) -> None:
    from .services.parts import part_job_cancelled

    part_job_cancelled(job=job)


def _part_failed(job: Job) -> None:
    from .services.parts import part_job_failed

    part_job_failed(job=job)


def _part_requeue(job: Job) -> None:
    """A part sent again (watchdog, resume) waits for a worker as a queued job: in a busy queue
    it may wait behind the other parts for longer than a heartbeat, and a running job without
    a heartbeat would be taken for dead again and again. Its worker marks it running."""
    from apps.core.services import job_dispatch

    Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING).update(status=Job.Status.QUEUED)
    job_dispatch(job=job)


# One part of a run over a large release (services/parts.py), a child job of the run's job.
EVALUATE_PART_KIND = JobKind(
    name=EVALUATE_PART,
    label="Evaluate model (part)",
    task="apps.evaluation.tasks.evaluate_part",
    summary=_part_summary,
    links=_run_links,
    resume=_part_requeue,
    on_cancel=_part_cancelled,
    on_fail=_part_failed,
)


def _import_summary(job: Job) -> list[str]:
    r = job.result or {}
    if "run_id" not in r:
        return [f"{len(r['problems'])} problem(s) in the file"] if r.get("problems") else []
    return [
        f"{r.get('matched') or 0:,} matched, {r.get('unmatched') or 0:,} unmatched, "
        f"{r.get('unparseable') or 0:,} unparseable of {r.get('rows') or 0:,} rows"
    ]


def _import_failed(job: Job) -> None:
    from .services.imports import predictions_import_job_cleanup

    predictions_import_job_cleanup(job_id=job.pk)


IMPORT_PREDICTIONS_KIND = JobKind(
    name=IMPORT_PREDICTIONS,
    label="Import predictions",
    task="apps.evaluation.tasks.import_predictions",
    summary=_import_summary,
    links=_run_links,
    # An import the broker never received (or that failed) leaves no stored upload behind.
    on_fail=_import_failed,
)


# --- CrowS-Pairs, SEAT and IndiCASA (services/crows.py, seat.py, indicasa.py) ----------------
def _bias_summary(job: Job) -> list[str]:
    r = job.result or {}
    lines = []
    if "bias_percentage" in r:
        std = "" if r.get("std") is None else f" ± {r['std']:.2f}"
        lines.append(
            f"{r.get('pairs', 0):,} pairs; bias percentage {_fmt(r['bias_percentage'])}{std}"
        )
    if "tests" in r:
        lines.append(f"{r['tests']} SEAT tests, {r.get('significant', 0)} significant at p < 0.01")
    if "best_delta_sim" in r:
        lines.append(
            f"Best held-out Δsim {_fmt(r['best_delta_sim'])} (epoch {r.get('best_epoch')})"
        )
    if "bias_score" in r:
        lines.append(
            f"Bias score {_fmt(r['bias_score'])}, stereotype probability "
            f"{_fmt(r.get('stereotype_probability'))}, skip ratio {_fmt(r.get('skip_ratio'))}"
        )
    return lines


def _bias_job_kind(name: str, label: str, task: str) -> JobKind:
    return JobKind(
        name=name,
        label=label,
        task=f"apps.evaluation.tasks.{task}",
        summary=_bias_summary,
        links=_run_links,
    )


CROWS_KIND = _bias_job_kind("evaluate_crows", "CrowS-Pairs bias percentage", "crows_run")
SEAT_KIND = _bias_job_kind("evaluate_seat", "SEAT effect sizes", "seat_run")
INDICASA_TRAIN_KIND = _bias_job_kind(
    "indicasa_train", "IndiCASA contrastive encoder", "indicasa_train_run"
)
INDICASA_GENERATE_KIND = _bias_job_kind(
    "indicasa_generate", "IndiCASA generation bias score", "indicasa_generate_run"
)
