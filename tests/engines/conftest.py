"""Fixtures for the engine tests: plain pytest, no Django, no database.

The tiny checkpoints are built once per session into a temporary directory (about a second).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from worker.engines.tiny import build_tiny_indictrans2
from worker.engines.translator import Translator


@pytest.fixture(scope="session")
def tiny_model_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny_indictrans2")
    return {
        direction: build_tiny_indictrans2(root / direction, direction)
        for direction in ("en-indic", "indic-en")
    }


@pytest.fixture(scope="session")
def en_indic(tiny_model_dirs: dict[str, Path]) -> Translator:
    return Translator(tiny_model_dirs["en-indic"], device="cpu")


@pytest.fixture(scope="session")
def indic_en(tiny_model_dirs: dict[str, Path]) -> Translator:
    return Translator(tiny_model_dirs["indic-en"], device="cpu")
