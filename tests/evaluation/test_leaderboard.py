"""The leaderboard's selectors: which runs give rows (the latest complete BBQ-style run per model
x release x language x setting), the rows' figures and counts, ordering with undefined values
last, filters, CSV, and two runs' heat maps side by side.

Runs are built here with known results: hand-written figures for the ordering and filters, and
results computed by the metric code from stored predictions (services.metrics.run_metrics) where
the board must show exactly what a run computed."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.catalog.models import Category, Dataset, Instance
from apps.core.models import Job
from apps.evaluation import leaderboard
from apps.evaluation.metrics.bbq import METRIC_KEYS
from apps.evaluation.models import EvaluationRun, ModelEntry, Prediction, RunKind
from apps.evaluation.services.metrics import run_metrics
from apps.releases.models import Release, ReleaseInstance
from tests.evaluation.bbq_data import bbq_release

pytestmark = pytest.mark.django_db

NO_AMB = "no ambiguous items (n_amb = 0)"


def scores(n_amb: int = 4, n_dis: int = 4, **values) -> dict:
    """One group's figures as bbq_scores writes them: every METRIC_KEY (None when not given,
    with a reason under `undefined`) and the counts."""
    group = {
        "n_amb": n_amb,
        "n_dis": n_dis,
        "n_np": n_dis // 2,
        "n_nnp": n_dis - n_dis // 2,
        "n_unanswered": 0,
        "n_roles_unclear": 0,
    }
    undefined = {}
    for key in METRIC_KEYS:
        group[key] = values.get(key)
        if group[key] is None:
            undefined[key] = NO_AMB if key.endswith(("_a", "_amb")) else "no disambiguated items"
    group["undefined"] = undefined
    return group


def results(overall: dict, by_language: dict[str, dict], categories=("Caste", "Religion")) -> dict:
    """A run's stored results: overall, by language, and category x language cells (each cell
    the language's figures, so heat maps have something to draw)."""
    return {
        "overall": overall,
        "by_category": {c: overall for c in categories},
        "by_language": by_language,
        "by_category_language": [
            {"category": c, "language": language, **group}
            for c in categories
            for language, group in sorted(by_language.items())
        ],
        "by_category_language_condition": [],
        "by_noun_type": {},
        "by_category_noun_type": [],
    }


def release_of(name: str = "board-data", number: int = 1) -> Release:
    dataset, _ = Dataset.objects.get_or_create(name=name)
    return Release.objects.create(dataset=dataset, number=number, counts={"total": 0})


def complete_run(
    *,
    release: Release | None,
    model_label: str,
    results: dict,
    kind: str = RunKind.BBQ_MC,
    model: ModelEntry | None = None,
    shots: int = 0,
    instruction_language: str = "en",
    status: str = Job.Status.SUCCEEDED,
    age_minutes: int = 0,
    dataset: Dataset | None = None,
) -> EvaluationRun:
    """A run whose job has finished (`status`) with `results` stored, `age_minutes` old."""
    job_kind = {"imported": "import_predictions", "crows": "crows"}.get(kind, "evaluate")
    finished = timezone.now() - timedelta(minutes=age_minutes)
    job = Job.objects.create(kind=job_kind, status=status, finished_at=finished)
    run = EvaluationRun.objects.create(
        kind=kind,
        dataset=dataset or release.dataset,
        release=release,
        model=model,
        model_label=model_label,
        shots=shots,
        instruction_language=instruction_language,
        job=job,
        results=results,
    )
    EvaluationRun.objects.filter(pk=run.pk).update(created_at=finished)
    run.refresh_from_db()
    return run


def two_language_results(acc_a_hi: float | None, acc_a_ta: float | None, bs_a: float) -> dict:
    hi = scores(acc_a=acc_a_hi, acc_d=0.5, bs_a=bs_a, sbs_d=0.25)
    ta = scores(
        acc_a=acc_a_ta, acc_d=0.75, bs_a=-bs_a, sbs_d=0.5, n_amb=0 if acc_a_ta is None else 4
    )
    overall = scores(acc_a=0.5, acc_d=0.625, bs_a=0.0, sbs_d=0.375, n_amb=8, n_dis=8)
    return results(overall, {"hi": hi, "ta": ta})


def _key(row: dict) -> tuple:
    return (row["model"], row["release"], row["language"], row["setting"])


