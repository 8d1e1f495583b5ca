"""Fixtures shared by the evaluation tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.evaluation.tiny_models import build_tiny_gpt2


@pytest.fixture(scope="session")
def gpt2_dir(tmp_path_factory) -> Path:
    """A tiny random GPT-2 with room for two-shot prompts (tests/evaluation/tiny_models.py)."""
    return build_tiny_gpt2(tmp_path_factory.mktemp("eval_gpt2"))
