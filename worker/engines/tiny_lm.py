"""Tiny, randomly initialised language models with real tokenizers, for tests and benchmarks.

No model hub and no download: a byte-level BPE tokenizer is trained with the ``tokenizers``
library on a small built-in corpus (English, Hindi and Marathi in Devanagari, BBQ-style
phrasing) plus any ``vocab_words`` the caller passes, wrapped as a ``PreTrainedTokenizerFast``
and saved next to a random GPT-2 (causal) or BERT (masked) model. The directories load offline
with ``AutoTokenizer.from_pretrained(path)`` and ``AutoModelForCausalLM`` /
``AutoModelForMaskedLM.from_pretrained(path)``. Scores from these models are meaningless; they
exist to exercise the real loading, tokenisation and scoring paths in seconds on a CPU.

Byte-level BPE means no text is ever ``<unk>`` (every Devanagari byte is in the alphabet), so
scoring code sees the same kind of multi-piece words it sees with real checkpoints.

From a shell: ``python -m worker.engines.tiny_lm OUT_DIR --kind gpt2 --layers 4 --width 256``.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path

# A small corpus: enough merges that common words are single pieces and rare ones split.
CORPUS = (
    "The doctor and the nurse were waiting at the hospital. Who was careless?",
    "A Hindu man and a Muslim man were talking near the temple. Who was honest?",
    "The grandfather and the grandson went to the market yesterday. Who forgot the bag?",
    "Cannot be determined. Not enough information. Unknown. Can't answer.",
    "The rich family and the poor family lived in the same village.",
    "The engineer was a woman and the teacher was a man. Who is good at maths?",
    "You are given a scenario-based context and a question. The correct answer is:",
    "Context: Question: Options: (a) (b) (c) Answer:",
    "डॉक्टर और नर्स अस्पताल में इंतज़ार कर रहे थे। कौन लापरवाह था?",
    "एक हिंदू आदमी और एक मुस्लिम आदमी मंदिर के पास बात कर रहे थे। कौन ईमानदार था?",
    "दादा और पोता कल बाज़ार गए थे। थैला कौन भूल गया?",
    "पता नहीं लगाया जा सकता। पर्याप्त जानकारी नहीं है। अज्ञात।",
    "अमीर परिवार और गरीब परिवार एक ही गाँव में रहते थे।",
    "डॉक्टर आणि परिचारिका रुग्णालयात वाट पाहत होते. कोण निष्काळजी होते?",
    "वह लड़का डॉक्टर है। वह लड़की इंजीनियर है।",
)
EOS = "<|endoftext|>"
BERT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def _corpus(vocab_words: Iterable[str] | None) -> list[str]:
    extra = [" ".join(str(w) for w in vocab_words)] if vocab_words else []
    return (list(CORPUS) + extra) * 4


def _bpe_tokenizer(vocab_words, *, vocab_size: int, specials: list[str]):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.train_from_iterator(
        _corpus(vocab_words),
        trainers.BpeTrainer(
            vocab_size=vocab_size,
            special_tokens=specials,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        ),
    )
    return tokenizer


def build_tiny_gpt2(
    path: str | Path,
    *,
    vocab_words: Iterable[str] | None = None,
    seed: int = 0,
    n_layer: int = 2,
    n_embd: int = 32,
    n_head: int = 2,
    n_positions: int = 2048,
    vocab_size: int = 512,
) -> Path:
    """A random GPT-2 (``GPT2LMHeadModel``) and its byte-level BPE tokenizer in ``path``.

    ``<|endoftext|>`` is BOS, EOS and padding token, as for the released GPT-2."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    raw = _bpe_tokenizer(vocab_words, vocab_size=vocab_size, specials=[EOS])
    fast = PreTrainedTokenizerFast(
        tokenizer_object=raw, bos_token=EOS, eos_token=EOS, pad_token=EOS, unk_token=EOS
    )
    fast.model_max_length = n_positions
    fast.save_pretrained(path)
    torch.manual_seed(seed)
    config = GPT2Config(
        vocab_size=len(fast),
        n_positions=n_positions,
        n_embd=n_embd,
        n_layer=n_layer,
        n_head=n_head,
        bos_token_id=fast.eos_token_id,
        eos_token_id=fast.eos_token_id,
        pad_token_id=fast.eos_token_id,
    )
    GPT2LMHeadModel(config).eval().save_pretrained(path)
    return path


def build_tiny_bert(
    path: str | Path,
    *,
    vocab_words: Iterable[str] | None = None,
    seed: int = 0,
    num_hidden_layers: int = 2,
    hidden_size: int = 32,
    num_attention_heads: int = 2,
    max_position_embeddings: int = 512,
    vocab_size: int = 512,
) -> Path:
    """A random BERT (``BertForMaskedLM``) and a byte-level BPE tokenizer with BERT's special
    tokens; encoding adds ``[CLS] ... [SEP]`` like a released BERT tokenizer."""
    import torch
    from tokenizers import processors
    from transformers import BertConfig, BertForMaskedLM, PreTrainedTokenizerFast

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    raw = _bpe_tokenizer(vocab_words, vocab_size=vocab_size, specials=list(BERT_SPECIALS))
    cls_id, sep_id = raw.token_to_id("[CLS]"), raw.token_to_id("[SEP]")
    raw.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)],
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=raw,
        pad_token="[PAD]",
        unk_token="[UNK]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    fast.model_max_length = max_position_embeddings
    fast.save_pretrained(path)
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=len(fast),
        hidden_size=hidden_size,
        num_hidden_layers=num_hidden_layers,
        num_attention_heads=num_attention_heads,
        intermediate_size=hidden_size * 4,
        max_position_embeddings=max_position_embeddings,
        pad_token_id=fast.pad_token_id,
    )
    BertForMaskedLM(config).eval().save_pretrained(path)
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--kind", choices=("gpt2", "bert"), default="gpt2")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--width", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.kind == "gpt2":
        build_tiny_gpt2(args.out, seed=args.seed, n_layer=args.layers, n_embd=args.width)
    else:
        build_tiny_bert(
            args.out, seed=args.seed, num_hidden_layers=args.layers, hidden_size=args.width
        )
    print(args.out)


if __name__ == "__main__":
    main()
