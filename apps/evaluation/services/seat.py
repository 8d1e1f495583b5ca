"""SEAT runs (IndiBias §5, Appendix B): intersectional effect sizes with permutation tests over
sentence encodings of bleached templates.

The word lists, templates and tests are data: ``apps/evaluation/data/seat.json`` (or another
file in the same shape given as ``data_path``). A test names four lists: targets X and Y (equal
size) and attributes A and B. Every word fills every template of the language ("This is [X].",
"[X] is here."); each filled sentence is one element of its set. The encoder is a sentence
encoder entry (a local sentence-transformers directory) or, without one, the offline
all-MiniLM-L6-v2. Each test × language is one ``ItemResult``; the run keeps the exact word
lists and templates it used in ``params``.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from apps.catalog.models import Dataset

from ..metrics.seat import DEFAULT_SAMPLES, MAX_EXACT_PARTITIONS, seat_test
from ..models import EvaluationRun, ItemResult, ModelEntry, ModelKind, RunKind
from ..registry import evaluation_kind_get
from .lifecycle import (
    EvaluationInputError,
    Progress,
    evaluation_run_create,
    evaluation_run_finish,
    model_kind_require,
)

DEFAULT_DATA = Path(__file__).resolve().parent.parent / "data" / "seat.json"
SIGNIFICANCE = 0.01  # the level IndiBias underlines


@dataclass(frozen=True)
class SeatTestSpec:
    name: str
    axis: str
    X: str
    Y: str
    A: str
    B: str


@dataclass(frozen=True)
class SeatCatalog:
    templates: dict[str, list[str]]
    lists: dict[str, dict]
    tests: list[SeatTestSpec]
    source: str

    def words(self, name: str, language: str, _seen: tuple[str, ...] = ()) -> list[str]:
        """The words of list ``name`` in ``language`` (compositions and unions resolved)."""
        if name in _seen:
            raise EvaluationInputError(f"{self.source}: list {name!r} refers to itself")
        spec = self.lists.get(name)
        if spec is None:
            raise EvaluationInputError(f"{self.source}: unknown word list {name!r}")
        seen = (*_seen, name)
        if "compose" in spec:
            first, second = (self.words(part, language, seen) for part in spec["compose"])
            return [f"{a} {b}" for a in first for b in second]
        if "union" in spec:
            return [w for part in spec["union"] for w in self.words(part, language, seen)]
        words = spec.get(language)
        if not words:
            raise EvaluationInputError(
                f"{self.source}: word list {name!r} has no words in language {language!r}"
            )
        return [unicodedata.normalize("NFC", w.strip()) for w in words]

    def sentences(self, words: list[str], language: str) -> list[str]:
        templates = self.templates.get(language)
        if not templates:
            raise EvaluationInputError(f"{self.source}: no templates for language {language!r}")
        return [t.replace("[X]", w) for w in words for t in templates]


def seat_catalog_load(*, path: str | Path | None = None) -> SeatCatalog:
    """Read and check a SEAT data file; every problem names the file and the entry."""
    source = Path(path or DEFAULT_DATA)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EvaluationInputError(f"{source}: cannot read SEAT data: {exc}") from exc
    problems = []
    for key in ("templates", "lists", "tests"):
        if key not in data:
            problems.append(f"{source}: missing {key!r}")
    if problems:
        raise EvaluationInputError("; ".join(problems))
    templates = {
        lang: [unicodedata.normalize("NFC", t) for t in items]
        for lang, items in data["templates"].items()
    }
    for lang, items in templates.items():
        for t in items:
            if t.count("[X]") != 1:
                problems.append(f"{source}: template {t!r} ({lang}) must contain [X] once")
    tests = []
    for i, entry in enumerate(data["tests"]):
        missing = [k for k in ("name", "axis", "X", "Y", "A", "B") if not entry.get(k)]
        if missing:
            problems.append(f"{source}: tests[{i}] lacks {', '.join(missing)}")
            continue
        for role in ("X", "Y", "A", "B"):
            if entry[role] not in data["lists"]:
                problems.append(
                    f"{source}: test {entry['name']!r}: {role} names unknown list {entry[role]!r}"
                )
        tests.append(SeatTestSpec(**{k: entry[k] for k in ("name", "axis", "X", "Y", "A", "B")}))
    names = [t.name for t in tests]
    if len(set(names)) != len(names):
        problems.append(f"{source}: test names must be unique")
    if problems:
        raise EvaluationInputError("; ".join(problems))
    return SeatCatalog(templates, data["lists"], tests, str(source))


def _resolve(catalog: SeatCatalog, tests: list[str] | None, languages: list[str]) -> list[dict]:
    chosen = catalog.tests
    if tests:
        unknown = sorted(set(tests) - {t.name for t in catalog.tests})
        if unknown:
            raise EvaluationInputError(f"Unknown SEAT test(s): {', '.join(unknown)}")
        chosen = [t for t in catalog.tests if t.name in tests]
    resolved = []
    for language in languages:
        for spec in chosen:
            sets = {
                role: catalog.words(getattr(spec, role), language) for role in ("X", "Y", "A", "B")
            }
            if len(sets["X"]) != len(sets["Y"]):
                raise EvaluationInputError(
                    f"SEAT test {spec.name!r} ({language}): X has {len(sets['X'])} words and Y "
                    f"{len(sets['Y'])}; they must be equal"
                )
            resolved.append(
                {
                    "name": spec.name,
                    "axis": spec.axis,
                    "language": language,
                    "lists": {role: getattr(spec, role) for role in ("X", "Y", "A", "B")},
                    "words": sets,
                    "templates": catalog.templates[language],
                }
            )
    return resolved


def seat_run_create(
    *,
    dataset: Dataset,
    model: ModelEntry | None = None,
    languages: list[str] | None = None,
    tests: list[str] | None = None,
    data_path: str | None = None,
    n_samples: int = DEFAULT_SAMPLES,
    max_exact: int = MAX_EXACT_PARTITIONS,
    seed: int = 0,
    created_by=None,
) -> EvaluationRun:
    """``model``: a sentence encoder entry (its own pooling), a masked LM entry (the [CLS]
    state, as IndiBias Appendix B), or None for the offline all-MiniLM-L6-v2."""
    if model is not None:
        model_kind_require(
            model=model, kinds=evaluation_kind_get(RunKind.SEAT).model_kinds, what="A SEAT run"
        )
    languages = languages or ["en"]
    catalog = seat_catalog_load(path=data_path)
    resolved = _resolve(catalog, tests, languages)  # every problem surfaces before the job
    params = {
        "languages": languages,
        "tests": [r["name"] for r in resolved if r["language"] == languages[0]],
        "data": catalog.source,
        "n_samples": n_samples,
        "max_exact": max_exact,
        "seed": seed,
        "resolved": resolved,
    }
    label = model.name if model else "all-MiniLM-L6-v2 (default)"
    return evaluation_run_create(
        kind=RunKind.SEAT,
        dataset=dataset,
        model=model,
        model_label=label,
        params=params,
        title=f"SEAT: {label}, {len(resolved)} tests",
        unit="tests",
        created_by=created_by,
    )


def seat_run_execute(*, run: EvaluationRun, progress: Progress) -> dict[str, Any]:
    from worker.engines.embedder import Embedder

    params = run.params
    resolved = params["resolved"]
    path = run.model.resolved_path() if run.model else None
    device = run.model.device if run.model else "cpu"
    if run.model and run.model.kind == ModelKind.MASKED_LM:
        from worker.engines.masked_lm import ClsEncoder

        embedder = ClsEncoder(path, device=device)
        model_info = embedder.model_info()
    else:
        embedder = Embedder(path, device=device)
        model_info = {
            "name": run.model_label,
            "path": str(embedder.model_path),
            "device": embedder.device,
            "kind": "sentence_encoder",
        }
    model_info["dimension"] = embedder.dimension
    progress(0, len(resolved))
    # Every distinct sentence is encoded once for the whole run.
    texts: dict[str, None] = {}
    for test in resolved:
        for words in test["words"].values():
            texts.update(dict.fromkeys(_sentences(test, words)))
    unique = list(texts)
    vectors = embedder.encode(unique)
    index = {text: i for i, text in enumerate(unique)}
    rows = []
    items = []
    for done, test in enumerate(resolved, start=1):
        sets = {
            role: np.asarray(vectors[[index[s] for s in _sentences(test, words)]])
            for role, words in test["words"].items()
        }
        result = seat_test(
            sets["X"],
            sets["Y"],
            sets["A"],
            sets["B"],
            max_exact=params["max_exact"],
            n_samples=params["n_samples"],
            seed=params["seed"],
        )
        row = {
            "name": test["name"],
            "axis": test["axis"],
            "language": test["language"],
            **result.as_dict(),
            "significant": result.p_value < SIGNIFICANCE,
            "lists": test["lists"],
        }
        rows.append(row)
        items.append(
            ItemResult(
                item_key=f"{test['language']}:{test['name']}"[:200],
                category=test["axis"],
                language=test["language"],
                payload=row,
            )
        )
        progress(done, len(resolved))
    results = {
        "tests": rows,
        "significance_level": SIGNIFICANCE,
        "languages": params["languages"],
        "axes": sorted({r["axis"] for r in rows}),
    }
    evaluation_run_finish(run=run, results=results, model_info=model_info, items=items)
    return {
        "run_id": run.pk,
        "tests": len(rows),
        "significant": sum(1 for r in rows if r["significant"]),
    }


def _sentences(test: dict, words: list[str]) -> list[str]:
    return [t.replace("[X]", w) for w in words for t in test["templates"]]
