"""Reads of the evaluation leaderboard: models x datasets/releases x languages x prompt settings,
one row each, from the latest complete BBQ-style run; filtering, ordering, CSV; per-category heat
maps of two runs side by side.

Which runs. The kinds that store one `Prediction` per item (`selectors.scored_by_prediction_kinds`:
`bbq_mc` runs and `imported` predictions): their results are the BBQ-style figures this board
shows. CrowS-Pairs, SEAT and IndiCASA runs measure other things and have their own pages. Only a
run whose job succeeded (status complete) counts: a partial run's figures are not those of the
release.

Which row. A run gives one row for all its items ("all": `results["overall"]`) and one per item
language (`results["by_language"]`). The row's key is (model, dataset, release, language,
setting); when several runs give the same key, the latest run's row is shown. The prompt setting
is the run's shots x instruction language (BharatBBQ scores zero-shot, two-shot with the English
instruction and two-shot with the instruction in the item's language); imported predictions
carry no setting (the file does not say how they were made), so theirs is "imported".

Figures. `METRIC_KEYS` in their order, each `None` when undefined with the reason under
`undefined` (never 0). Each figure's n is the count of the items it is computed over
(`METRIC_N`): the ambiguous items (n_amb), the disambiguated ones (n_dis) or, for SBS_D, the
disambiguated items whose gold answer goes against the stereotype (n_nnp).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet
from django.db.models.fields.json import KeyTransform

from apps.catalog.models import AUTONYMS, LANGUAGE_NAMES, Dataset
from apps.core.filters import ReferenceNotFound, reference_lookup
from apps.releases.models import Release

from . import selectors
from .metrics.bbq import METRIC_KEYS, METRIC_NAMES, SIGNED_KEYS
from .models import STATUS_OF_JOB, EvaluationRun, InstructionLanguage, RunStatus

# The row for all the run's items, beside one per item language.
ALL_LANGUAGES = "all"

# The count each figure is computed over (the items of its context condition).
METRIC_N = {
    "acc_a": "n_amb",
    "acc_d": "n_dis",
    "bs_a": "n_amb",
    "bs_d": "n_dis",
    "sbs_a": "n_amb",
    "sbs_d": "n_nnp",
    "s_amb": "n_amb",
    "s_dis": "n_dis",
    "diff_bias_a": "n_amb",
    "diff_bias_d": "n_dis",
}
COUNT_KEYS = ("n_amb", "n_dis", "n_np", "n_nnp", "n_unanswered")


@dataclass(frozen=True)
class Setting:
    key: str
    label: str
    shots: int | None
    instruction_language: str | None
    # What a table cell says (the label is its title).
    short: str = ""


IMPORTED_SETTING = Setting("imported", "imported (setting not recorded)", None, None, "imported")
# In the order the filter lists them: BharatBBQ's three settings first.
SETTINGS = {
    setting.key: setting
    for setting in (
        Setting(
            "0-en", "zero-shot, English instruction", 0, InstructionLanguage.ENGLISH, "0-shot · en"
        ),
        Setting(
            "2-en", "two-shot, English instruction", 2, InstructionLanguage.ENGLISH, "2-shot · en"
        ),
        Setting(
            "2-target",
            "two-shot, instruction in the item's language",
            2,
            InstructionLanguage.TARGET,
            "2-shot · target",
        ),
        Setting(
            "0-target",
            "zero-shot, instruction in the item's language",
            0,
            InstructionLanguage.TARGET,
            "0-shot · target",
        ),
        IMPORTED_SETTING,
    )
}


def run_setting(run: EvaluationRun) -> Setting:
    """The run's prompt setting; imported predictions have none of their own."""
    try:
        prompted = run.evaluation_kind.prompted
    except LookupError:
        prompted = False
    if not prompted:
        return IMPORTED_SETTING
    key = f"{run.shots}-{run.instruction_language}"
    label = f"{run.shots}-shot, {run.instruction_language}"
    return SETTINGS.get(key) or Setting(key, label, run.shots, run.instruction_language, label)


# --- which runs ----------------------------------------------------------------------------


def leaderboard_runs() -> QuerySet[EvaluationRun]:
    """Complete runs of the BBQ-style kinds, newest first, with only the parts of their results
    the board shows (a run's results hold every breakdown; the board reads two)."""
    complete = [job for job, status in STATUS_OF_JOB.items() if status == RunStatus.COMPLETE]
    return (
        EvaluationRun.objects.filter(
            kind__in=selectors.scored_by_prediction_kinds(), job__status__in=complete
        )
        .select_related("dataset", "release", "model", "job")
        .defer("results", "prompt_text", "prompt_example", "params", "model_info", "report")
        .annotate(
            board_overall=KeyTransform("overall", "results"),
            board_by_language=KeyTransform("by_language", "results"),
        )
        .order_by("-created_at", "-id")
    )


