"""Build tiny, randomly initialised IndicTrans2-shaped CTranslate2 checkpoints.

No fairseq and no download: torch modules carrying fairseq's attribute names are handed to
CTranslate2's own fairseq conversion helpers, so the result has the same structure as a
converted IndicTrans2 release (pre-norm Transformer, GELU, layernorm_embedding, sinusoidal
positions, decoder starting from ``</s>``, ``</s>`` appended to the source) and the same
directory layout (``model.bin`` + ``vocab/model.SRC`` + ``vocab/model.TGT``).

Translations from these models are gibberish; they exist to exercise the real loading,
tokenisation, decoding and post-processing code paths in seconds on a CPU.

Reusable from tests, bench scripts and ``manage.py build_demo_models``::

    from worker.engines.tiny import build_tiny_indictrans2
    build_tiny_indictrans2(tmp / "en-indic", "en-indic")

or from a shell: ``python -m worker.engines.tiny OUT_DIR --direction indic-en``.
"""

from __future__ import annotations

import argparse
import io
import math
import random
import shutil
from pathlib import Path

import numpy as np
import sentencepiece as spm
import torch
from ctranslate2.converters.fairseq import set_transformer_decoder, set_transformer_encoder
from ctranslate2.specs import common_spec, transformer_spec
from torch import nn

from worker.engines.indic_text import INDIC_LANGS, SUPPORTED_LANGS, IndicTextProcessor

DIRECTIONS = ("en-indic", "indic-en")
# fairseq Dictionary specials, in fairseq's order; CTranslate2's converter renames <pad>.
_FAIRSEQ_SPECIALS = ["<s>", "<blank>", "</s>", "<unk>"]
_PADDING_IDX = 1
_EOS_IDX = 2


# ---------------------------------------------------------------------------------------------
# Training text for the SentencePiece models. Native-script words per language; sentences are
# sampled from them and passed through the real preprocessing, so the pieces match what the
# Translator will feed the model (Indic text ends up in Devanagari, as upstream trains).
# ---------------------------------------------------------------------------------------------
def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_EN_WORDS = _words(
    "the a an and or but who what was were is are not can cannot be determined unknown "
    "doctor teacher farmer engineer nurse driver cook lawyer student manager grandfather "
    "grandmother neighbour friend village city market school office hospital temple station "
    "Hindu Muslim Christian Sikh Jain Brahmin Dalit Bengali Tamil Telugu Marathi Odia "
    "Assamese rich poor old young tall short quiet loud honest lazy smart careful waiting "
    "talking working walked went came asked answered said helped left stayed yesterday today "
    "morning evening because after before with without near from into about their his her "
    "Priya Rahul Anjali Arjun Meera Vikram Fatima Joseph Harpreet Lakshmi Suresh Kavya"
)
_EN_EXTRAS = (
    "Call 98765 43210 at 10:30 on 15/10/2023.",
    "Mail priya.sharma@example.com or visit https://example.org/bbq?id=7 now.",
    "About 45% of the 2,500 people said 3-4 days.",
    "Follow @kasauti and #BharatBBQ for news.",
    "Who was late to the meeting, the doctor or the nurse?",
    "It can't be determined from the context.",
    '"Not enough information," she said (quietly).',
)
_INDIC_WORDS: dict[str, tuple[str, ...]] = {
    "hin_Deva": _words(
        "यह एक परीक्षण वाक्य है डॉक्टर शिक्षक किसान गाँव शहर बाज़ार लड़का लड़की दोस्त कल आज "
        "नहीं कौन क्या ज्ञान क्षेत्र प्रश्न उत्तर ऋषि मुसलमान हिंदू ब्राह्मण गरीब अमीर"
    ),
    "mar_Deva": _words("हे एक चाचणी वाक्य आहे शाळा मुलगा मुलगी गावात डॉक्टर शिक्षक कोण काय नाही उत्तर"),
    "ben_Beng": _words("এটি একটি পরীক্ষামূলক বাক্য ডাক্তার শিক্ষক গ্রামে শহরে কে কী নয় ছেলে মেয়ে বড়ো য়"),
    "asm_Beng": _words("এইটো এটা পৰীক্ষা বাক্য ৰাজ্য অসমীয়া ডাক্তৰ শিক্ষক গাঁও কোন কি নহয় ৱ"),
    "ory_Orya": _words("ଏହା ଏକ ପରୀକ୍ଷା ବାକ୍ୟ ଅଟେ ୟୁଗ ଡାକ୍ତର ଶିକ୍ଷକ ଗାଁ ଓଡ଼ିଆ କିଏ କଣ ନୁହେଁ ପିଲା"),
    "tam_Taml": _words("இது ஒரு சோதனை வாக்கியம் மருத்துவர் ஆசிரியர் கிராமம் தமிழ் பழம் றெக்கை யார் என்ன இல்லை"),
    "tel_Telu": _words("ఇది ఒక పరీక్ష వాక్యం వైద్యుడు ఉపాధ్యాయుడు గ్రామం తెలుగు ఎవరు ఏమిటి కాదు పిల్లలు ళ"),
}
_INDIC_EXTRAS = ("15/10/2023 को 10:30 बजे 45% लोग आए।", "ईमेल a.b@example.com पर भेजें।")
_INDIC_END = {
    "hin_Deva": "।",
    "mar_Deva": ".",
    "ben_Beng": "।",
    "asm_Beng": "।",
    "ory_Orya": "।",
    "tam_Taml": ".",
    "tel_Telu": ".",
}


