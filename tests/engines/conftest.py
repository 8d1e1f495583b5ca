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


# --- the OpenAI-protocol test server (tests/support_openai_server.py) ------------------------


@pytest.fixture(scope="module")
def completions_server(tiny_gpt2_dir):
    """One server per test module, scoring with the suite's tiny GPT-2."""
    from tests.support_openai_server import OpenAICompletionsServer

    with OpenAICompletionsServer(tiny_gpt2_dir, model_name="tiny") as running:
        yield running


@pytest.fixture
def server(completions_server):
    """The module's server with no requests recorded, no faults pending and its defaults."""
    completions_server.reset()
    yield completions_server
    completions_server.reset()
    completions_server.accept_lists = True
    completions_server.reverse_choices = False
    completions_server.gather = 1