# --- rows ----------------------------------------------------------------------------------


def _row(run: EvaluationRun, setting: Setting, language: str, scores: Mapping) -> dict[str, Any]:
    release = run.release
    return {
        "run": run.pk,
        "kind": run.kind,
        "model": run.model_label,
        "model_id": run.model_id,
        "demo": run.is_demo,
        "dataset": run.dataset_id,
        "dataset_name": run.dataset.name,
        "release": run.release_id,
        "release_number": release.number if release is not None else None,
        "language": language,
        "language_name": (
            "all languages" if language == ALL_LANGUAGES else LANGUAGE_NAMES.get(language, "")
        ),
        "autonym": AUTONYMS.get(language, ""),
        "setting": setting.key,
        "setting_label": setting.label,
        "setting_short": setting.short,
        "shots": setting.shots,
        "instruction_language": setting.instruction_language,
        **{key: scores.get(key) for key in COUNT_KEYS},
        **{key: scores.get(key) for key in METRIC_KEYS},
        "undefined": {
            key: reason
            for key, reason in (scores.get("undefined") or {}).items()
            if key in METRIC_N and scores.get(key) is None
        },
        "finished_at": run.finished_at,
    }


def leaderboard_rows(*, runs: Iterable[EvaluationRun] | None = None) -> list[dict[str, Any]]:
    """One row per (model, dataset, release, language, setting), from the latest run that has
    it (`runs` newest first; default: leaderboard_runs())."""
    rows: dict[tuple, dict[str, Any]] = {}
    for run in leaderboard_runs() if runs is None else runs:
        overall = getattr(run, "board_overall", None)
        by_language = getattr(run, "board_by_language", None)
        if overall is None:  # a run not read through leaderboard_runs()
            overall = (run.results or {}).get("overall")
            by_language = (run.results or {}).get("by_language")
        if not overall:
            continue
        setting = run_setting(run)
        groups = [(ALL_LANGUAGES, overall), *sorted((by_language or {}).items())]
        for language, scores in groups:
            key = (run.model_label, run.dataset_id, run.release_id, language, setting.key)
            if key not in rows:
                rows[key] = _row(run, setting, language, scores)
    return list(rows.values())


# --- filters and ordering ------------------------------------------------------------------

# The columns that say what a row is (its key), in the order ties are broken; each is a filter.
_LABELS = ("model", "dataset", "release", "language", "setting")
FILTERS = ("dataset", "release", "model", "language", "setting")
# Columns a board can be ordered by: the row's labels, its counts and every figure.
ORDER_KEYS = (*_LABELS, *COUNT_KEYS, *METRIC_KEYS)
DEFAULT_ORDERING = "model"


class LeaderboardQueryError(ValueError):
    """A filter or ordering parameter that is not one the board knows."""


@dataclass(frozen=True)
class LeaderboardQuery:
    dataset: int | None = None
    release: int | None = None
    model: str = ""
    language: str = ""
    setting: str = ""
    ordering: str = DEFAULT_ORDERING
    errors: tuple[str, ...] = field(default=())

    @property
    def order_key(self) -> str:
        return self.ordering.lstrip("-")

    @property
    def descending(self) -> bool:
        return self.ordering.startswith("-")

    def params(self, **changes: Any) -> dict[str, str]:
        """The query string of this board (with `changes`), without empty values."""
        values = {name: getattr(self, name) for name in (*FILTERS, "ordering")}
        values.update(changes)
        return {name: str(value) for name, value in values.items() if value not in (None, "")}


def _reference(
    params: Mapping[str, Any], name: str, model, name_field: str | None, errors: list[str]
) -> int | None:
    """The id of the object a reference filter names (docs/api.md, "Filters": an id, or a
    name where names are unique); what names nothing is listed in `errors`."""
    raw = str(params.get(name) or "").strip()
    if not raw:
        return None
    try:
        return reference_lookup(model, raw[:200], name_field=name_field).pk
    except ReferenceNotFound as exc:
        errors.append(f"{name}: {exc}")
        return None


