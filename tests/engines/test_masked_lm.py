"""Word-level pseudo-log-likelihood (IndiBias §6.1) against a naive, one-at-a-time reference
on a tiny random BERT whose tokenizer splits Devanagari words into several pieces."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from worker.engines.errors import ModelConfigurationError
from worker.engines.masked_lm import MaskedLMScorer, shared_words, split_words

HINDI = "लड़कों ने करवाऊँ कहा और लड़कियों ने सुना"
PAIR = ("वह लड़का डॉक्टर है और वह अमीर है।", "वह लड़की डॉक्टर है और वह अमीर है।")


@pytest.fixture(scope="module")
def bert_dir(tmp_path_factory) -> Path:
    """Built here rather than taken from the shared tiny BERT: this test needs a vocabulary
    small enough that Hindi words split into pieces, and weights large enough that a
    prediction depends on its context."""
    return _build_tiny_bert(tmp_path_factory.mktemp("tiny_bert"))


def _build_tiny_bert(path: Path) -> Path:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

    corpus = [
        "the doctor is rich and the nurse is poor",
        "he was excited about his big game tomorrow",
        "she was excited about her big game tomorrow",
        "वह लड़का डॉक्टर है और वह अमीर है।",
        "लड़के और लड़कियाँ स्कूल गए",
        "मैं करवा दूँ और तुम करो",
    ] * 5
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(
        vocab_size=120, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    )
    tokenizer.train_from_iterator(corpus, trainer)
    fast = BertTokenizerFast(tokenizer_object=tokenizer, do_lower_case=False, strip_accents=False)
    fast.save_pretrained(path)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=fast.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        # Large random weights: the predictions depend strongly on the context, so masking a
        # word piece by piece and masking it whole give clearly different log-probabilities.
        initializer_range=1.0,
    )
    BertForMaskedLM(config).save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def scorer(bert_dir) -> MaskedLMScorer:
    return MaskedLMScorer(bert_dir, batch_size=3)


def _naive_word_logprob(scorer: MaskedLMScorer, sentence: str, positions: list[int]) -> float:
    """Mask the given token positions, one forward pass, sum their log-probabilities."""
    ids = scorer.tokenizer(sentence)["input_ids"]
    masked = list(ids)
    for p in positions:
        masked[p] = scorer.tokenizer.mask_token_id
    with torch.no_grad():
        logits = scorer.model(input_ids=torch.tensor([masked])).logits[0]
    logprobs = torch.log_softmax(logits, dim=-1)
    return sum(float(logprobs[p, ids[p]]) for p in positions)


def test_words_are_whitespace_tokens():
    assert split_words("  a bc\td ") == [(2, 3), (4, 6), (7, 8)]
    assert shared_words(*PAIR) == ([0, 2, 3, 4, 5, 6, 7], [0, 2, 3, 4, 5, 6, 7])


def test_a_multi_subtoken_hindi_word_is_masked_as_a_whole(scorer):
    ids, groups = scorer.encode_words(HINDI)
    tokens = scorer.tokenizer.convert_ids_to_tokens(ids)
    words = HINDI.split()
    assert len(groups) == len(words)
    multi = [i for i, g in enumerate(groups) if len(g) > 1]
    assert multi, f"the tiny tokenizer should split some Hindi word: {tokens}"
    for i in multi:
        pieces = "".join(tokens[p].removeprefix("##") for p in groups[i])
        assert pieces == words[i] or "[UNK]" in pieces
    # The masked copy hides all pieces of the word and nothing else.
    word = multi[0]
    masked = scorer.mask_word(ids, groups[word])
    mask_id = scorer.tokenizer.mask_token_id
    assert [p for p, t in enumerate(masked) if t == mask_id] == groups[word]
    # Every non-special token belongs to exactly one word.
    flat = sorted(p for g in groups for p in g)
    assert flat == list(range(1, len(ids) - 1))
    # The score of that word masks all of its pieces together: equal to the naive reference
    # with every piece masked, and different from masking the pieces one at a time.
    (batched,) = scorer.score_words([(HINDI, [word])])
    whole = _naive_word_logprob(scorer, HINDI, groups[word])
    one_by_one = sum(_naive_word_logprob(scorer, HINDI, [p]) for p in groups[word])
    assert batched.n_tokens == len(groups[word])
    assert batched.sum_logprob == pytest.approx(whole, abs=1e-4)
    assert not math.isclose(batched.sum_logprob, one_by_one, abs_tol=1e-2)


def test_batched_pll_equals_naive_word_by_word(scorer):
    sentences = [HINDI, "the doctor is rich", "he was excited about his big game tomorrow"]
    batched = scorer.pseudo_log_likelihood(sentences)
    for sentence, result in zip(sentences, batched, strict=True):
        _, groups = scorer.encode_words(sentence)
        expected = sum(_naive_word_logprob(scorer, sentence, g) for g in groups)
        assert result.sum_logprob == pytest.approx(expected, abs=1e-4)
        assert result.n_tokens == sum(len(g) for g in groups)


def test_pair_scores_use_only_the_unmodified_words(scorer):
    ((first, second),) = scorer.pair_scores([PAIR])
    for sentence, result in ((PAIR[0], first), (PAIR[1], second)):
        _, groups = scorer.encode_words(sentence)
        u = [0, 2, 3, 4, 5, 6, 7]
        expected = sum(_naive_word_logprob(scorer, sentence, groups[w]) for w in u)
        assert result.sum_logprob == pytest.approx(expected, abs=1e-4)
        assert result.n_tokens == sum(len(groups[w]) for w in u)
        assert result.score == pytest.approx(expected / result.n_tokens, abs=1e-5)


def test_batch_size_does_not_change_scores(bert_dir, scorer):
    other = MaskedLMScorer(bert_dir, batch_size=64)
    sentences = [HINDI, PAIR[0], PAIR[1]]
    a = [s.sum_logprob for s in scorer.pseudo_log_likelihood(sentences)]
    b = [s.sum_logprob for s in other.pseudo_log_likelihood(sentences)]
    assert a == pytest.approx(b, abs=1e-5)


def test_model_info_records_the_weights_hash(scorer):
    info = scorer.model_info()
    assert len(info["sha256"]) == 64 and info["device"] == "cpu" and info["kind"] == "masked_lm"


def test_missing_model_directory_names_the_path(tmp_path):
    missing = tmp_path / "nope"
    with pytest.raises(ModelConfigurationError, match="nope") as err:
        MaskedLMScorer(missing)
    assert "README.md#getting-the-model-weights" in str(err.value)


def test_causal_sentence_logprob_equals_a_naive_loop(tmp_path):
    from tests.engines.test_completion import _tiny_gpt2
    from worker.engines.masked_lm import CausalSentenceScorer

    path = _tiny_gpt2(tmp_path / "gpt2")
    scorer = CausalSentenceScorer(path, batch_size=2)
    texts = ["The poor family lived in a hut.", "वह लड़का डॉक्टर है।", "a"]
    got = scorer.sentence_logprob(texts)
    for text, (total, n) in zip(texts, got, strict=True):
        ids = [scorer.start_id] + scorer.tokenizer(text, add_special_tokens=False)["input_ids"]
        with torch.no_grad():
            logprobs = torch.log_softmax(scorer.model(input_ids=torch.tensor([ids])).logits[0], -1)
        expected = sum(float(logprobs[i - 1, ids[i]]) for i in range(1, len(ids)))
        assert n == len(ids) - 1
        assert total == pytest.approx(expected, abs=1e-4)


def test_word_groups_with_the_shared_byte_level_bpe_bert(tiny_bert_dir):
    """The shared tiny BERT's byte-level BPE puts the space inside a token's offsets; every
    word still gets exactly its own pieces, and P(U|M) equals the naive reference."""
    scorer = MaskedLMScorer(tiny_bert_dir)
    ids, groups = scorer.encode_words(HINDI)
    special = set(scorer.tokenizer.all_special_ids)
    assert sorted(p for g in groups for p in g) == [
        i for i, t in enumerate(ids) if t not in special
    ]
    assert all(groups)
    decoded = [scorer.tokenizer.decode([ids[p] for p in g]).strip() for g in groups]
    assert decoded == HINDI.split()
    ((first, _),) = scorer.pair_scores([PAIR])
    _, groups1 = scorer.encode_words(PAIR[0])
    expected = sum(_naive_word_logprob(scorer, PAIR[0], groups1[w]) for w in [0, 2, 3, 4, 5, 6, 7])
    assert first.sum_logprob == pytest.approx(expected, abs=1e-4)