# --- which runs, which rows ----------------------------------------------------------------


def test_one_row_per_model_release_language_and_setting_from_the_latest_complete_run():
    release = release_of()
    old = complete_run(
        release=release,
        model_label="m1",
        results=two_language_results(0.1, 0.1, 0.1),
        age_minutes=60,
    )
    new = complete_run(
        release=release, model_label="m1", results=two_language_results(0.9, 0.8, 0.2)
    )
    # Newer, but not complete: a partial (cancelled) run, a queued one and a failed one.
    for status in (Job.Status.CANCELLED, Job.Status.QUEUED, Job.Status.FAILED):
        complete_run(
            release=release,
            model_label="m1",
            results=two_language_results(0.0, 0.0, 0.0),
            status=status,
            age_minutes=-5,
        )
    two_shot = complete_run(
        release=release,
        model_label="m1",
        results=two_language_results(0.3, 0.3, 0.3),
        shots=2,
        instruction_language="target",
    )
    rows = leaderboard.leaderboard_rows()
    assert sorted(_key(r) for r in rows) == sorted(
        ("m1", release.pk, language, setting)
        for language in ("all", "hi", "ta")
        for setting in ("0-en", "2-target")
    )
    by_key = {_key(r): r for r in rows}
    zero = by_key[("m1", release.pk, "hi", "0-en")]
    assert zero["run"] == new.pk != old.pk and zero["acc_a"] == 0.9
    assert by_key[("m1", release.pk, "all", "0-en")]["acc_d"] == 0.625
    assert by_key[("m1", release.pk, "ta", "2-target")]["run"] == two_shot.pk
    assert by_key[("m1", release.pk, "ta", "2-target")]["setting_label"] == (
        "two-shot, instruction in the item's language"
    )


def test_imported_predictions_are_rows_with_their_own_setting_and_other_kinds_are_not():
    release = release_of()
    imported = complete_run(
        release=release,
        model_label="made elsewhere",
        kind=RunKind.IMPORTED,
        results=two_language_results(0.4, 0.6, 0.1),
    )
    complete_run(
        release=release,
        model_label="crows model",
        kind=RunKind.CROWS,
        results={"overall": {"bias_percentage": 0.5}},
    )
    rows = leaderboard.leaderboard_rows()
    assert {r["model"] for r in rows} == {"made elsewhere"}
    assert {r["setting"] for r in rows} == {"imported"}
    assert all(r["run"] == imported.pk and r["shots"] is None for r in rows)


def test_a_row_carries_what_the_run_computed_from_its_predictions():
    """A run scored from stored predictions (the metric code, not hand-written figures): each
    row is the run's own group, every figure and count, undefined ones with their reason."""
    release = bbq_release()
    model = ModelEntry.objects.create(name="m (random weights, demo)", kind="causal_lm", demo=True)
    run = complete_run(release=release, model_label=model.name, model=model, results={})
    # Always the first option: some right, some stereotypical, some unknown.
    Prediction.objects.bulk_create(
        Prediction(run=run, instance=instance, chosen=0)
        for instance in Instance.objects.filter(dataset=release.dataset)
    )
    computed = run_metrics(run=run)
    rows = {r["language"]: r for r in leaderboard.leaderboard_rows()}
    assert set(rows) == {"all", "en", "hi"}
    for language, group in [("all", computed["overall"]), *computed["by_language"].items()]:
        row = rows[language]
        for key in (*METRIC_KEYS, *leaderboard.COUNT_KEYS):
            assert row[key] == group[key], (language, key)
        assert row["undefined"] == {k: v for k, v in group["undefined"].items() if k in METRIC_KEYS}
        assert row["demo"] is True and row["model_id"] == model.pk
    # This release has 8 ambiguous and 8 disambiguated items.
    assert (rows["all"]["n_amb"], rows["all"]["n_dis"]) == (8, 8)


def test_every_figure_names_the_count_it_is_computed_over():
    assert set(leaderboard.METRIC_N) == set(METRIC_KEYS)
    assert set(leaderboard.METRIC_N.values()) <= set(leaderboard.COUNT_KEYS)


# --- ordering, filters ---------------------------------------------------------------------


