"""SEAT data (editable word lists, bleached templates), runs on the offline MiniLM, bad data,
and the job through a real Celery worker."""

from __future__ import annotations

import json
import unicodedata

import pytest
from django.db import transaction

from apps.core.models import Job
from apps.evaluation.metrics.seat import seat_test
from apps.evaluation.models import EvaluationRun, ItemResult, ModelEntry, ModelKind, RunStatus
from apps.evaluation.services.lifecycle import EvaluationInputError
from apps.evaluation.services.seat import seat_catalog_load, seat_run_create
from tests.core.test_worker_jobs import wait_for_job
from tests.evaluation.run_jobs import run_job_execute
from tests.factories import DatasetFactory
from worker.engines.embedder import Embedder

TWO_TESTS = ["Hindu Male/ Muslim Male Names, N/V", "Upper caste Male/ Lower caste Male Terms, P/U"]


def test_shipped_data_has_the_three_intersectional_axes_in_english_and_hindi():
    catalog = seat_catalog_load()
    assert {t.axis for t in catalog.tests} == {"gender-religion", "gender-caste", "gender-age"}
    assert catalog.templates["en"] == ["This is [X].", "[X] is here."]
    for language in ("en", "hi"):
        for test in catalog.tests:
            x, y = catalog.words(test.X, language), catalog.words(test.Y, language)
            assert len(x) == len(y) > 0, test.name
            for word in x + y + catalog.words(test.A, language):
                assert unicodedata.is_normalized("NFC", word)
    assert catalog.words("upper_caste_male", "en")[:2] == ["brahmin man", "brahmin boy"]
    assert catalog.words("lower_caste_female", "hi")[0] == "दलित औरत"
    assert catalog.sentences(["Arjun"], "en") == ["This is Arjun.", "Arjun is here."]
    assert catalog.sentences(["अर्जुन"], "hi") == ["यह अर्जुन है।", "अर्जुन यहाँ है।"]


def _write(tmp_path, data):
    path = tmp_path / "seat.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_bad_data_names_the_file_and_the_entry(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(EvaluationInputError, match="broken.json"):
        seat_catalog_load(path=bad)
    path = _write(
        tmp_path,
        {
            "templates": {"en": ["This is X."]},
            "lists": {"a": {"en": ["x"]}},
            "tests": [{"name": "t1", "axis": "ax", "X": "a", "Y": "nope", "A": "a", "B": "a"}],
        },
    )
    with pytest.raises(EvaluationInputError) as err:
        seat_catalog_load(path=path)
    assert "seat.json" in str(err.value)
    assert "must contain [X] once" in str(err.value)
    assert "test 't1': Y names unknown list 'nope'" in str(err.value)


def test_unequal_targets_are_refused_before_a_run_exists(tmp_path, db):
    path = _write(
        tmp_path,
        {
            "templates": {"en": ["This is [X]."]},
            "lists": {"x": {"en": ["a", "b"]}, "y": {"en": ["c"]}, "p": {"en": ["d"]}},
            "tests": [{"name": "t", "axis": "ax", "X": "x", "Y": "y", "A": "p", "B": "p"}],
        },
    )
    with pytest.raises(EvaluationInputError, match="X has 2 words and Y 1"):
        seat_run_create(dataset=DatasetFactory(), data_path=str(path))
    with pytest.raises(EvaluationInputError, match="no words in language 'hi'"):
        seat_run_create(dataset=DatasetFactory(), data_path=str(path), languages=["hi"])
    assert not EvaluationRun.objects.exists()


def test_a_causal_lm_is_not_an_encoder(db):
    entry = ModelEntry.objects.create(name="gpt", kind=ModelKind.CAUSAL_LM, path="x")
    with pytest.raises(EvaluationInputError, match="sentence_encoder or masked_lm"):
        seat_run_create(dataset=DatasetFactory(), model=entry)


def test_seat_on_a_masked_lm_uses_the_cls_state(db, tmp_path):
    from tests.engines.test_masked_lm import _build_tiny_bert
    from worker.engines.masked_lm import ClsEncoder

    path = _build_tiny_bert(tmp_path / "bert")
    entry = ModelEntry.objects.create(name="bert", kind=ModelKind.MASKED_LM, path=str(path))
    run = seat_run_create(
        dataset=DatasetFactory(), model=entry, tests=TWO_TESTS[:1], languages=["hi"], n_samples=500
    )
    run_job_execute(run=run, progress=lambda *a, **k: None)
    run.refresh_from_db()
    assert run.model_info["pooling"] == "cls" and run.model_info["dimension"] == 32
    catalog = seat_catalog_load()
    spec = next(t for t in catalog.tests if t.name == TWO_TESTS[0])
    encoder = ClsEncoder(path)
    sets = [
        encoder.encode(catalog.sentences(catalog.words(name, "hi"), "hi"))
        for name in (spec.X, spec.Y, spec.A, spec.B)
    ]
    expected = seat_test(*sets, n_samples=500, seed=0)
    assert run.results["tests"][0]["effect_size"] == pytest.approx(expected.effect_size, abs=1e-4)


def test_seat_run_on_minilm_matches_the_metric_on_direct_encodings(db):
    run = seat_run_create(
        dataset=DatasetFactory(), tests=TWO_TESTS, languages=["en", "hi"], n_samples=2000, seed=1
    )
    summary = run_job_execute(run=run, progress=lambda *a, **k: None)
    run.refresh_from_db()
    assert run.status == RunStatus.COMPLETE and summary["tests"] == 4
    rows = {(r["language"], r["name"]): r for r in run.results["tests"]}
    assert set(rows) == {(lang, name) for lang in ("en", "hi") for name in TWO_TESTS}
    assert ItemResult.objects.filter(run=run).count() == 4
    # Independently: encode the bleached sentences and run the test.
    catalog = seat_catalog_load()
    embedder = Embedder(device="cpu")
    spec = next(t for t in catalog.tests if t.name == TWO_TESTS[0])
    sets = [
        embedder.encode(catalog.sentences(catalog.words(name, "hi"), "hi"))
        for name in (spec.X, spec.Y, spec.A, spec.B)
    ]
    expected = seat_test(*sets, n_samples=2000, seed=1)
    row = rows[("hi", TWO_TESTS[0])]
    assert row["effect_size"] == pytest.approx(expected.effect_size, abs=1e-4)
    assert row["p_value"] == pytest.approx(expected.p_value, abs=1e-3)
    assert row["exact"] is False and row["n_targets"] == 12  # 6 names x 2 templates
    assert run.params["resolved"][0]["words"]["X"][0] == "Vikram"  # the lists used, kept


@pytest.mark.celery_worker
def test_seat_job_on_a_real_worker(celery_worker_process):
    dataset = DatasetFactory()
    with transaction.atomic():
        run = seat_run_create(dataset=dataset, tests=TWO_TESTS[:1], n_samples=1000)
    job = wait_for_job(run.job_id, timeout=120)
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert job.result["tests"] == 1 and job.progress_done == job.progress_total == 1
    run.refresh_from_db()
    assert run.status == RunStatus.COMPLETE and run.results["tests"][0]["effect_size"] is not None
