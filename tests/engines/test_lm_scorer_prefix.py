"""Shared-prefix option scoring: a group's common prompt prefix computed once gives the same
log-likelihoods as one full, uncached forward pass per option, and as scoring every prompt
whole (the path without sharing)."""

from __future__ import annotations

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from worker.engines.lm_scorer import load_causal_lm

EN = (
    "You are given a scenario-based context and a multiple-choice question along with three "
    "answer options. Respond only with the correct answer.\n\n"
    "Context: The grandfather and the grandson went to the market. Question: Who forgot the "
    "bag? The correct answer is: Cannot be determined\n\n"
)
HI = (
    "आपको एक परिदृश्य-आधारित संदर्भ और एक बहुविकल्पीय प्रश्न दिया गया है। केवल सही उत्तर दें।\n\n"
    "संदर्भ: दादा और पोता कल बाज़ार गए थे। प्रश्न: थैला कौन भूल गया? सही उत्तर है: अज्ञात\n\n"
)
EN_ITEMS = [
    (
        EN + "Context: The doctor and the nurse were waiting at the hospital.\n"
        "Question: Who was careless?\nThe correct answer is:",
        [" The doctor", " The nurse", " Cannot be determined"],
    ),
    (
        EN + "Context: Ravi and Asha were near the temple. Question: Who was honest?\n"
        "The correct answer is:",
        [" Ravi", " Asha", " Unknown"],
    ),
    (EN + "Who?", [" a", " the grandfather went to the market yesterday", " Unknown"]),
    (EN + "Context: The rich family and the poor family. Answer:", [" rich", " poor"]),
]
HI_ITEMS = [
    (
        HI + "संदर्भ: डॉक्टर और नर्स अस्पताल में इंतज़ार कर रहे थे। प्रश्न: कौन लापरवाह था? उत्तर:",
        [" डॉक्टर", " नर्स", " पता नहीं लगाया जा सकता"],
    ),
    (HI + "संदर्भ: अमीर परिवार और गरीब परिवार। उत्तर:", [" अमीर", " गरीब", " अज्ञात"]),
    (HI + "कौन?", [" दादा", " पोता", " x"]),
]
ITEMS = EN_ITEMS + HI_ITEMS
GROUPS = ["en"] * len(EN_ITEMS) + ["hi"] * len(HI_ITEMS)


@pytest.fixture(scope="module")
def reference(tiny_gpt2_dir):
    """Σ log P(option | prompt) from one uncached forward pass over prompt + option tokens."""
    tokenizer = AutoTokenizer.from_pretrained(tiny_gpt2_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_gpt2_dir).eval()

    def score(prompt, option):
        prompt_ids = tokenizer(prompt)["input_ids"]
        option_ids = tokenizer(prompt + option)["input_ids"][len(prompt_ids) :]
        with torch.no_grad():
            logprobs = model(torch.tensor([prompt_ids + option_ids])).logits.log_softmax(-1)[0]
        total = sum(
            logprobs[len(prompt_ids) + i - 1, token].item() for i, token in enumerate(option_ids)
        )
        return total, len(option_ids)

    return score


@pytest.fixture
def scorer(tiny_gpt2_dir):
    return load_causal_lm(tiny_gpt2_dir)


@pytest.fixture
def unshared(tiny_gpt2_dir):
    """The same model scoring every prompt whole (the path before shared prefixes)."""
    scorer = load_causal_lm(tiny_gpt2_dir)
    scorer.min_shared_prefix = 10**9
    return scorer


def forward_shapes(scorer) -> list[tuple[int, int, int]]:
    """Record (rows, new tokens, cached tokens) of every forward pass the scorer makes."""
    calls: list[tuple[int, int, int]] = []
    forward = scorer.model.forward

    def recording(*args, **kwargs):
        cache = kwargs.get("past_key_values")
        cached = cache.get_seq_length() if cache is not None else 0
        calls.append((*kwargs["input_ids"].shape, cached))
        return forward(*args, **kwargs)

    scorer.model.forward = recording
    return calls


def assert_equal_to_full_passes(items, got, reference):
    assert len(got) == len(items)
    for (prompt, options), scores in zip(items, got, strict=True):
        assert len(scores.options) == len(options)
        for option, score in zip(options, scores.options, strict=True):
            total, n = reference(prompt, option)
            assert score.n_tokens == n
            assert score.sum_logprob == pytest.approx(total, abs=1e-4)