@pytest.fixture
def board():
    """Three models on one release (zero-shot), one of them also two-shot; Tamil's Acc_A is
    undefined for m2 (no ambiguous Tamil items)."""
    release = release_of()
    complete_run(release=release, model_label="m1", results=two_language_results(0.5, 0.2, 0.3))
    complete_run(release=release, model_label="M2", results=two_language_results(0.9, None, -0.4))
    complete_run(release=release, model_label="m3", results=two_language_results(0.1, 0.7, 0.0))
    complete_run(
        release=release,
        model_label="m3",
        results=two_language_results(0.6, 0.6, 0.6),
        shots=2,
    )
    other = release_of(name="other-data")
    complete_run(release=other, model_label="m1", results=two_language_results(0.2, 0.2, 0.2))
    return {"release": release, "other": other}


def _table(**params) -> list[dict]:
    return leaderboard.leaderboard_table(query=leaderboard.leaderboard_query(params))


def test_ordering_by_a_figure_puts_undefined_values_last_both_ways(board):
    ascending = _table(language="ta", ordering="acc_a")
    descending = _table(language="ta", ordering="-acc_a")
    assert [r["acc_a"] for r in ascending] == [0.2, 0.2, 0.6, 0.7, None]
    assert [r["acc_a"] for r in descending] == [0.7, 0.6, 0.2, 0.2, None]
    assert ascending[-1]["model"] == descending[-1]["model"] == "M2"
    # Ties keep the model, dataset, release order in both directions.
    assert [(r["model"], r["dataset_name"]) for r in ascending[:2]] == [
        ("m1", "board-data"),
        ("m1", "other-data"),
    ]
    assert [(r["model"], r["dataset_name"]) for r in descending[2:4]] == [
        ("m1", "board-data"),
        ("m1", "other-data"),
    ]


def test_ordering_by_a_signed_figure_and_by_labels(board):
    hindi = _table(language="hi", release=board["release"].pk, setting="0-en", ordering="-bs_a")
    assert [(r["model"], r["bs_a"]) for r in hindi] == [("m1", 0.3), ("m3", 0.0), ("M2", -0.4)]
    by_model = _table(release=board["release"].pk, setting="0-en", ordering="model")
    # Case does not matter; "all" languages come first within a model.
    assert [(r["model"], r["language"]) for r in by_model[:4]] == [
        ("m1", "all"),
        ("m1", "hi"),
        ("m1", "ta"),
        ("M2", "all"),
    ]
    assert [r["model"] for r in _table(ordering="-model")][0] == "m3"
    settings = [r["setting"] for r in _table(model="m3", language="all", ordering="-setting")]
    assert settings == ["2-en", "0-en"]


def test_filters_narrow_the_rows(board):
    assert {r["dataset"] for r in _table(dataset=board["other"].dataset_id)} == {
        board["other"].dataset_id
    }
    assert {r["release"] for r in _table(release=board["release"].pk)} == {board["release"].pk}
    assert {r["model"] for r in _table(model="M2")} == {"M2"}
    assert len(_table(model="m2")) == 0  # a label, exactly
    assert {r["language"] for r in _table(language="all")} == {"all"}
    assert [r["model"] for r in _table(setting="2-en")] == ["m3", "m3", "m3"]
    assert len(_table()) == 15


def test_unknown_filters_and_orderings_are_reported_not_guessed():
    query = leaderboard.leaderboard_query(
        {"dataset": "x", "release": "-1", "setting": "3-en", "ordering": "-colour"}
    )
    assert len(query.errors) == 4
    assert (query.dataset, query.release, query.setting, query.ordering) == (
        None,
        None,
        "",
        "model",
    )
    assert leaderboard.leaderboard_query({"ordering": "-sbs_d"}).errors == ()


def test_choices_list_what_the_rows_hold(board):
    choices = leaderboard.leaderboard_choices(leaderboard.leaderboard_rows())
    assert [label for _, label in choices["dataset"]] == ["board-data", "other-data"]
    assert [value for value, _ in choices["language"]] == ["all", "hi", "ta"]
    assert choices["language"][1] == ("hi", "hi (Hindi)")
    assert [value for value, _ in choices["setting"]] == ["0-en", "2-en"]
    assert [value for value, _ in choices["model"]] == ["m1", "M2", "m3"]


# --- CSV -----------------------------------------------------------------------------------