def _english_corpus(rng: random.Random, n: int, proc: IndicTextProcessor) -> list[str]:
    raw = [
        " ".join(rng.choices(_EN_WORDS, k=rng.randint(4, 16))).capitalize() + rng.choice(".?")
        for _ in range(n)
    ]
    raw += list(_EN_EXTRAS) * 3
    return [proc.preprocess_sentence(text, "eng_Latn")[0] for text in raw]


def _indic_corpus(rng: random.Random, n: int, proc: IndicTextProcessor) -> list[str]:
    lines: list[str] = []
    for lang in INDIC_LANGS:
        words = _INDIC_WORDS[lang]
        for _ in range(n // len(INDIC_LANGS) + 1):
            text = " ".join(rng.choices(words, k=rng.randint(3, 12))) + _INDIC_END[lang]
            lines.append(proc.preprocess_sentence(text, lang)[0])
    for text in _INDIC_EXTRAS * 3:
        lines.append(proc.preprocess_sentence(text, "hin_Deva")[0])
    return lines


def _train_spm(lines: list[str], vocab_size: int, path: Path) -> spm.SentencePieceProcessor:
    buffer = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=buffer,
        vocab_size=vocab_size,
        character_coverage=1.0,
        # Language tags must be single pieces, as they are in IndicTrans2's dictionaries.
        user_defined_symbols=list(SUPPORTED_LANGS),
        hard_vocab_limit=False,
        num_threads=1,
        minloglevel=2,
    )
    path.write_bytes(buffer.getvalue())
    return spm.SentencePieceProcessor(model_file=str(path))


def _fairseq_vocab(sp: spm.SentencePieceProcessor) -> list[str]:
    pieces = [
        sp.id_to_piece(i)
        for i in range(sp.get_piece_size())
        if not (sp.is_control(i) or sp.is_unknown(i))
    ]
    return _FAIRSEQ_SPECIALS + pieces


# ---------------------------------------------------------------------------------------------
# Torch modules named like fairseq's TransformerEncoder/Decoder, just enough for the helpers.
# ---------------------------------------------------------------------------------------------
class _Attention(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.q_proj = nn.Linear(dim, dim)
        self.k_proj = nn.Linear(dim, dim)
        self.v_proj = nn.Linear(dim, dim)
        self.out_proj = nn.Linear(dim, dim)


class _EncoderLayer(nn.Module):
    def __init__(self, dim: int, ffn_dim: int) -> None:
        super().__init__()
        self.self_attn = _Attention(dim)
        self.self_attn_layer_norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, ffn_dim)
        self.fc2 = nn.Linear(ffn_dim, dim)
        self.final_layer_norm = nn.LayerNorm(dim)


class _DecoderLayer(_EncoderLayer):
    def __init__(self, dim: int, ffn_dim: int) -> None:
        super().__init__(dim, ffn_dim)
        self.encoder_attn = _Attention(dim)
        self.encoder_attn_layer_norm = nn.LayerNorm(dim)


class _SinusoidalPositions(nn.Module):
    """fairseq's SinusoidalPositionalEmbedding table (the helper reads .weights/.padding_idx)."""

    def __init__(self, dim: int, num_positions: int, padding_idx: int) -> None:
        super().__init__()
        half = dim // 2
        scale = math.log(10000) / (half - 1)
        freqs = torch.exp(torch.arange(half, dtype=torch.float) * -scale)
        angles = torch.arange(num_positions, dtype=torch.float).unsqueeze(1) * freqs.unsqueeze(0)
        table = torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)
        if dim % 2:
            table = torch.cat([table, torch.zeros(num_positions, 1)], dim=1)
        table[padding_idx, :] = 0
        self.weights = table
        self.padding_idx = padding_idx