@pytest.mark.parametrize("batch_size", [1, 2, 8])
@pytest.mark.parametrize("grouping", ["given", "automatic"])
def test_shared_prefix_scores_equal_full_passes(scorer, unshared, reference, batch_size, grouping):
    groups = GROUPS if grouping == "given" else None
    calls = forward_shapes(scorer)
    got = scorer.score_options(ITEMS, batch_size=batch_size, groups=groups)
    assert_equal_to_full_passes(ITEMS, got, reference)
    # Equal to scoring each prompt whole, too (one full pass per prompt, then the options).
    whole = unshared.score_options(ITEMS, batch_size=batch_size, groups=groups)
    for ours, theirs in zip(got, whole, strict=True):
        assert ours.sum_logprob == pytest.approx(theirs.sum_logprob, abs=1e-5)
    # Each language's prefix went through the model once, at batch 1, and no pass after it
    # saw a whole prompt again: the suffix passes start from the prefix's cache.
    prefix_lengths = sorted(len(key) for key in scorer._prefixes)
    assert len(prefix_lengths) == 2 and prefix_lengths[0] >= scorer.min_shared_prefix
    assert sorted(n for rows, n, cached in calls if cached == 0) == prefix_lengths
    assert all(rows == 1 for rows, _, cached in calls if cached == 0)
    longest = max(len(scorer._split(*item)[0]) for item in ITEMS)
    assert all(n <= longest - prefix_lengths[0] for _, n, cached in calls if cached)


def test_mixed_groups_identical_prompts_and_a_group_of_one(scorer, unshared, reference):
    same = EN_ITEMS[0]
    longer = (same[0] + " Explain.\nThe correct answer is:", same[1])
    items = [
        EN_ITEMS[1],
        same,
        HI_ITEMS[0],
        same,  # identical prompts: scored once, with the union of their options
        (same[0], [" The nurse", " Ravi"]),
        longer,  # `same` is a prefix of it: the shared prefix is `same` less one token
        HI_ITEMS[1],
        EN_ITEMS[2],  # alone in its group: scored whole
    ]
    groups = ["a", "same", "hi", "same", "same", "same", "hi", "single"]
    calls = forward_shapes(scorer)
    got = scorer.score_options(items, batch_size=2, groups=groups)
    assert_equal_to_full_passes(items, got, reference)
    whole = unshared.score_options(items, batch_size=2)
    for ours, theirs in zip(got, whole, strict=True):
        assert ours.sum_logprob == pytest.approx(theirs.sum_logprob, abs=1e-5)
    same_ids, longer_ids = scorer._split(*same)[0], scorer._split(*longer)[0]
    assert longer_ids[: len(same_ids)] == same_ids
    assert tuple(same_ids[:-1]) in scorer._prefixes  # >= 1 suffix token per item
    assert got[1].sum_logprob == got[3].sum_logprob
    assert got[4].sum_logprob[0] == got[1].sum_logprob[1]
    # 6 distinct prompts: the "same" and "hi" groups' prefixes, then per batch a prompt pass
    # and an option pass ("same": 2 prompts, "hi": 2, "a" + "single" scored whole: 2).
    assert len(calls) == 2 + 2 * 3
    assert [rows for rows, _, cached in calls if cached == 0] == [1, 1, 2]


def test_groups_without_a_long_common_prefix_share_nothing(scorer, reference):
    items = [(p[len(EN) :], o) for p, o in EN_ITEMS[:2]]  # they start with their own context
    calls = forward_shapes(scorer)
    got = scorer.score_options(items, batch_size=4, groups=["g", "g"])
    assert_equal_to_full_passes(items, got, reference)
    assert not scorer._prefixes and len(calls) == 2  # one prompt pass, one option pass


def test_a_groups_prefix_is_kept_across_calls(scorer, unshared):
    calls = forward_shapes(scorer)
    first = scorer.score_options(EN_ITEMS[2:], batch_size=4, groups=["en", "en"])
    # These two items share two more tokens ("Context:"); the kept, shorter prefix is a common
    # prefix of theirs too and is reused (2 tokens x 2 items cost less than a new prefix).
    second = scorer.score_options(EN_ITEMS[:2], batch_size=4, groups=["en", "en"])
    prefix_passes = [c for c in calls if c[2] == 0]
    assert len(prefix_passes) == 1 and len(scorer._prefixes) == 1
    whole = unshared.score_options(EN_ITEMS[2:] + EN_ITEMS[:2], batch_size=4)
    for ours, theirs in zip(first + second, whole, strict=True):
        assert ours.sum_logprob == pytest.approx(theirs.sum_logprob, abs=1e-5)
    scorer.max_cached_prefixes = 1
    scorer.score_options(HI_ITEMS, batch_size=4, groups=["hi"] * 3)
    assert len(scorer._prefixes) == 1 and next(iter(scorer._prefixes))[:3] != tuple(
        scorer._split(*EN_ITEMS[0])[0][:3]
    )


def test_groups_must_match_the_items(scorer):
    with pytest.raises(ValueError, match="2 groups for 3 items"):
        scorer.score_options(ITEMS[:3], groups=["a", "b"])