def leaderboard_query(params: Mapping[str, Any]) -> LeaderboardQuery:
    """The board's filters and ordering from query parameters; what cannot be read is listed
    in `errors` (the API answers 400 with them; the page shows them and drops the value)."""
    errors: list[str] = []
    dataset = _reference(params, "dataset", Dataset, "name", errors)
    release = _reference(params, "release", Release, None, errors)
    setting = str(params.get("setting") or "").strip()
    if setting and setting not in SETTINGS:
        errors.append(f"setting: {setting[:40]!r} is none of {', '.join(SETTINGS)}")
        setting = ""
    ordering = str(params.get("ordering") or "").strip() or DEFAULT_ORDERING
    if ordering.lstrip("-") not in ORDER_KEYS:
        errors.append(f"ordering: {ordering[:40]!r} is none of {', '.join(ORDER_KEYS)}")
        ordering = DEFAULT_ORDERING
    return LeaderboardQuery(
        dataset=dataset,
        release=release,
        model=str(params.get("model") or "").strip()[:200],
        language=str(params.get("language") or "").strip()[:16],
        setting=setting,
        ordering=ordering,
        errors=tuple(errors),
    )


def _matches(row: Mapping[str, Any], query: LeaderboardQuery) -> bool:
    return (
        (query.dataset is None or row["dataset"] == query.dataset)
        and (query.release is None or row["release"] == query.release)
        and (not query.model or row["model"] == query.model)
        and (not query.language or row["language"] == query.language)
        and (not query.setting or row["setting"] == query.setting)
    )


_SETTING_ORDER = {key: index for index, key in enumerate(SETTINGS)}


def _label_key(row: Mapping[str, Any], column: str) -> tuple:
    """How a label column sorts: names without regard to case, releases by dataset and number,
    "all" languages first, settings in SETTINGS order."""
    if column == "model":
        return (row["model"].casefold(),)
    if column == "dataset":
        return (row["dataset_name"].casefold(), row["dataset"])
    if column == "release":
        number = row["release_number"]
        return (row["dataset_name"].casefold(), number is None, number or 0)
    if column == "language":
        return (row["language"] != ALL_LANGUAGES, row["language"])
    if column == "setting":
        return (_SETTING_ORDER.get(row["setting"], len(_SETTING_ORDER)), row["setting"])
    raise KeyError(column)


def _tie_key(row: Mapping[str, Any]) -> tuple:
    return tuple(part for column in _LABELS for part in _label_key(row, column))


def leaderboard_order(rows: list[dict[str, Any]], *, ordering: str) -> list[dict[str, Any]]:
    """`rows` ordered by one column (`-column`: descending); rows whose value is undefined come
    last in both directions; ties in the model, dataset, release, language, setting order."""
    column = ordering.lstrip("-")
    descending = ordering.startswith("-")
    rows = sorted(rows, key=_tie_key)
    if column in _LABELS:
        return sorted(rows, key=lambda row: _label_key(row, column), reverse=descending)
    defined = [row for row in rows if row.get(column) is not None]
    undefined = [row for row in rows if row.get(column) is None]
    # sorted() is stable with reverse=True too: equal values keep the tie order.
    return sorted(defined, key=lambda row: row[column], reverse=descending) + undefined


