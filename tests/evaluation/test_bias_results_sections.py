"""The results sections of CrowS-Pairs, SEAT and IndiCASA runs (the run page includes them
with ``{% bias_results run %}``)."""

from __future__ import annotations

import pytest
from django.template import Context, Template

from apps.core.models import Job
from apps.evaluation.metrics.crows import PairScore, crows_scores
from apps.evaluation.metrics.indicasa import generation_scores
from apps.evaluation.models import EvaluationRun, RunKind
from tests.factories import DatasetFactory

pytestmark = pytest.mark.django_db


def render(run) -> str:
    return Template("{% load evaluation_bias %}{% bias_results run %}").render(
        Context({"run": run})
    )


def make_run(kind, results):
    return EvaluationRun.objects.create(
        kind=kind,
        dataset=DatasetFactory(),
        model_label="m",
        # Complete: its job succeeded.
        job=Job.objects.create(kind="evaluate_crows", status=Job.Status.SUCCEEDED),
        results=results,
    )


def test_crows_section_has_table_2_layout():
    pairs = [
        PairScore("1", "gender", "en", "stereo", 0.0, -1.0),
        PairScore("2", "gender", "hi", "stereo", -1.0, 0.0),
        PairScore("3", "caste", "hi", "stereo", 0.0, -1.0),
    ]
    results = crows_scores(pairs, runs=5, seed=0) | {"pairs": 3, "unscorable": 1}
    html = render(make_run(RunKind.CROWS, results))
    assert 'id="crows-table"' in html
    assert '<th scope="col" class="num">en</th>' in html and ">hi</th>" in html
    assert ">caste</th>" in html and ">gender</th>" in html
    assert "80%" in html and "1 pair(s) had no shared word" in html
    assert "undefined" not in html.split('id="crows-overall">')[1][:20]


def test_seat_section_bolds_significant_tests():
    row = {
        "name": "Hindu Male/ Muslim Male Names, N/V",
        "axis": "gender-religion",
        "language": "hi",
        "effect_size": 0.4567,
        "p_value": 0.004,
        "significant": True,
        "exact": False,
        "n_partitions": 10,
        "n_evaluated": 100,
    }
    html = render(make_run(RunKind.SEAT, {"tests": [row], "significance_level": 0.01}))
    assert "<strong>0.457</strong>" in html and "0.0040" in html


def test_indicasa_sections():
    train = {
        "history": [
            {"epoch": 0, "train_loss": None, "delta_sim": 0.1},
            {"epoch": 1, "train_loss": 0.5, "delta_sim": 0.2},
        ],
        "best_epoch": 1,
        "best_delta_sim": 0.2,
        "split": {"train": 4, "held_out": 1},
        "checkpoint": "/x/best",
        "mlp": {
            "vanilla": {"overall": {"macro_f1": 0.5}, "by_category": {"caste": {"macro_f1": 0.5}}},
            "contrastive": {
                "overall": {"macro_f1": 0.75},
                "by_category": {"caste": {"macro_f1": None}},
            },
        },
    }
    html = render(make_run(RunKind.INDICASA_TRAIN, train))
    assert 'id="indicasa-best">0.2000' in html and "0.750" in html and "undefined" in html
    generate = {
        "overall": generation_scores(["S", "S", "A", None]),
        "by_category": {"धर्म": generation_scores([None])},
        "by_language": {},
        "rounds": 2,
        "pairs": 2,
    }
    html = render(make_run(RunKind.INDICASA_GENERATE, generate))
    assert ">धर्म</th>" in html and "33.33" in html and "0.250" in html


def test_nothing_for_other_kinds_or_incomplete_runs():
    assert render(make_run(RunKind.BBQ_MC, {"overall": {}})) == ""
    assert render(make_run(RunKind.CROWS, {})) == ""


def test_the_run_page_shows_the_section(client, researcher):
    from django.urls import reverse

    from tests.conftest import PASSWORD

    pairs = [PairScore("1", "जाति", "hi", "stereo", 0.0, -1.0)]
    run = make_run(RunKind.CROWS, crows_scores(pairs) | {"pairs": 1, "unscorable": 0})
    assert client.login(username=researcher.username, password=PASSWORD)
    page = client.get(reverse("evaluation:run", args=[run.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="crows-table"' in html and ">जाति</th>" in html


def test_a_researcher_starts_a_crows_run_from_the_page(client, researcher, tmp_path):
    from django.urls import reverse

    from apps.catalog.models import SentencePair
    from apps.evaluation.models import ModelEntry, ModelKind
    from tests.conftest import PASSWORD
    from tests.factories import CategoryFactory

    dataset = DatasetFactory(name="ics-page")
    SentencePair.objects.create(
        dataset=dataset,
        external_id="1",
        category=CategoryFactory(name="gender"),
        language="hi",
        direction="stereo",
        sent_more="वह लड़का है।",
        sent_less="वह लड़की है।",
    )
    bert = ModelEntry.objects.create(name="bert", kind=ModelKind.MASKED_LM, path=str(tmp_path))
    assert client.login(username=researcher.username, password=PASSWORD)
    assert 'id="new-bias-run"' in client.get(reverse("evaluation:runs")).content.decode()
    form = {
        "kind": "crows",
        "dataset": dataset.pk,
        "model": bert.pk,
        "languages": "hi",
        "seed": 0,
        "loss": "ntb_xent",
        "epochs": 3,
        "rounds": 5,
    }
    response = client.post(reverse("evaluation:bias-run-new"), form)
    run = EvaluationRun.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse(
        "evaluation:run", args=[run.pk]
    )
    assert run.kind == "crows" and run.params["languages"] == ["hi"]
    # A domain error is shown on the form, nothing created.
    response = client.post(reverse("evaluation:bias-run-new"), form | {"languages": "ta"})
    assert response.status_code == 200 and "no sentence pairs in ta" in response.content.decode()
    assert EvaluationRun.objects.count() == 1
