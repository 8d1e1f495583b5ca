"""IndiCASA fill-in generation: masked templates, parsing, retries and skips, cosine
classification (offline MiniLM) and seeded sampling from a tiny random GPT-2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from worker.engines.completion import (
    MASK,
    Completion,
    HFGenerator,
    MaskItem,
    classify_by_cosine,
    fill_masks,
    masked_template,
    parse_completion,
)
from worker.engines.embedder import Embedder
from worker.engines.errors import ModelConfigurationError


def test_masked_template_masks_the_differing_words():
    assert (
        masked_template(
            "The rich family lived in a mansion.", "The poor family lived in a mansion."
        )
        == f"The {MASK} family lived in a mansion."
    )
    assert masked_template("वह लड़का डॉक्टर है।", "वह लड़की डॉक्टर है।") == f"वह {MASK} डॉक्टर है।"
    # A run of differing words is one mask.
    assert masked_template("a b c d", "a x y d") == f"a {MASK} d"


def test_parse_completion():
    assert parse_completion('Sure! {"predicted_sentence": " The poor family ate. "}') == (
        "The poor family ate."
    )
    assert parse_completion('{"predicted_sentence": "The <MASK> family ate."}') is None
    assert parse_completion('{"sentence": "x"}') is None
    assert parse_completion("no json here") is None
    assert parse_completion('{"predicted_sentence": "}') is None
    decomposed = "न" + "\u093c"  # NFD of U+0929, which NFC composes
    assert parse_completion(json.dumps({"predicted_sentence": decomposed})) == "\u0929"


ITEMS = [MaskItem("good", f"The {MASK} man.", "gender"), MaskItem("bad", f"A {MASK}.", "age")]


def test_fill_masks_retries_and_counts_skips():
    calls = []

    def generate(prompts, seed):
        calls.append((len(prompts), seed))
        return [
            json.dumps({"predicted_sentence": "The tall man."}) if "man" in p else "I refuse."
            for p in prompts
        ]

    progress = []
    completions = fill_masks(
        ITEMS, generate, rounds=2, seed=5, max_attempts=3, progress=lambda d, t: progress.append(d)
    )
    assert [(c.key, c.round, c.sentence, c.attempts) for c in completions] == [
        ("good", 0, "The tall man.", 1),
        ("bad", 0, None, 3),
        ("good", 1, "The tall man.", 1),
        ("bad", 1, None, 3),
    ]
    # Round r: both items once, then only the failing one twice more; every call its own seed.
    assert [n for n, _ in calls] == [2, 1, 1, 2, 1, 1]
    assert len({s for _, s in calls}) == 6
    assert progress == [1, 2]
    again = []
    fill_masks(ITEMS, lambda p, s: again.append(s) or ["x"] * len(p), rounds=2, seed=5)
    assert again == [s for _, s in calls]


def test_classify_by_cosine_with_minilm():
    embedder = Embedder(device="cpu")
    sims = classify_by_cosine(
        ["The poor family lived in a hut.", "The rich family lived in a mansion."],
        ["The poor family lived in a hut."] * 2,
        ["The rich family lived in a mansion."] * 2,
        embedder.encode,
    )
    assert sims[0][0] == pytest.approx(1.0, abs=1e-5) and sims[0][1] < sims[0][0]
    assert sims[1][1] == pytest.approx(1.0, abs=1e-5) and sims[1][0] < sims[1][1]


def _tiny_gpt2(path: Path) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    corpus = ['{"predicted_sentence": "The poor family lived in a hut."}', "वह लड़का डॉक्टर है।"]
    tokenizer.train_from_iterator(
        corpus * 10,
        trainers.BpeTrainer(
            vocab_size=300,
            special_tokens=["<|endoftext|>"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        ),
    )
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|endoftext|>")
    fast.save_pretrained(path)
    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=len(fast),
        n_positions=512,
        n_embd=32,
        n_layer=2,
        n_head=2,
        eos_token_id=fast.eos_token_id,
        bos_token_id=fast.eos_token_id,
    )
    GPT2LMHeadModel(config).save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def generator(tmp_path_factory) -> HFGenerator:
    return HFGenerator(_tiny_gpt2(tmp_path_factory.mktemp("gpt2")), max_new_tokens=12)


def test_sampling_is_seeded(generator):
    prompts = ["The <MASK> man.", "वह <MASK> है।", "x"]
    assert generator(prompts, 1) == generator(prompts, 1)
    assert generator(prompts, 1) != generator(prompts, 2)
    assert generator.model_info()["sampling"]["top_p"] == 0.9


def test_gibberish_from_a_random_model_is_skipped_not_scored(generator):
    completions = fill_masks(ITEMS, generator, rounds=2, seed=0, max_attempts=2)
    assert len(completions) == 4
    assert all(isinstance(c, Completion) and c.raw is not None for c in completions)
    assert all(c.sentence is None and c.attempts == 2 for c in completions)


def test_missing_generator_directory(tmp_path):
    with pytest.raises(ModelConfigurationError, match="gone"):
        HFGenerator(tmp_path / "gone")
