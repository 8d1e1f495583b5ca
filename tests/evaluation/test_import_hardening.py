"""Prediction imports refuse hostile files with a 400 that names the line (no 500), keep to
the benchmark imports' size limit and background threshold, and a file that matches nothing
fails instead of becoming a 'complete' run."""

from __future__ import annotations

import io

import pytest
from django.urls import reverse

pytest.importorskip("apps.evaluation.metrics.bbq")

from apps.core.models import Job  # noqa: E402
from apps.evaluation.models import EvaluationRun, Prediction  # noqa: E402
from tests.core.test_worker_jobs import wait_for_job  # noqa: E402
from tests.evaluation.bbq_data import bbq_dataset  # noqa: E402

URL = "evaluation-run-import"


def _upload(name: str, data: bytes) -> io.BytesIO:
    handle = io.BytesIO(data)
    handle.name = name
    return handle


def _post(client, dataset, name: str, data: bytes, **extra):
    return client.post(
        reverse(URL),
        {"file": _upload(name, data), "dataset": dataset.pk, "model": "m", **extra},
        format="multipart",
    )


@pytest.fixture
def dataset(db):
    return bbq_dataset(languages=("en",), categories=("Caste",), copies=2)


HOSTILE = {
    "digits-jsonl-answer": (
        "p.jsonl",
        b'{"example_id": "cas-0", "prediction": 1}\n'
        + b'{"example_id": "cas-1", "prediction": '
        + b"9" * 5000
        + b"}\n",
        2,
    ),
    "digits-jsonl-id": ("p.jsonl", b'{"example_id": ' + b"7" * 5000 + b', "prediction": 1}\n', 1),
    "digits-csv-answer": (
        "p.csv",
        b"example_id,prediction\ncas-0,1\ncas-1," + b"9" * 5000 + b"\n",
        3,
    ),
    "huge-logprobs-jsonl": (
        "p.jsonl",
        b'{"example_id": "cas-0", "prediction": null, "logprobs": [' + b"9" * 400 + b", 0, 0]}\n",
        1,
    ),
    "huge-logprobs-csv": (
        "p.csv",
        b'example_id,prediction,logprobs\ncas-0,,"[' + b"9" * 400 + b', -1, -2]"\n',
        2,
    ),
    "deep-jsonl": (
        "p.jsonl",
        b'{"example_id": "cas-0", "prediction": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
        1,
    ),
    "deep-csv-logprobs": (
        "p.csv",
        b'example_id,prediction,logprobs\ncas-0,,"' + b"[" * 100_000 + b"]" * 100_000 + b'"\n',
        2,
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_values_are_a_400_with_the_line(researcher_client, dataset, case):
    name, data, line = HOSTILE[case]
    response = _post(researcher_client, dataset, name, data)
    assert response.status_code == 400, response.content[:300]
    problems = response.json()["problems"]
    assert problems and problems[0]["line"] == line and problems[0]["file"] == name
    assert not EvaluationRun.objects.exists() and not Prediction.objects.exists()


def test_an_upload_over_the_limit_is_refused_before_parsing(researcher_client, dataset, settings):
    settings.KASAUTI_MAX_UPLOAD_BYTES = 1000
    data = b"example_id,prediction\n" + b"cas-0,1\n" * 500
    response = _post(researcher_client, dataset, "big.csv", data)
    assert response.status_code == 413
    assert "KASAUTI_MAX_UPLOAD_BYTES" in response.json()["detail"]
    assert not EvaluationRun.objects.exists()


def test_a_file_that_matches_nothing_is_refused_with_the_reason(researcher_client, dataset):
    response = _post(researcher_client, dataset, "p.csv", b"example_id,prediction\nx-1,1\nx-2,2\n")
    assert response.status_code == 400, response.content
    detail = response.json()["detail"]
    assert "none of the 2 ids" in detail and "x-1" in detail and "example_id" in detail
    assert not EvaluationRun.objects.exists()


@pytest.mark.celery_worker
def test_a_large_file_is_imported_by_a_background_job(
    celery_worker_process, researcher_client, settings
):
    dataset = bbq_dataset(languages=("en",), categories=("Caste",), copies=2)
    settings.KASAUTI_IMPORT_INLINE_MAX_BYTES = 50
    good = b"example_id,prediction\n" + b"".join(b"cas-%d,1\n" % i for i in range(8))
    response = _post(researcher_client, dataset, "p.csv", good)
    assert response.status_code == 202, response.content
    job = wait_for_job(response.json()["id"], timeout=120)
    assert job.status == Job.Status.SUCCEEDED, job.error
    run = EvaluationRun.objects.get(pk=job.result["run_id"])
    assert run.status == "complete" and run.report["matched"] == 8
    assert Prediction.objects.filter(run=run).count() == 8
    assert job.params.get("directory") and not list(
        (settings.MEDIA_ROOT / "imports" / job.params["directory"]).glob("*")
    )

    none = b"example_id,prediction\n" + b"".join(b"zz-%d,1\n" % i for i in range(20))
    failed = wait_for_job(
        _post(researcher_client, dataset, "none.csv", none).json()["id"], timeout=120
    )
    assert failed.status == Job.Status.FAILED and "none of the 20 ids" in failed.error
    bad = b"example_id,prediction\n" + b"cas-0,1\n" * 20 + b"cas-1," + b"9" * 5000 + b"\n"
    rejected = wait_for_job(
        _post(researcher_client, dataset, "bad.csv", bad).json()["id"], timeout=120
    )
    assert rejected.status == Job.Status.FAILED
    assert rejected.result["problems"][0]["line"] == 22
    assert EvaluationRun.objects.count() == 1