def leaderboard_table(
    *, query: LeaderboardQuery, rows: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The board's rows after the query's filters, in its order."""
    rows = leaderboard_rows() if rows is None else rows
    return leaderboard_order([r for r in rows if _matches(r, query)], ordering=query.ordering)


def leaderboard_choices(rows: list[dict[str, Any]]) -> dict[str, list[tuple[str, str]]]:
    """What each filter can be set to: the values the rows have, as (value, label)."""
    datasets = {row["dataset"]: row["dataset_name"] for row in rows}
    releases = {
        row["release"]: f"{row['dataset_name']} r{row['release_number']}"
        for row in rows
        if row["release"] is not None
    }
    languages = {row["language"] for row in rows}
    settings = {row["setting"]: row["setting_label"] for row in rows}
    return {
        "dataset": [(str(pk), name) for pk, name in sorted(datasets.items(), key=lambda i: i[1])],
        "release": [(str(pk), name) for pk, name in sorted(releases.items(), key=lambda i: i[1])],
        "model": [(m, m) for m in sorted({row["model"] for row in rows}, key=str.casefold)],
        "language": [
            (code, language_label(code))
            for code in sorted(languages, key=lambda c: (c != ALL_LANGUAGES, c))
        ],
        "setting": [
            (key, settings[key])
            for key in sorted(settings, key=lambda k: _SETTING_ORDER.get(k, len(SETTINGS)))
        ],
    }


def language_label(code: str) -> str:
    if code == ALL_LANGUAGES:
        return "all languages"
    name = LANGUAGE_NAMES.get(code)
    return f"{code} ({name})" if name else code


def column_label(key: str) -> str:
    return METRIC_NAMES.get(key) or key


# --- CSV -----------------------------------------------------------------------------------

CSV_COLUMNS = [
    "run",
    "kind",
    "model",
    "demo",
    "dataset",
    "release",
    "language",
    "setting",
    "shots",
    "instruction_language",
    *COUNT_KEYS,
    *METRIC_KEYS,
    *(f"{key}_undefined" for key in METRIC_KEYS),
]


def leaderboard_csv(rows: Iterable[Mapping[str, Any]]) -> str:
    """The rows as CSV, in the order given: figures unrounded (repr), an undefined figure an
    empty cell with its reason in `<figure>_undefined`."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        release = "" if row["release_number"] is None else row["release_number"]
        writer.writerow(
            [
                row["run"],
                row["kind"],
                row["model"],
                "yes" if row["demo"] else "no",
                row["dataset_name"],
                release,
                row["language"],
                row["setting"],
                "" if row["shots"] is None else row["shots"],
                row["instruction_language"] or "",
                *("" if row[key] is None else row[key] for key in COUNT_KEYS),
                *("" if row[key] is None else repr(row[key]) for key in METRIC_KEYS),
                *(row["undefined"].get(key, "") for key in METRIC_KEYS),
            ]
        )
    return buffer.getvalue()


# --- heat maps side by side ----------------------------------------------------------------

HEAT_MAP_CHOICES = METRIC_KEYS


class HeatMapsError(ValueError):
    """Runs or a metric the side-by-side heat maps cannot show."""


def run_ids_parse(values: Iterable[str]) -> list[int]:
    """Run ids from `?runs=1,2` and/or `?runs=1&runs=2`, in order, once each."""
    ids: list[int] = []
    for value in values:
        for part in str(value).split(","):
            part = part.strip()
            if not part:
                continue
            if not (part.isdigit() and 0 < int(part) < 2**63):
                raise HeatMapsError(f"runs: {part[:40]!r} is not a run id")
            if int(part) not in ids:
                ids.append(int(part))
    return ids


def heat_maps_side_by_side(*, run_ids: list[int], metric: str) -> dict[str, Any]:
    """Category x language heat maps (selectors.heat_map) of one metric for one or two complete
    BBQ-style runs, in the order asked."""
    if metric not in HEAT_MAP_CHOICES:
        raise HeatMapsError(f"metric: {metric[:40]!r} is none of {', '.join(HEAT_MAP_CHOICES)}")
    if not 1 <= len(run_ids) <= 2:
        raise HeatMapsError("runs: give one or two run ids, e.g. runs=12,15")
    found = {
        run.pk: run
        for run in EvaluationRun.objects.filter(pk__in=run_ids).select_related(
            "dataset", "release", "model", "job"
        )
    }
    missing = [str(pk) for pk in run_ids if pk not in found]
    if missing:
        raise HeatMapsError(f"no evaluation run with id {', '.join(missing)}")
    kinds = selectors.scored_by_prediction_kinds()
    panels = []
    for pk in run_ids:
        run = found[pk]
        if run.kind not in kinds:
            raise HeatMapsError(f"run {pk} is a {run.kind_label} run: it has no BBQ-style figures")
        if not run.is_complete or not (run.results or {}).get("overall"):
            raise HeatMapsError(f"run {pk} is {run.status}: only complete runs have heat maps")
        setting = run_setting(run)
        panels.append(
            {
                "run": run,
                "setting": setting,
                "map": selectors.heat_map(run.results, metric),
            }
        )
    return {
        "metric": metric,
        "label": METRIC_NAMES[metric],
        "signed": metric in SIGNED_KEYS,
        "panels": panels,
    }


def _cell_reason(cell: Mapping[str, Any]) -> str | None:
    """Why a heat-map cell has no value (None when it has one)."""
    if cell["value"] is not None:
        return None
    return cell["reason"] or "no items of this category in this language"


def heat_maps_output(maps: Mapping[str, Any]) -> dict[str, Any]:
    """The side-by-side heat maps as the API gives them (cells, no drawing sizes)."""
    return {
        "metric": maps["metric"],
        "label": maps["label"],
        "signed": maps["signed"],
        "runs": [
            {
                "run": panel["run"].pk,
                "model": panel["run"].model_label,
                "demo": panel["run"].is_demo,
                "dataset": panel["run"].dataset_id,
                "dataset_name": panel["run"].dataset.name,
                "release": panel["run"].release_id,
                "release_number": (
                    panel["run"].release.number if panel["run"].release is not None else None
                ),
                "setting": panel["setting"].key,
                "setting_label": panel["setting"].label,
                "languages": panel["map"]["languages"],
                "rows": [
                    {
                        "category": row["category"],
                        "cells": [
                            {
                                "language": cell["language"],
                                "value": cell["value"],
                                "n": cell["n"],
                                "undefined": _cell_reason(cell),
                                "fill": cell["fill"],
                            }
                            for cell in row["cells"]
                        ],
                    }
                    for row in panel["map"]["rows"]
                ],
            }
            for panel in maps["panels"]
        ],
    }
