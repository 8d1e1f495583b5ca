"""Evaluation pages: runs list, new-run form, run page states, compare, models."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from apps.core.models import Job
from apps.evaluation.models import EvaluationRun, ModelEntry, ModelKind, Prediction
from tests.conftest import PASSWORD
from tests.evaluation.bbq_data import bbq_release

pytestmark = pytest.mark.django_db


def _login(client, user):
    assert client.login(username=user.username, password=PASSWORD)
    return client


def test_a_researcher_starts_a_run_from_the_form(client, researcher, tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    model = ModelEntry.objects.create(name="tiny", kind=ModelKind.CAUSAL_LM, path=str(tmp_path))
    release = bbq_release()
    _login(client, researcher)
    form = client.get(reverse("evaluation:run-new"))
    assert form.status_code == 200 and b"mini-bbq" in form.content
    response = client.post(
        reverse("evaluation:run-new"),
        {"release": release.pk, "model": model.pk, "shots": 0, "instruction_language": "en"},
    )
    run = EvaluationRun.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse(
        "evaluation:run", args=[run.pk]
    )
    page = client.get(response["Location"]).content.decode()
    assert 'id="job"' in page and "js/job.js" in page
    assert "Results appear when the run has finished." in page
    listing = client.get(reverse("evaluation:runs")).content.decode()
    assert f'data-run="{run.pk}"' in listing


def test_the_form_shows_a_missing_model_directory(client, researcher, tmp_path):
    model = ModelEntry.objects.create(
        name="gone", kind=ModelKind.CAUSAL_LM, path=str(tmp_path / "gone")
    )
    release = bbq_release()
    _login(client, researcher)
    response = client.post(
        reverse("evaluation:run-new"),
        {"release": release.pk, "model": model.pk, "shots": 0, "instruction_language": "en"},
    )
    assert response.status_code == 200
    assert str(tmp_path / "gone") in response.content.decode()
    assert not EvaluationRun.objects.exists()


def test_annotators_see_runs_but_cannot_start_one(client, annotator):
    _login(client, annotator)
    assert client.get(reverse("evaluation:runs")).status_code == 200
    assert client.get(reverse("evaluation:run-new")).status_code == 403
    assert client.get(reverse("evaluation:models")).status_code == 200


def test_a_partial_run_says_so_and_shows_no_results(client, researcher):
    release = bbq_release(languages=("en",))
    # Partial: its job stopped (here cancelled) after some items were scored.
    run = EvaluationRun.objects.create(
        kind="bbq_mc",
        job=Job.objects.create(kind="evaluate", status=Job.Status.CANCELLED),
        dataset=release.dataset,
        release=release,
        model_label="m",
    )
    instance = release.dataset.instances.order_by("id").first()
    Prediction.objects.create(run=run, instance=instance, chosen=0)
    _login(client, researcher)
    page = client.get(reverse("evaluation:run", args=[run.pk])).content.decode()
    assert 'id="run-partial-note"' in page and "No results: the run did not finish." in page
    assert client.get(reverse("evaluation:run", args=[run.pk + 999])).status_code == 404


def test_compare_page_without_runs_points_to_the_list(client, researcher):
    _login(client, researcher)
    page = client.get(reverse("evaluation:compare"), {"runs": "x,99999999999999999999"})
    assert page.status_code == 200 and b"Choose runs to compare" in page.content


def test_a_researcher_registers_models_on_the_models_page(client, researcher, tmp_path, settings):
    settings.KASAUTI_MODEL_ROOT = tmp_path
    ready = tmp_path / "tiny"
    ready.mkdir()
    (ready / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    _login(client, researcher)
    assert b'id="model-form"' in client.get(reverse("evaluation:models")).content
    new = reverse("evaluation:model-new")
    for name, path in (("tiny", str(ready)), ("not-copied", str(tmp_path / "later"))):
        response = client.post(new, {"name": name, "kind": "causal_lm", "path": path,
                                     "dtype": "float32", "device": "cpu"})  # fmt: skip
        assert response.status_code == 302 and response["Location"] == reverse("evaluation:models")
    entry = ModelEntry.objects.get(name="tiny")
    assert entry.path == str(ready) and entry.created_by == researcher
    rows = {
        row.split("</td>")[0]: row
        for row in client.get(reverse("evaluation:models")).content.decode().split("<tr><td>")[1:]
    }
    assert "ready" in rows["tiny"] and "missing" not in rows["tiny"]
    # The reason a run would refuse to start, shown before anyone tries: the path it looked at.
    assert "does not exist" in rows["not-copied"] and str(tmp_path / "later") in rows["not-copied"]
    # The service's rules hold on the form: a duplicate name, an endpoint without its URL.
    duplicate = client.post(new, {"name": "tiny", "kind": "causal_lm", "path": str(ready),
                                  "dtype": "float32", "device": "cpu"})  # fmt: skip
    assert duplicate.status_code == 400 and "already exists" in duplicate.content.decode()
    no_url = client.post(new, {"name": "api", "kind": "endpoint", "dtype": "float32",
                               "device": "cpu"})  # fmt: skip
    assert no_url.status_code == 400 and "endpoint_url" in no_url.content.decode()
    assert ModelEntry.objects.count() == 2


def test_annotators_cannot_register_models(client, annotator):
    _login(client, annotator)
    assert b'id="model-form"' not in client.get(reverse("evaluation:models")).content
    response = client.post(reverse("evaluation:model-new"), {"name": "x", "kind": "causal_lm",
                                                              "path": "x"})  # fmt: skip
    assert response.status_code == 403 and not ModelEntry.objects.exists()