class _Stack(nn.Module):
    def __init__(
        self, vocab: int, dim: int, layers: int, ffn_dim: int, decoder: bool, max_positions: int
    ) -> None:
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, dim, padding_idx=_PADDING_IDX)
        nn.init.normal_(self.embed_tokens.weight, mean=0.0, std=dim**-0.5)
        with torch.no_grad():
            self.embed_tokens.weight[_PADDING_IDX].zero_()
        self.embed_scale = math.sqrt(dim)
        self.embed_positions = _SinusoidalPositions(
            dim, max_positions + _PADDING_IDX + 1, _PADDING_IDX
        )
        layer_cls = _DecoderLayer if decoder else _EncoderLayer
        self.layers = nn.ModuleList(layer_cls(dim, ffn_dim) for _ in range(layers))
        self.layer_norm = nn.LayerNorm(dim)
        self.layernorm_embedding = nn.LayerNorm(dim)
        if decoder:
            self.output_projection = nn.Linear(dim, vocab, bias=True)
            with torch.no_grad():
                self.output_projection.weight.copy_(self.embed_tokens.weight)
                self.output_projection.bias.zero_()
            self.project_in_dim = None
            self.project_out_dim = None


def build_tiny_indictrans2(
    out_dir: str | Path,
    direction: str = "en-indic",
    *,
    layers: int = 2,
    d_model: int = 64,
    heads: int = 4,
    ffn_dim: int | None = None,
    src_vocab_size: int = 400,
    tgt_vocab_size: int = 400,
    corpus_size: int = 400,
    eos_bias: float = 0.0,
    max_positions: int = 1024,
    seed: int = 0,
    quantization: str | None = None,
    overwrite: bool = True,
) -> Path:
    """Write a random IndicTrans2-shaped CTranslate2 checkpoint to ``out_dir`` and return it.

    ``eos_bias`` raises the end-of-sentence logit so that a random decoder stops after a
    realistic number of steps instead of always running to ``max_decoding_length`` (useful for
    benchmarks; the tests keep the default).
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    out = Path(out_dir)
    if out.exists():
        if not overwrite:
            raise FileExistsError(out)
        shutil.rmtree(out)
    (out / "vocab").mkdir(parents=True)

    rng = random.Random(seed)
    proc = IndicTextProcessor()
    english = _english_corpus(rng, corpus_size, proc)
    indic = _indic_corpus(rng, corpus_size, proc)
    src_lines, tgt_lines = (english, indic) if direction == "en-indic" else (indic, english)
    sp_src = _train_spm(src_lines, src_vocab_size, out / "vocab" / "model.SRC")
    sp_tgt = _train_spm(tgt_lines, tgt_vocab_size, out / "vocab" / "model.TGT")
    src_vocab = _fairseq_vocab(sp_src)
    tgt_vocab = _fairseq_vocab(sp_tgt)

    torch.manual_seed(seed)
    ffn = ffn_dim or 4 * d_model
    encoder = _Stack(len(src_vocab), d_model, layers, ffn, False, max_positions)
    decoder = _Stack(len(tgt_vocab), d_model, layers, ffn, True, max_positions)
    with torch.no_grad():
        decoder.output_projection.bias[_EOS_IDX] = eos_bias
    for param in [*encoder.parameters(), *decoder.parameters()]:
        param.requires_grad_(False)  # the helpers call .numpy() on weights

    spec = transformer_spec.TransformerSpec.from_config(
        (layers, layers),
        heads,
        pre_norm=True,
        activation=common_spec.Activation.GELU,
        layernorm_embedding=True,
    )
    set_transformer_encoder(spec.encoder, encoder)
    set_transformer_decoder(spec.decoder, decoder)
    spec.register_source_vocabulary(src_vocab)
    spec.register_target_vocabulary(tgt_vocab)
    # What CTranslate2's FairseqConverter sets for IndicTrans2 checkpoints.
    spec.config.decoder_start_token = "</s>"
    spec.config.add_source_eos = True
    spec.validate()
    spec.optimize(quantization=quantization)
    spec.save(str(out))
    return out


def _count_params(out: Path) -> str:
    size = (out / "model.bin").stat().st_size
    return f"{size / 1e6:.1f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--direction", choices=DIRECTIONS, default="en-indic")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--d-model", type=int, default=64)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--eos-bias", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    out = build_tiny_indictrans2(
        args.out_dir,
        args.direction,
        layers=args.layers,
        d_model=args.d_model,
        heads=args.heads,
        eos_bias=args.eos_bias,
        seed=args.seed,
    )
    print(f"wrote {out} ({_count_params(out)})")


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    main()
