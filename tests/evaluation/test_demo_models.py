"""`manage.py build_demo_eval_models` builds tiny random-weight causal and masked LMs under
KASAUTI_MODEL_ROOT and registers them, labelled, so evaluation can be tried on `make run`."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.evaluation.models import DEMO_LABEL, ModelEntry, ModelKind

pytestmark = pytest.mark.django_db


def test_the_demo_models_are_built_registered_and_labelled(settings, tmp_path, annotator_client):
    settings.KASAUTI_MODEL_ROOT = tmp_path
    out = io.StringIO()
    call_command("build_demo_eval_models", stdout=out)
    entries = {entry.kind: entry for entry in ModelEntry.objects.all()}
    assert set(entries) == {ModelKind.CAUSAL_LM, ModelKind.MASKED_LM}
    for entry in entries.values():
        assert entry.demo and DEMO_LABEL in entry.name and DEMO_LABEL in entry.notes
        assert not entry.path.startswith("/")  # relative: under KASAUTI_MODEL_ROOT
        assert entry.files_problem() is None
        assert (tmp_path / entry.path / "config.json").is_file()
    assert "RANDOM WEIGHTS" in out.getvalue()
    listed = annotator_client.get("/api/evaluation/models/").json()["results"]
    assert [m["demo"] for m in listed] == [True, True]
    weights = tmp_path / entries[ModelKind.CAUSAL_LM].path / "model.safetensors"
    stamp = weights.stat().st_mtime_ns
    # --if-missing (what scripts/run.sh runs): kept, not rebuilt, not registered twice.
    call_command("build_demo_eval_models", "--if-missing", stdout=io.StringIO())
    assert weights.stat().st_mtime_ns == stamp and ModelEntry.objects.count() == 2


def test_a_real_model_in_the_demo_folder_is_not_overwritten(settings, tmp_path):
    settings.KASAUTI_MODEL_ROOT = tmp_path
    real = tmp_path / "demo" / "gpt2-tiny"
    real.mkdir(parents=True)
    (real / "config.json").write_text("{}")
    with pytest.raises(CommandError, match="refusing to overwrite"):
        call_command("build_demo_eval_models", stdout=io.StringIO())
    assert (real / "config.json").read_text() == "{}"


def test_run_sh_builds_them():
    from pathlib import Path

    script = (Path(__file__).resolve().parents[2] / "scripts" / "run.sh").read_text()
    assert "manage.py build_demo_eval_models --if-missing" in script
