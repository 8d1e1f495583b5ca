"""Starting a BBQ-style run: everything that can be wrong is refused before a job is queued."""

from __future__ import annotations

import json

import pytest

from apps.core.errors import KasautiError
from apps.core.models import Job
from apps.evaluation.models import EvaluationRun, ModelEntry, ModelKind, PromptTemplate
from apps.evaluation.services.lifecycle import EvaluationInputError
from apps.evaluation.services.runs import run_create
from tests.evaluation.bbq_data import bbq_release

pytestmark = pytest.mark.django_db


@pytest.fixture
def model_dir(tmp_path):
    path = tmp_path / "tiny-causal"
    path.mkdir()
    (path / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    return path


@pytest.fixture
def model(model_dir):
    return ModelEntry.objects.create(name="tiny", kind=ModelKind.CAUSAL_LM, path=str(model_dir))


def test_a_run_is_queued_with_its_job_and_the_exact_template_texts(model, researcher):
    release = bbq_release()
    run = run_create(release=release, model=model, created_by=researcher)
    assert run.status == "queued" and run.kind == "bbq_mc"
    job = Job.objects.get(pk=run.job_id)
    assert job.kind == "evaluate" and job.params == {"run_id": run.pk}
    assert job.progress_unit == "items"
    english = PromptTemplate.objects.get(name="bharatbbq-en-0shot")
    # English instruction: the English template serves both languages.
    assert set(run.prompt_text) == {"en", "hi"}
    assert run.prompt_text["hi"]["text"] == english.text
    assert run.params["languages"] == ["en", "hi"]


def test_target_language_instructions_pick_each_language_template(model):
    run = run_create(release=bbq_release(), model=model, instruction_language="target", shots=2)
    assert run.prompt_text["hi"]["name"] == "bharatbbq-hi-2shot"
    assert run.prompt_text["en"]["name"] == "bharatbbq-en-2shot"


def test_a_language_without_a_template_is_named(model):
    PromptTemplate.objects.filter(instruction_language="hi").delete()
    with pytest.raises(KasautiError, match="instruction in hi"):
        run_create(release=bbq_release(), model=model, instruction_language="target")
    assert not EvaluationRun.objects.exists() and not Job.objects.exists()


def test_a_missing_model_directory_is_named_with_the_readme_section(tmp_path, settings):
    settings.KASAUTI_MODEL_ROOT = tmp_path
    entry = ModelEntry.objects.create(name="gone", kind=ModelKind.CAUSAL_LM, path="no/such/dir")
    with pytest.raises(EvaluationInputError) as caught:
        run_create(release=bbq_release(), model=entry)
    message = str(caught.value)
    assert str(tmp_path / "no" / "such" / "dir") in message
    assert "README.md#getting-the-model-weights" in message
    assert not EvaluationRun.objects.exists() and not Job.objects.exists()


def test_a_directory_that_is_not_a_model_is_refused(tmp_path):
    entry = ModelEntry.objects.create(name="empty", kind=ModelKind.CAUSAL_LM, path=str(tmp_path))
    with pytest.raises(EvaluationInputError, match="no config.json"):
        run_create(release=bbq_release(), model=entry)


def test_a_release_without_disambiguated_contexts_is_refused(model):
    release = bbq_release(conditions=("ambig",))
    with pytest.raises(EvaluationInputError, match="no disambiguated contexts"):
        run_create(release=release, model=model)
    assert not EvaluationRun.objects.exists()


def test_only_causal_models_and_endpoints_score_options(model_dir):
    encoder = ModelEntry.objects.create(
        name="enc", kind=ModelKind.SENTENCE_ENCODER, path=str(model_dir)
    )
    with pytest.raises(EvaluationInputError, match="causal language model or a completions"):
        run_create(release=bbq_release(), model=encoder)


def test_a_template_of_the_wrong_shot_count_is_refused(model):
    two_shot = PromptTemplate.objects.get(name="bharatbbq-en-2shot")
    with pytest.raises(EvaluationInputError, match="is 2-shot, not 0-shot"):
        run_create(release=bbq_release(), model=model, prompt_template=two_shot, shots=0)


def test_a_template_with_an_unknown_field_is_refused(model):
    broken = PromptTemplate.objects.create(
        name="broken", shots=0, text="Context: {ctx} {qn} {a} {b} {c} {colour}"
    )
    with pytest.raises(KasautiError, match=r"unknown field\(s\) \{colour\}"):
        run_create(release=bbq_release(), model=model, prompt_template=broken)
