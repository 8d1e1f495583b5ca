"""Tiny random-weight evaluation models for the demo (`manage.py build_demo_eval_models`, run by
scripts/run.sh): built with worker/engines/tiny_lm.py under KASAUTI_MODEL_ROOT and registered
as `ModelEntry(demo=True)`, so a researcher on `make run` can start a BBQ-style run (causal LM)
or a CrowS-Pairs run (masked LM) and see its heat maps and charts. Nothing is downloaded."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import transaction

from apps.core.errors import KasautiError

from ..models import DEMO_LABEL, ModelEntry, ModelKind


@dataclass(frozen=True)
class DemoModel:
    name: str
    kind: str
    path: str  # under KASAUTI_MODEL_ROOT
    builder: str  # worker.engines.tiny_lm function


# The label is in the name, so every place a run's figures appear under its model label (run
# list, run page, comparison, per-model bars, job titles, downloads) says what they are.
DEMO_MODELS = (
    DemoModel(
        f"tiny-gpt2 ({DEMO_LABEL})", ModelKind.CAUSAL_LM, "demo/gpt2-tiny", "build_tiny_gpt2"
    ),
    DemoModel(
        f"tiny-bert ({DEMO_LABEL})", ModelKind.MASKED_LM, "demo/bert-tiny", "build_tiny_bert"
    ),
)
MARKER = "KASAUTI_DEMO_MODEL"


def _demo_words() -> list[str]:
    """Words of the demo fixture, so the tokenizer has pieces for them (still random)."""
    words: list[str] = []
    fixtures = Path(settings.BASE_DIR) / "fixtures" / "demo"
    for name in ("templates.json", "sentence_pairs.json"):
        path = fixtures / name
        if path.is_file():
            words.extend(
                json.dumps(json.loads(path.read_text("utf-8")), ensure_ascii=False).split()
            )
    return words[:20000]


def demo_models_build(*, seed: int = 0, rebuild: bool = True) -> list[str]:
    """Build (or keep, with rebuild=False, a directory that already holds a demo model) and
    register each demo model; returns the names built. Refuses to overwrite a directory that
    holds a model it did not build."""
    from worker.engines import tiny_lm

    root = Path(settings.KASAUTI_MODEL_ROOT)
    built = []
    words = None
    for spec in DEMO_MODELS:
        directory = root / spec.path
        present = (directory / "config.json").is_file()
        if present and not (directory / MARKER).is_file():
            raise KasautiError(
                f"refusing to overwrite {directory}: it holds a model not built here"
            )
        if rebuild or not present:
            words = words if words is not None else _demo_words()
            getattr(tiny_lm, spec.builder)(directory, vocab_words=words, seed=seed)
            (directory / MARKER).write_text(f"random weights, seed {seed}\n")
            built.append(spec.name)
        with transaction.atomic():
            ModelEntry.objects.update_or_create(
                name=spec.name,
                defaults={
                    "kind": spec.kind,
                    "path": spec.path,
                    "demo": True,
                    "notes": f"{DEMO_LABEL}: built by manage.py build_demo_eval_models; "
                    "its figures mean nothing about any real model.",
                },
            )
    return built
