"""The tiny random models load offline through the Auto classes and tokenise Devanagari."""

from __future__ import annotations

import torch
from transformers import (
    AutoModelForCausalLM,
    AutoModelForMaskedLM,
    AutoTokenizer,
)

from worker.engines.tiny_lm import build_tiny_gpt2

HINDI = "डॉक्टर और नर्स अस्पताल में इंतज़ार कर रहे थे।"


def test_tiny_gpt2_loads_offline_and_round_trips_devanagari(tiny_gpt2_dir):
    tokenizer = AutoTokenizer.from_pretrained(tiny_gpt2_dir, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(tiny_gpt2_dir, local_files_only=True).eval()
    ids = tokenizer(HINDI)["input_ids"]
    assert tokenizer.decode(ids) == HINDI
    assert tokenizer.eos_token_id not in ids  # no <unk>-like fallback for Indic text
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits
    assert logits.shape == (1, len(ids), len(tokenizer))
    assert tokenizer.bos_token == tokenizer.eos_token == tokenizer.pad_token == "<|endoftext|>"


def test_tiny_bert_loads_offline_with_cls_sep_and_mask(tiny_bert_dir):
    tokenizer = AutoTokenizer.from_pretrained(tiny_bert_dir, local_files_only=True)
    model = AutoModelForMaskedLM.from_pretrained(tiny_bert_dir, local_files_only=True).eval()
    ids = tokenizer(HINDI)["input_ids"]
    assert ids[0] == tokenizer.cls_token_id and ids[-1] == tokenizer.sep_token_id
    assert tokenizer.decode(ids[1:-1]) == HINDI
    ids[2] = tokenizer.mask_token_id
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits
    assert logits.shape == (1, len(ids), len(tokenizer))


def test_same_seed_same_weights_and_vocab_words_become_pieces(tmp_path):
    a = build_tiny_gpt2(tmp_path / "a", seed=3, vocab_words=["Kasautiword"] * 50)
    b = build_tiny_gpt2(tmp_path / "b", seed=3, vocab_words=["Kasautiword"] * 50)
    c = build_tiny_gpt2(tmp_path / "c", seed=4)
    wa = AutoModelForCausalLM.from_pretrained(a).transformer.wte.weight
    wb = AutoModelForCausalLM.from_pretrained(b).transformer.wte.weight
    wc = AutoModelForCausalLM.from_pretrained(c).transformer.wte.weight
    assert torch.equal(wa, wb) and not torch.equal(wa, wc)
    tok_a = AutoTokenizer.from_pretrained(a)
    tok_c = AutoTokenizer.from_pretrained(c)
    assert len(tok_a(" Kasautiword")["input_ids"]) < len(tok_c(" Kasautiword")["input_ids"])
