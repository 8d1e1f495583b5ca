"""Evaluation kinds are registered objects: every built-in kind is registered with its job
kind, an unknown kind is an error, and a new kind plugs in by registration alone (run created,
executed as a job, shown and downloaded) and can be removed again."""

from __future__ import annotations

import pytest
from django.urls import reverse

from apps.core import registry as core_registry
from apps.core.registry import JobKind, job_kind_get
from apps.evaluation.models import EvaluationRun, ItemResult, RunKind
from apps.evaluation.registry import (
    ITEM_RESULTS,
    EvaluationKind,
    evaluation_kind_get,
    evaluation_kind_register,
    evaluation_kind_unregister,
    evaluation_kinds,
)
from apps.evaluation.services.lifecycle import evaluation_run_create, evaluation_run_finish
from tests.conftest import PASSWORD
from tests.evaluation.run_jobs import run_job_execute
from tests.factories import DatasetFactory

pytestmark = pytest.mark.django_db

THROWAWAY = "throwaway"


def test_every_built_in_kind_is_registered_with_its_job_kind():
    names = [kind.name for kind in evaluation_kinds()]
    assert names[: len(RunKind.values)] == list(RunKind.values)
    for kind in evaluation_kinds():
        assert job_kind_get(kind.job_kind.name) is kind.job_kind
        assert kind.label


def test_an_unknown_kind_is_an_error():
    with pytest.raises(LookupError, match="unknown evaluation kind 'nope'; registered: "):
        evaluation_kind_get("nope")


def throwaway_create(*, dataset, created_by=None, **values) -> EvaluationRun:
    return evaluation_run_create(
        kind=THROWAWAY,
        dataset=dataset,
        model=None,
        model_label="throwaway model",
        params=values,
        title=f"Throwaway on {dataset.name}",
        unit="tests",
        created_by=created_by,
    )


def throwaway_execute(*, run, progress) -> dict:
    progress(0, 1)
    row = {"name": "T1", "axis": "a", "language": "en", "effect_size": 0.5, "p_value": 0.001}
    results = {"tests": [row], "significance_level": 0.01}
    item = ItemResult(item_key="en:T1", category="a", language="en", payload=row)
    evaluation_run_finish(run=run, results=results, model_info={"name": "x"}, items=[item])
    progress(1, 1)
    return {"run_id": run.pk, "tests": 1}


def throwaway_metrics_csv(*, run) -> str:
    return "name,effect_size\nT1,0.5\n"


@pytest.fixture
def throwaway(monkeypatch):
    job_kind = JobKind(
        name="throwaway_job", label="Throwaway job", task="apps.evaluation.tasks.evaluation_run"
    )
    # Core has no unregister: the job kind is taken out again when the test ends.
    monkeypatch.setitem(core_registry._KINDS, job_kind.name, job_kind)
    kind = evaluation_kind_register(
        EvaluationKind(
            name=THROWAWAY,
            label="Throwaway kind",
            job_kind=job_kind,
            create="tests.evaluation.test_kinds:throwaway_create",
            execute="tests.evaluation.test_kinds:throwaway_execute",
            rows=ITEM_RESULTS,
            results_template="evaluation/seat_results.html",
            results_context="apps.evaluation.bias_tables:seat_results_context",
            metrics_csv="tests.evaluation.test_kinds:throwaway_metrics_csv",
        )
    )
    yield kind
    evaluation_kind_unregister(THROWAWAY)


def test_a_registered_kind_runs_shows_and_downloads(throwaway, client, researcher):
    run = throwaway.create_run(dataset=DatasetFactory(), created_by=researcher, seed=3)
    assert run.status == "queued" and run.job.kind == "throwaway_job"
    assert run_job_execute(run=run, progress=lambda *a, **k: None) == {"run_id": run.pk, "tests": 1}
    run.refresh_from_db()
    assert run.status == "complete" and run.kind_label == "Throwaway kind"
    assert client.login(username=researcher.username, password=PASSWORD)
    page = client.get(reverse("evaluation:run", args=[run.pk])).content.decode()
    assert "Throwaway kind" in page and 'id="seat-table"' in page
    download = reverse("evaluation-run-download", args=[run.pk])
    metrics = client.get(download, {"what": "metrics", "as": "csv"}).content.decode()
    assert metrics == "name,effect_size\nT1,0.5\n"
    items = client.get(download, {"what": "predictions", "as": "csv"})
    assert b"en:T1" in b"".join(items.streaming_content)


def test_a_kind_is_registered_once_and_can_be_removed(throwaway):
    assert evaluation_kind_get(THROWAWAY) is throwaway
    with pytest.raises(ValueError, match="already registered"):
        evaluation_kind_register(
            EvaluationKind(name=THROWAWAY, label="other", job_kind=throwaway.job_kind)
        )
    evaluation_kind_unregister(THROWAWAY)
    with pytest.raises(LookupError):
        evaluation_kind_get(THROWAWAY)
