"""The evaluation-kind registry: one registered object per kind of run, holding everything that
differs between kinds, so that services, pages, the API and downloads ask the run's kind
instead of switching on its name (the pattern of core's JobKind, apps/core/registry.py).

The built-in kinds are described in apps/evaluation/kinds.py and registered from
EvaluationConfig.ready(); registering a kind registers its core JobKind too. Looking up a kind
that is not registered is an error (LookupError), never a silent fallback.

Services, result tables and downloads are named by "module:function" and imported when called:
registering the kinds at start-up loads no engine, numpy or table code, and the engines stay out
of every process that only reads runs (the web server, `manage.py` commands).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any

from apps.core.registry import JobKind, job_kind_register

if TYPE_CHECKING:
    from .models import EvaluationRun

# What a run stores per item, and so which tables and downloads it has.
PREDICTIONS = "predictions"  # Prediction rows (BBQ-style: chosen option, option scores)
ITEM_RESULTS = "item_results"  # ItemResult rows (CrowS-Pairs pairs, SEAT tests, IndiCASA items)


def _service(path: str) -> Callable[..., Any]:
    module, _, name = path.partition(":")
    return getattr(import_module(module), name)


@dataclass(frozen=True)
class EvaluationKind:
    # Stored in EvaluationRun.kind.
    name: str
    label: str
    # The core job its runs run under (its task calls services.lifecycle.evaluation_run_execute).
    job_kind: JobKind
    # The ModelKind values a run of this kind accepts; empty: no model entry (imports).
    model_kinds: tuple[str, ...] = ()
    # "module:function" of the service that checks and queues a run (keyword arguments, and
    # created_by) and of the job's work, (run=, progress=) -> the job's result; "" for imports,
    # which are scored when created.
    create: str = ""
    execute: str = ""
    # PREDICTIONS or ITEM_RESULTS.
    rows: str = ITEM_RESULTS
    # The results section of the run page: a template, and "module:function" of its context,
    # (run=) -> dict, or None while the run has no results to show.
    results_template: str = ""
    results_context: str = ""
    # "module:function" of the metrics download as CSV, (run=) -> text.
    metrics_csv: str = ""
    # Whether the run has a prompt setting (shots, instruction language) to show.
    prompted: bool = False
    # The start form of the bias-run page (forms_bias.BiasRunForm): the kind's choice label and
    # the form fields passed to `create` besides dataset, seed and languages. Empty label: the
    # kind has its own page (BBQ runs: run_new; imports: the import page).
    form_label: str = ""
    form_fields: tuple[str, ...] = ()
    # What the run says when its job was cancelled (the job itself has no error then).
    cancelled_error: str = "Cancelled before it finished; no results were stored."

    def create_run(self, **values: Any) -> EvaluationRun:
        if not self.create:
            raise LookupError(f"evaluation kind {self.name!r} has no create service")
        return _service(self.create)(**values)

    def execute_run(
        self, *, run: EvaluationRun, progress: Callable[..., None], **options: Any
    ) -> dict[str, Any]:
        if not self.execute:
            raise LookupError(f"evaluation kind {self.name!r} is not run by a job")
        return _service(self.execute)(run=run, progress=progress, **options)

    def results_context_of(self, *, run: EvaluationRun) -> dict[str, Any] | None:
        return _service(self.results_context)(run=run) if self.results_context else None

    def metrics_csv_of(self, *, run: EvaluationRun) -> str:
        if not self.metrics_csv:
            raise LookupError(f"evaluation kind {self.name!r} has no metrics CSV")
        return _service(self.metrics_csv)(run=run)

    @property
    def scored_by_prediction(self) -> bool:
        return self.rows == PREDICTIONS


_KINDS: dict[str, EvaluationKind] = {}


def evaluation_kind_register(kind: EvaluationKind) -> EvaluationKind:
    existing = _KINDS.get(kind.name)
    if existing is not None and existing != kind:
        raise ValueError(f"evaluation kind {kind.name!r} is already registered")
    if kind.rows not in (PREDICTIONS, ITEM_RESULTS):
        raise ValueError(
            f"evaluation kind {kind.name!r}: rows must be {PREDICTIONS!r} or "
            f"{ITEM_RESULTS!r}, not {kind.rows!r}"
        )
    job_kind_register(kind.job_kind)
    _KINDS[kind.name] = kind
    return kind


def evaluation_kind_unregister(name: str) -> None:
    """Remove a kind (a test's throwaway kind); its job kind stays registered with core."""
    _KINDS.pop(name, None)


def evaluation_kind_get(name: str) -> EvaluationKind:
    try:
        return _KINDS[name]
    except KeyError:
        raise LookupError(
            f"unknown evaluation kind {name!r}; registered: {', '.join(sorted(_KINDS)) or 'none'}"
        ) from None


def evaluation_kinds() -> list[EvaluationKind]:
    """Every registered kind, in registration order (the order forms and lists show them)."""
    return list(_KINDS.values())
