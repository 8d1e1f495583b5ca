"""A tiny randomly initialised GPT-2 for evaluation tests (byte-level BPE, so English and
Devanagari both tokenise without unknowns), with room for two-shot prompts (2048 positions)."""

from __future__ import annotations

from pathlib import Path

from tests.evaluation.bbq_data import TEXTS


def build_tiny_gpt2(path: Path, *, seed: int = 0) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    corpus = [" ".join(texts) for texts in TEXTS.values()]
    tokenizer.train_from_iterator(
        corpus * 5,
        trainers.BpeTrainer(
            vocab_size=400,
            special_tokens=["<|endoftext|>"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        ),
    )
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|endoftext|>")
    fast.pad_token = fast.eos_token
    fast.save_pretrained(path)
    torch.manual_seed(seed)
    config = GPT2Config(
        vocab_size=len(fast),
        n_positions=2048,
        n_embd=32,
        n_layer=2,
        n_head=2,
        eos_token_id=fast.eos_token_id,
        bos_token_id=fast.eos_token_id,
    )
    GPT2LMHeadModel(config).save_pretrained(path)
    return path