def test_the_csv_holds_exactly_the_rows_in_their_order_with_undefined_reasons(board):
    rows = _table(language="ta", ordering="-acc_a")
    text = leaderboard.leaderboard_csv(rows)
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert list(parsed[0]) == leaderboard.CSV_COLUMNS
    assert [(r["model"], r["dataset"]) for r in parsed] == [
        (r["model"], r["dataset_name"]) for r in rows
    ]
    assert [r["acc_a"] for r in parsed] == ["0.7", "0.6", "0.2", "0.2", ""]
    last = parsed[-1]
    assert last["model"] == "M2" and last["acc_a_undefined"] == NO_AMB
    assert last["n_amb"] == "0" and last["acc_d"] == "0.75" and last["acc_d_undefined"] == ""
    assert parsed[0]["setting"] == "0-en" and parsed[0]["release"] == "1"
    assert {r["demo"] for r in parsed} == {"no"}


def test_full_precision_in_the_csv():
    release = release_of()
    complete_run(release=release, model_label="m", results=two_language_results(1 / 3, 0.5, 0.1))
    parsed = list(csv.DictReader(io.StringIO(leaderboard.leaderboard_csv(_table(language="hi")))))
    assert float(parsed[0]["acc_a"]) == 1 / 3


# --- heat maps side by side ----------------------------------------------------------------


def test_two_runs_heat_maps_side_by_side(board):
    first, second = EvaluationRun.objects.filter(shots=0).order_by("id")[:2]
    maps = leaderboard.heat_maps_side_by_side(run_ids=[second.pk, first.pk], metric="acc_a")
    assert [panel["run"].pk for panel in maps["panels"]] == [second.pk, first.pk]
    grid = maps["panels"][0]["map"]
    assert grid["languages"] == ["hi", "ta"]
    assert [row["category"] for row in grid["rows"]] == ["Caste", "Religion"]
    tamil = grid["rows"][0]["cells"][1]
    assert tamil["value"] is None and tamil["reason"] == NO_AMB  # M2's undefined Acc_A
    assert grid["rows"][0]["cells"][0]["value"] == 0.9
    output = leaderboard.heat_maps_output(maps)
    assert output["runs"][0]["rows"][0]["cells"][1]["undefined"] == NO_AMB
    assert output["runs"][1]["rows"][1]["cells"][0]["value"] == 0.5


def test_heat_maps_refuse_what_they_cannot_draw(board):
    run = EvaluationRun.objects.order_by("id").first()
    crows = complete_run(
        release=board["release"], model_label="c", kind=RunKind.CROWS, results={"overall": {}}
    )
    queued = complete_run(
        release=board["release"],
        model_label="q",
        results=two_language_results(0.1, 0.1, 0.1),
        status=Job.Status.QUEUED,
    )
    for ids, metric, message in [
        ([run.pk], "colour", "metric"),
        ([], "acc_a", "one or two"),
        ([run.pk, run.pk + 1, run.pk + 2], "acc_a", "one or two"),
        ([run.pk, 10**9], "acc_a", "no evaluation run with id 1000000000"),
        ([crows.pk], "acc_a", "no BBQ-style figures"),
        ([queued.pk], "acc_a", "is queued"),
    ]:
        with pytest.raises(leaderboard.HeatMapsError, match=message):
            leaderboard.heat_maps_side_by_side(run_ids=ids, metric=metric)
    assert leaderboard.run_ids_parse(["3,4", "4", " 5 "]) == [3, 4, 5]
    with pytest.raises(leaderboard.HeatMapsError, match="not a run id"):
        leaderboard.run_ids_parse(["3,x"])


def test_indic_language_rows_carry_their_names(board):
    row = _table(language="ta")[0]
    assert (row["language_name"], row["autonym"]) == ("Tamil", "தமிழ்")
    assert _table(language="hi")[0]["autonym"] == "हिन्दी"


def test_runs_without_a_release_are_rows_of_their_dataset():
    dataset = Dataset.objects.create(name="live")
    Category.objects.get_or_create(name="Caste")
    complete_run(
        release=None,
        dataset=dataset,
        model_label="m",
        kind=RunKind.IMPORTED,
        results=two_language_results(0.5, 0.5, 0.5),
    )
    released = release_of(name="live")
    complete_run(release=released, model_label="m", results=two_language_results(0.1, 0.1, 0.1))
    rows = _table(language="all", ordering="release")
    assert [(r["release_number"], r["setting"]) for r in rows] == [(1, "0-en"), (None, "imported")]
    assert ReleaseInstance.objects.count() == 0  # hand-made results: no items needed
