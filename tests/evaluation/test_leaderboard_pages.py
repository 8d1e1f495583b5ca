"""The leaderboard page: rows with sort links, undefined figures with their reason, filters, the
CSV link, heat maps side by side, the empty states, and the evaluate-all form (researchers only;
the report of what was started and skipped; a common refusal shown on the form)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from apps.evaluation.models import EvaluationRun, ModelEntry, ModelKind
from tests.conftest import PASSWORD
from tests.evaluation.bbq_data import bbq_release
from tests.evaluation.test_leaderboard import complete_run, release_of, two_language_results

pytestmark = pytest.mark.django_db

PAGE = "/evaluation/leaderboard/"


def _login(client, user):
    assert client.login(username=user.username, password=PASSWORD)
    return client


@pytest.fixture
def board():
    release = release_of()
    one = complete_run(
        release=release,
        model_label="m1 (random weights, demo)",
        model=ModelEntry.objects.create(
            name="m1 (random weights, demo)", kind=ModelKind.CAUSAL_LM, demo=True
        ),
        results=two_language_results(0.5, 0.2, 0.3),
    )
    two = complete_run(
        release=release, model_label="m2", results=two_language_results(0.9, None, -0.4)
    )
    return {"release": release, "runs": (one, two)}


def _rows(page: str) -> list[str]:
    return re.findall(r'<tr data-run="(\d+)" data-language="(\w+)"', page)


def test_the_page_shows_rows_sort_links_and_undefined_reasons(client, annotator, board):
    _login(client, annotator)
    page = client.get(PAGE, {"language": "ta", "ordering": "-acc_a"}).content.decode()
    one, two = board["runs"]
    assert _rows(page) == [(str(one.pk), "ta"), (str(two.pk), "ta")]
    # The undefined Acc_A says so, with its reason listed under the table, never as 0.
    cell = re.search(
        r'class="num undefined" data-metric="acc_a" title="undefined: no ambiguous items '
        r'\(n_amb = 0\)">undefined<sup><a href="#why-(\d)"',
        page,
    )
    assert f'id="why-{cell.group(1)}">Undefined: no ambiguous items (n_amb = 0)</li>' in page
    # The sorted header says which way; its link flips the direction and keeps the filters.
    header = re.search(
        r'<th scope="col" class="num" data-column="acc_a" aria-sort="(\w+)">\s*<a href="([^"]+)"',
        page,
    )
    assert header.group(1) == "descending"
    assert "ordering=acc_a" in header.group(2) and "language=ta" in header.group(2)
    assert 'data-column="bs_a" aria-sort="none"' in page
    # The CSV link downloads the same query.
    assert 'href="/api/evaluation/leaderboard/download/?language=ta&amp;ordering=-acc_a"' in page
    assert 'id="demo-note"' in page and "demo</span>" in page
    assert '<span lang="ta" class="autonym">தமிழ்</span>' in page
    # Annotators read; the evaluate-all form is for researchers.
    assert 'id="evaluate-all-form"' not in page


def test_empty_states(client, researcher):
    _login(client, researcher)
    page = client.get(PAGE).content.decode()
    assert "No complete BBQ-style runs yet." in page and 'id="leaderboard-table"' not in page
    assert 'id="csv-link"' not in page and "No complete runs to draw yet." in page
    # Nothing to filter or to choose from yet.
    assert 'id="board-filters"' not in page and 'id="heat-map-form"' not in page
    assert 'id="evaluate-all-form"' in page and "No models registered yet" in page
    release = release_of()
    complete_run(release=release, model_label="m", results=two_language_results(0.1, 0.2, 0.3))
    filtered = client.get(PAGE, {"model": "nobody"}).content.decode()
    assert "No rows match these filters." in filtered
    wrong = client.get(PAGE, {"ordering": "colour"}).content.decode()
    assert "ordering: &#x27;colour&#x27; is none of" in wrong and len(_rows(wrong)) == 3


def test_two_runs_heat_maps_side_by_side_on_the_page(client, annotator, board):
    _login(client, annotator)
    one, two = board["runs"]
    page = client.get(PAGE, {"runs": f"{one.pk},{two.pk}", "metric": "sbs_d"}).content.decode()
    panels = re.findall(r'<div class="panel" data-run="(\d+)">', page)
    assert panels == [str(one.pk), str(two.pk)]
    assert page.count('<figure class="heat-map" data-metric="sbs_d">') == 2
    assert f'<option value="{two.pk}" selected>' in page
    # The sort links keep the heat-map choice.
    assert f"runs={one.pk}%2C{two.pk}" in page
    bad = client.get(PAGE, {"runs": "1,2,3"}).content.decode()
    assert 'id="heat-error"' in bad and "one or two" in bad


def test_a_researcher_evaluates_every_model_from_the_page(
    client, researcher, tiny_gpt2_dir, tmp_path, settings
):
    settings.KASAUTI_MODEL_ROOT = tmp_path
    ModelEntry.objects.create(name="tiny", kind=ModelKind.CAUSAL_LM, path=str(tiny_gpt2_dir))
    ModelEntry.objects.create(name="gone", kind=ModelKind.CAUSAL_LM, path="missing")
    release = bbq_release()
    _login(client, researcher)
    form = client.get(PAGE).content.decode()
    assert f'<option value="{release.pk}">mini-bbq — release 1' in form
    assert re.search(
        r"gone: <span class=\"badge status-rejected\">skipped</span> model directory", form
    )
    response = client.post(
        reverse("evaluation:leaderboard-evaluate-all"),
        {"release": release.pk, "shots": 0, "instruction_language": "en"},
    )
    assert response.status_code == 200
    page = response.content.decode()
    run = EvaluationRun.objects.get()
    assert run.model.name == "tiny" and run.status == "queued"
    assert f'<a href="/evaluation/runs/{run.pk}/">Run #{run.pk}</a>: tiny' in page
    assert 'id="skipped"' in page and "does not exist" in page


def test_a_common_refusal_is_shown_on_the_form_and_starts_nothing(
    client, researcher, tiny_gpt2_dir
):
    ModelEntry.objects.create(name="tiny", kind=ModelKind.CAUSAL_LM, path=str(tiny_gpt2_dir))
    release = bbq_release(conditions=("ambig",))
    _login(client, researcher)
    response = client.post(
        reverse("evaluation:leaderboard-evaluate-all"),
        {"release": release.pk, "shots": 0, "instruction_language": "en"},
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert 'id="evaluate-all-error"' in page and "nothing was started" in page
    assert "no disambiguated contexts" in page
    assert not EvaluationRun.objects.exists()


def test_annotators_cannot_evaluate_every_model(client, annotator):
    _login(client, annotator)
    release = release_of()
    response = client.post(reverse("evaluation:leaderboard-evaluate-all"), {"release": release.pk})
    assert response.status_code == 403
    assert client.get(reverse("evaluation:leaderboard-evaluate-all")).status_code == 405
    assert not EvaluationRun.objects.exists()


def test_the_evaluation_page_links_the_leaderboard(client, annotator):
    _login(client, annotator)
    page = client.get(reverse("evaluation:runs")).content.decode()
    assert f'href="{PAGE}" id="leaderboard-link"' in page
