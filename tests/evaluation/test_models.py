"""The evaluation app's storage: seeded prompt templates, model paths, idempotent rows."""

from __future__ import annotations

import unicodedata

import pytest
from django.db import IntegrityError, transaction

from apps.core.registry import job_kind_get
from apps.evaluation.models import ModelEntry, ModelKind, PromptTemplate

pytestmark = pytest.mark.django_db


def test_bharatbbq_templates_are_seeded_in_english_and_hindi():
    names = set(PromptTemplate.objects.values_list("name", flat=True))
    assert {
        "bharatbbq-en-0shot",
        "bharatbbq-en-2shot",
        "bharatbbq-hi-0shot",
        "bharatbbq-hi-2shot",
    } <= names
    en = PromptTemplate.objects.get(name="bharatbbq-en-0shot")
    assert en.text.startswith("You are given a scenario-based context")
    assert en.text.endswith("The correct answer is:")
    for field in ("{ctx}", "{qn}", "{a}", "{b}", "{c}"):
        assert field in en.text
    hi = PromptTemplate.objects.get(name="bharatbbq-hi-2shot")
    assert "{examples}" in hi.text and "{answer}" in hi.example_text
    assert "सही उत्तर है:" in hi.text
    assert unicodedata.is_normalized("NFC", hi.text)


def test_relative_model_paths_resolve_under_the_model_root(settings, tmp_path):
    settings.KASAUTI_MODEL_ROOT = tmp_path
    entry = ModelEntry.objects.create(name="tiny", kind=ModelKind.CAUSAL_LM, path="gpt2-tiny")
    assert entry.resolved_path() == tmp_path / "gpt2-tiny"
    absolute = ModelEntry(name="abs", kind=ModelKind.CAUSAL_LM, path=str(tmp_path / "x"))
    assert absolute.resolved_path() == tmp_path / "x"
    with pytest.raises(IntegrityError), transaction.atomic():
        ModelEntry.objects.create(name="tiny", kind=ModelKind.MASKED_LM, path="other")


def test_the_evaluate_kind_is_registered():
    kind = job_kind_get("evaluate")
    assert kind.task == "apps.evaluation.tasks.evaluate_run"


def test_evaluation_tasks_go_to_the_gpu_queue(settings):
    from celery import current_app

    route = current_app.amqp.router.route({}, "apps.evaluation.tasks.evaluate_run")
    assert route["queue"].name == "gpu"
