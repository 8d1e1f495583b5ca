"""IndicTrans2 translation through CTranslate2.

The checkpoint directory is laid out like AI4Bharat's CTranslate2 release archives::

    <model_dir>/model.bin             CTranslate2 weights
    <model_dir>/config.json           written by the CTranslate2 converter
    <model_dir>/*vocabulary*          written by the CTranslate2 converter
    <model_dir>/vocab/model.SRC       SentencePiece model for the source side
    <model_dir>/vocab/model.TGT       SentencePiece model for the target side

Decoding settings follow upstream's CTranslate2 path (``inference/engine.py``): beam 5,
``max_input_length=160``, ``max_decoding_length=256``, batches of at most 9216 tokens.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from worker.engines.errors import ModelConfigurationError
from worker.engines.indic_text import (
    IndicTextProcessor,
    PlaceholderMap,
    check_lang,
    default_processor,
)

# CTranslate2 and SentencePiece are imported where a model is loaded: this module is on the URL
# conf's import path (through the translation services), where no model is ever loaded.
if TYPE_CHECKING:
    import ctranslate2

logger = logging.getLogger(__name__)

COMPUTE_TYPES = ("default", "auto", "int8", "int8_float16", "int8_float32", "float16", "float32")
UPSTREAM_BEAM_SIZE = 5
UPSTREAM_MAX_INPUT_LENGTH = 160
UPSTREAM_MAX_DECODING_LENGTH = 256
UPSTREAM_MAX_BATCH_TOKENS = 9216
# Optional file a deployment can drop next to model.bin to pin the cache key explicitly.
VERSION_FILE = "MODEL_VERSION"

_VOCAB_FILES = (
    "shared_vocabulary.json",
    "shared_vocabulary.txt",
    "source_vocabulary.json",
    "source_vocabulary.txt",
)


def resolve_device(device: str) -> str:
    if device == "auto":
        import ctranslate2

        return "cuda" if ctranslate2.get_cuda_device_count() > 0 else "cpu"
    if device not in ("cpu", "cuda"):
        raise ModelConfigurationError(f"Unknown device {device!r}; use 'auto', 'cpu' or 'cuda'")
    return device


def _require_file(path: Path, what: str) -> Path:
    if not path.is_file():
        raise ModelConfigurationError(f"Missing {what}: {path}", path=path)
    return path


def validate_model_dir(model_dir: str | Path) -> Path:
    """Check the upstream layout and return the directory; raise naming the first missing file."""
    root = Path(model_dir)
    if not root.is_dir():
        raise ModelConfigurationError(f"Model directory does not exist: {root}", path=root)
    _require_file(root / "model.bin", "CTranslate2 weights")
    _require_file(root / "config.json", "CTranslate2 config")
    _require_file(root / "vocab" / "model.SRC", "source SentencePiece model")
    _require_file(root / "vocab" / "model.TGT", "target SentencePiece model")
    if not any((root / name).is_file() for name in _VOCAB_FILES):
        raise ModelConfigurationError(
            f"Missing CTranslate2 vocabulary ({' or '.join(_VOCAB_FILES)}) in {root}", path=root
        )
    return root


def _read_source_vocabulary(root: Path) -> set[str]:
    for name in _VOCAB_FILES:
        path = root / name
        if not path.is_file():
            continue
        if name.endswith(".json"):
            return set(json.loads(path.read_text(encoding="utf-8")))
        return set(path.read_text(encoding="utf-8").splitlines())
    return set()


def compute_model_version(root: Path) -> str:
    """A stable key for caches: changes when the weights or vocabularies change.

    Hashing all of model.bin (1-4 GB for IndicTrans2) at start-up would be slow, so we hash its
    size plus its first and last MiB, and the small files in full. Unlike mtime this survives
    copying the directory to another machine.
    """
    pinned = root / VERSION_FILE
    if pinned.is_file():
        return pinned.read_text(encoding="utf-8").strip()
    digest = hashlib.sha256()
    weights = root / "model.bin"
    size = weights.stat().st_size
    digest.update(str(size).encode())
    chunk = 1 << 20
    with weights.open("rb") as fh:
        digest.update(fh.read(chunk))
        if size > chunk:
            fh.seek(max(size - chunk, chunk))
            digest.update(fh.read(chunk))
    for rel in ("config.json", "vocab/model.SRC", "vocab/model.TGT", *_VOCAB_FILES):
        path = root / rel
        if path.is_file():
            digest.update(rel.encode())
            digest.update(path.read_bytes())
    return f"ct2-{digest.hexdigest()[:16]}"


def length_sorted_batches(
    lengths: Sequence[int], max_batch_tokens: int, max_batch_size: int | None = None
) -> list[list[int]]:
    """Group indices so each batch's padded size (rows x longest row) stays within budget.

    Sorting by length first keeps padding (wasted compute) small; the caller restores order.
    """
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    for index in order:
        longest = lengths[index]  # ascending order: the newcomer is the longest so far
        too_many_tokens = (len(current) + 1) * longest > max_batch_tokens
        too_many_rows = max_batch_size is not None and len(current) >= max_batch_size
        if current and (too_many_tokens or too_many_rows):
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches


class Translator:
    """Translate sentences with an IndicTrans2 CTranslate2 checkpoint.

    Thread-safe: CTranslate2 translators may be shared, and the text processor is read-only.
    """

    def __init__(
        self,
        model_dir: str | Path,
        *,
        device: str = "auto",
        compute_type: str = "default",
        beam_size: int = UPSTREAM_BEAM_SIZE,
        max_batch_tokens: int = UPSTREAM_MAX_BATCH_TOKENS,
        max_batch_size: int | None = None,
        max_input_length: int = UPSTREAM_MAX_INPUT_LENGTH,
        max_decoding_length: int = UPSTREAM_MAX_DECODING_LENGTH,
        inter_threads: int = 1,
        intra_threads: int = 0,
        processor: IndicTextProcessor | None = None,
    ) -> None:
        if compute_type not in COMPUTE_TYPES:
            raise ModelConfigurationError(
                f"Unknown compute_type {compute_type!r}; use one of {', '.join(COMPUTE_TYPES)}"
            )
        self.model_dir = validate_model_dir(model_dir)
        self.device = resolve_device(device)
        self.compute_type = compute_type
        self.beam_size = beam_size
        self.max_batch_tokens = max_batch_tokens
        self.max_batch_size = max_batch_size
        self.max_input_length = max_input_length
        self.max_decoding_length = max_decoding_length
        self._processor = processor or default_processor()
        import ctranslate2
        import sentencepiece as spm

        try:
            self.sp_src = spm.SentencePieceProcessor(
                model_file=str(self.model_dir / "vocab" / "model.SRC")
            )
            self.sp_tgt = spm.SentencePieceProcessor(
                model_file=str(self.model_dir / "vocab" / "model.TGT")
            )
        except (OSError, RuntimeError) as exc:
            raise ModelConfigurationError(
                f"Malformed SentencePiece model in {self.model_dir / 'vocab'}: {exc}",
                path=self.model_dir / "vocab",
            ) from exc
        try:
            self._ct2 = ctranslate2.Translator(
                str(self.model_dir),
                device=self.device,
                compute_type=compute_type,
                inter_threads=inter_threads,
                intra_threads=intra_threads,
            )
        except (RuntimeError, ValueError) as exc:
            raise ModelConfigurationError(
                f"CTranslate2 could not load {self.model_dir}: {exc}", path=self.model_dir
            ) from exc
        self._source_vocab = _read_source_vocabulary(self.model_dir)
        self._version: str | None = None
        self._version_lock = threading.Lock()

    # -- metadata ------------------------------------------------------------------------------
    @property
    def model_version(self) -> str:
        """Cache key for translations produced by this checkpoint (computed once, lazily)."""
        with self._version_lock:
            if self._version is None:
                self._version = compute_model_version(self.model_dir)
            return self._version

    @property
    def raw(self) -> ctranslate2.Translator:
        """The underlying CTranslate2 translator (for benchmarks and diagnostics)."""
        return self._ct2

    def decoding_options(self) -> dict[str, Any]:
        return {
            "beam_size": self.beam_size,
            "max_input_length": self.max_input_length,
            "max_decoding_length": self.max_decoding_length,
        }

    def _check_pair(self, src_lang: str, tgt_lang: str) -> None:
        check_lang(src_lang)
        check_lang(tgt_lang)
        if src_lang == tgt_lang:
            raise ModelConfigurationError(f"Source and target language are both {src_lang!r}")
        # A tag missing from the vocabulary means the wrong direction's checkpoint was configured
        # (e.g. an indic-en model asked for eng_Latn -> hin_Deva); it would decode garbage.
        for tag in (src_lang, tgt_lang):
            if self._source_vocab and tag not in self._source_vocab:
                raise ModelConfigurationError(
                    f"Language tag {tag!r} is not in this checkpoint's vocabulary; is it the "
                    f"right direction (en-indic / indic-en)?",
                    path=self.model_dir,
                )

    # -- the pipeline --------------------------------------------------------------------------
    def preprocess(
        self, texts: Sequence[str], src_lang: str, tgt_lang: str
    ) -> tuple[list[list[str]], list[PlaceholderMap]]:
        self._check_pair(src_lang, tgt_lang)
        return self._processor.preprocess_batch(texts, src_lang, tgt_lang, self.sp_src)

    def translate_tokens(self, token_lists: Sequence[Sequence[str]]) -> list[list[str]]:
        """Decode pre-tokenised inputs (``[src_tag, tgt_tag, *pieces]``); best hypothesis each.

        Inputs are sorted by length and cut into token-budgeted batches; results come back in
        the caller's order.
        """
        results: list[list[str]] = [[] for _ in token_lists]
        lengths = [len(tokens) for tokens in token_lists]
        for batch in length_sorted_batches(lengths, self.max_batch_tokens, self.max_batch_size):
            # Within our chunk CTranslate2 applies its own token budget as well: measured on CPU
            # it splits into smaller sub-batches than (rows x longest) and is ~20% faster so.
            outputs = self._ct2.translate_batch(
                [list(token_lists[i]) for i in batch],
                max_batch_size=self.max_batch_tokens,
                batch_type="tokens",
                **self.decoding_options(),
            )
            for index, output in zip(batch, outputs, strict=True):
                results[index] = list(output.hypotheses[0])
        return results

    def translate(self, texts: Sequence[str], src_lang: str, tgt_lang: str) -> list[str]:
        """Translate ``texts``; returns one string per input, in input order."""
        if isinstance(texts, str):
            raise TypeError("translate() takes a list of strings, not a single string")
        self._check_pair(src_lang, tgt_lang)
        # Blank inputs would otherwise be decoded from the language tags alone into invented text.
        live = [i for i, text in enumerate(texts) if text.strip()]
        out = ["" for _ in texts]
        if not live:
            return out
        token_lists, maps = self.preprocess([texts[i] for i in live], src_lang, tgt_lang)
        hypotheses = self.translate_tokens(token_lists)
        for index, text in zip(
            live, self._processor.postprocess_batch(hypotheses, maps, tgt_lang), strict=True
        ):
            out[index] = text
        return out
