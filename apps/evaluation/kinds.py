"""The built-in evaluation kinds: what each kind of run is and does, in one place (the registry
is apps/evaluation/registry.py; EvaluationConfig.ready() registers KINDS).

To add a kind: write its create and execute services (services/<kind>.py: create checks what
it can and calls services.lifecycle.evaluation_run_create; execute computes and calls
evaluation_run_finish), its results template and table (bias_tables.py), its JobKind
(jobs.py; its task: apps.evaluation.tasks.evaluation_run), and one EvaluationKind below.
"""

from __future__ import annotations

from .jobs import (
    CROWS_KIND,
    EVALUATE_KIND,
    IMPORT_PREDICTIONS_KIND,
    INDICASA_GENERATE_KIND,
    INDICASA_TRAIN_KIND,
    SEAT_KIND,
)
from .models import ModelKind, RunKind
from .registry import ITEM_RESULTS, PREDICTIONS, EvaluationKind

TABLES = "apps.evaluation.bias_tables"
SELECTORS = "apps.evaluation.selectors"


# The BBQ-style results section and its metrics CSV: multiple-choice runs and imported
# predictions are scored alike (one Prediction per item, services/metrics.py).
_BBQ_RESULTS = {
    "rows": PREDICTIONS,
    "results_template": "evaluation/_results_bbq.html",
    "results_context": f"{SELECTORS}:bbq_results_context",
    "metrics_csv": f"{SELECTORS}:run_metrics_csv",
}

BBQ_MC = EvaluationKind(
    name=RunKind.BBQ_MC,
    label=RunKind.BBQ_MC.label,
    job_kind=EVALUATE_KIND,
    model_kinds=(ModelKind.CAUSAL_LM, ModelKind.ENDPOINT),
    create="apps.evaluation.services.runs:run_create",
    execute="apps.evaluation.services.runs:run_execute",
    prompted=True,
    # A stopped multiple-choice run keeps what it scored and is resumed.
    cancelled_error="cancelled",
    **_BBQ_RESULTS,
)

IMPORTED = EvaluationKind(
    name=RunKind.IMPORTED,
    label=RunKind.IMPORTED.label,
    job_kind=IMPORT_PREDICTIONS_KIND,
    **_BBQ_RESULTS,
)

CROWS = EvaluationKind(
    name=RunKind.CROWS,
    label=RunKind.CROWS.label,
    job_kind=CROWS_KIND,
    model_kinds=(ModelKind.MASKED_LM, ModelKind.CAUSAL_LM),
    create="apps.evaluation.services.crows:crows_run_create",
    execute="apps.evaluation.services.crows:crows_run_execute",
    rows=ITEM_RESULTS,
    results_template="evaluation/crows_results.html",
    results_context=f"{TABLES}:crows_results_context",
    metrics_csv=f"{TABLES}:crows_run_metrics_csv",
    form_label="CrowS-Pairs bias percentage (sentence pairs; masked or causal LM)",
    form_fields=("model",),
)

SEAT = EvaluationKind(
    name=RunKind.SEAT,
    label=RunKind.SEAT.label,
    job_kind=SEAT_KIND,
    model_kinds=(ModelKind.SENTENCE_ENCODER, ModelKind.MASKED_LM),
    create="apps.evaluation.services.seat:seat_run_create",
    execute="apps.evaluation.services.seat:seat_run_execute",
    rows=ITEM_RESULTS,
    results_template="evaluation/seat_results.html",
    results_context=f"{TABLES}:seat_results_context",
    # No figures of their own in CSV: the BBQ-style table (header only), as before.
    metrics_csv=f"{SELECTORS}:run_metrics_csv",
    form_label="SEAT effect sizes (word lists; sentence encoder or masked LM)",
    form_fields=("model",),
)

INDICASA_TRAIN = EvaluationKind(
    name=RunKind.INDICASA_TRAIN,
    label=RunKind.INDICASA_TRAIN.label,
    job_kind=INDICASA_TRAIN_KIND,
    model_kinds=(ModelKind.SENTENCE_ENCODER,),
    create="apps.evaluation.services.indicasa:indicasa_train_run_create",
    execute="apps.evaluation.services.indicasa:indicasa_train_run_execute",
    rows=ITEM_RESULTS,
    results_template="evaluation/indicasa_results.html",
    results_context=f"{TABLES}:indicasa_train_results_context",
    metrics_csv=f"{SELECTORS}:run_metrics_csv",
    form_label="IndiCASA contrastive encoder (context sets; sentence encoder)",
    form_fields=("model", "loss", "epochs"),
)

INDICASA_GENERATE = EvaluationKind(
    name=RunKind.INDICASA_GENERATE,
    label=RunKind.INDICASA_GENERATE.label,
    job_kind=INDICASA_GENERATE_KIND,
    model_kinds=(ModelKind.CAUSAL_LM,),
    create="apps.evaluation.services.indicasa_generate:indicasa_generate_run_create",
    execute="apps.evaluation.services.indicasa_generate:indicasa_generate_run_execute",
    rows=ITEM_RESULTS,
    results_template="evaluation/indicasa_results.html",
    results_context=f"{TABLES}:indicasa_generate_results_context",
    metrics_csv=f"{SELECTORS}:run_metrics_csv",
    form_label="IndiCASA generation bias score (sentence pairs; causal LM)",
    form_fields=("model", "encoder", "rounds"),
)

# Every kind this app registers (apps.py ready()), in the order forms and lists show them.
KINDS = [BBQ_MC, IMPORTED, CROWS, SEAT, INDICASA_TRAIN, INDICASA_GENERATE]
