"""Causal-LM option scores with the prompt computed once equal the naive full passes."""

from __future__ import annotations

import hashlib

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from worker.engines.errors import ModelConfigurationError
from worker.engines.lm_scorer import load_causal_lm

ITEMS = [
    (
        "Context: The doctor and the nurse were waiting at the hospital.\n"
        "Question: Who was careless?\nThe correct answer is:",
        [" The doctor", " The nurse", " Cannot be determined"],
    ),
    (
        "संदर्भ: डॉक्टर और नर्स अस्पताल में इंतज़ार कर रहे थे। प्रश्न: कौन लापरवाह था? उत्तर:",
        [" डॉक्टर", " नर्स", " पता नहीं लगाया जा सकता"],
    ),
    ("Who?", [" a", " the grandfather went to the market yesterday", " Unknown"]),
    ("दादा और पोता", [" बाज़ार", " x"]),  # two options: rows per item may differ
]


def _naive(path, prompt, option):
    """One uncached forward pass over prompt + option tokens (the reference)."""
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path).eval()
    prompt_ids = tokenizer(prompt)["input_ids"]
    option_ids = tokenizer(prompt + option)["input_ids"][len(prompt_ids) :]
    ids = torch.tensor([prompt_ids + option_ids])
    with torch.no_grad():
        logprobs = model(ids).logits.log_softmax(-1)[0]
    total = sum(
        logprobs[len(prompt_ids) + i - 1, token].item() for i, token in enumerate(option_ids)
    )
    return total, len(option_ids)


@pytest.fixture(scope="module")
def scorer(tiny_gpt2_dir):
    return load_causal_lm(tiny_gpt2_dir)


@pytest.mark.parametrize("batch_size", [1, 3, 8])
def test_cached_batched_scores_equal_three_full_passes(scorer, tiny_gpt2_dir, batch_size):
    got = scorer.score_options(ITEMS, batch_size=batch_size)
    assert len(got) == len(ITEMS)
    for (prompt, options), scores in zip(ITEMS, got, strict=True):
        assert len(scores.options) == len(options)
        for option, score in zip(options, scores.options, strict=True):
            total, n = _naive(tiny_gpt2_dir, prompt, option)
            assert score.n_tokens == n
            assert score.sum_logprob == pytest.approx(total, abs=1e-4)
            assert score.mean_logprob == pytest.approx(total / n, abs=1e-4)
    # The random model is not uniform: options get different scores.
    assert len(set(got[0].sum_logprob)) == 3


def test_best_option_by_mean_and_sum(scorer):
    scores = scorer.score_options(ITEMS[:1], batch_size=1)[0]
    means, sums = scores.mean_logprob, scores.sum_logprob
    assert scores.best() == means.index(max(means))
    assert scores.best(by="sum") == sums.index(max(sums))


def test_sentence_logprob_scores_every_token_after_the_start_token(scorer, tiny_gpt2_dir):
    texts = ["The poor family lived in a hut.", "वह लड़का डॉक्टर है।", "a"]
    got = scorer.sentence_logprob(texts, batch_size=2)
    tokenizer = AutoTokenizer.from_pretrained(tiny_gpt2_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_gpt2_dir).eval()
    for text, (total, n) in zip(texts, got, strict=True):
        ids = [tokenizer.bos_token_id, *tokenizer(text)["input_ids"]]
        with torch.no_grad():
            logprobs = model(torch.tensor([ids])).logits.log_softmax(-1)[0]
        expected = sum(logprobs[i - 1, ids[i]].item() for i in range(1, len(ids)))
        assert n == len(ids) - 1
        assert total == pytest.approx(expected, abs=1e-4)


def test_model_info_hashes_the_weights(scorer, tiny_gpt2_dir):
    info = scorer.model_info()
    weights = (tiny_gpt2_dir / "model.safetensors").read_bytes()
    expected = hashlib.sha256(b"model.safetensors" + weights).hexdigest()
    assert info["sha256"] == expected
    assert info["dtype"] == "float32" and info["device"] == "cpu"
    assert info["name"] == tiny_gpt2_dir.name and info["architecture"] == "GPT2LMHeadModel"


def test_missing_or_invalid_directory_names_path_and_readme_section(tmp_path):
    with pytest.raises(ModelConfigurationError, match="not found") as err:
        load_causal_lm(tmp_path / "absent")
    assert str(tmp_path / "absent") in str(err.value)
    assert "README.md#getting-the-model-weights" in str(err.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelConfigurationError, match="config.json"):
        load_causal_lm(tmp_path / "empty")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "config.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ModelConfigurationError, match="broken"):
        load_causal_lm(tmp_path / "broken")


def test_bad_dtype_and_device_are_configuration_errors(tiny_gpt2_dir):
    with pytest.raises(ModelConfigurationError, match="dtype"):
        load_causal_lm(tiny_gpt2_dir, dtype="float8")
    with pytest.raises(ModelConfigurationError, match="device"):
        load_causal_lm(tiny_gpt2_dir, device="nonexistent-device")
