"""IndicTrans2 inference-time text processing.

This is our own implementation of what AI4Bharat/IndicTrans2 does around the model at inference
time (``inference/engine.py``, ``normalize_punctuation.py``, ``normalize_regex_inference.py``,
``flores_codes_map_indic.py``). The model was trained on text prepared exactly this way, so any
drift here costs translation quality. Where we differ from upstream it is on purpose and the
reason is written next to the code (deterministic placeholder numbering, NFC at the boundary,
empty input handling).

Pipeline, source side (per sentence):
  NFC -> punctuation normalisation (Moses perl port) -> Indic digits to ASCII -> placeholders
  for emails/URLs/numerals/handles -> English: Moses punct-normalise + tokenise;
  Indic: IndicNLP normalise + trivial tokenise + transliterate to Devanagari ->
  SentencePiece (source model) -> ``[src_tag, tgt_tag, *pieces]`` truncated to 256 tokens.

Target side (per hypothesis):
  join pieces -> restore placeholders -> English: Moses detokenise; Indic: transliterate
  Devanagari -> target script, trivial detokenise, Odia fix -> NFC.

Only resources shipped inside the ``indic-nlp-library`` wheel are used: the normaliser,
trivial tokeniser/detokeniser and the Unicode-offset transliterator need no
``indic_nlp_resources`` checkout, so ``indicnlp.loader.load()`` is never called.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from worker.engines.errors import ModelConfigurationError

# indic-nlp-library (which loads pandas) and sacremoses take ~0.5 s to import, and this module
# is on the URL conf's import path (the API validates language tags with check_lang): they are
# imported where text is processed, in a worker.
if TYPE_CHECKING:
    from indicnlp.normalize.indic_normalize import BaseNormalizer

logger = logging.getLogger(__name__)

ENGLISH = "eng_Latn"

# FLORES-200 tag -> the ISO code indic-nlp-library understands (upstream flores_codes, cut down
# to the languages this project translates).
FLORES_TO_ISO: dict[str, str] = {
    "eng_Latn": "en",
    "hin_Deva": "hi",
    "mar_Deva": "mr",
    "ben_Beng": "bn",
    "asm_Beng": "as",
    "ory_Orya": "or",
    "tam_Taml": "ta",
    "tel_Telu": "te",
}
SUPPORTED_LANGS: tuple[str, ...] = tuple(FLORES_TO_ISO)
INDIC_LANGS: tuple[str, ...] = tuple(tag for tag in SUPPORTED_LANGS if tag != ENGLISH)

# IndicTrans2 was trained with every Indic script transliterated into Devanagari.
COMMON_ISO = "hi"

# Upstream truncates "tags + pieces" to this many tokens before calling the model.
MAX_SEQ_LEN = 256

_SPM_SPACE = "\u2581"
_NBSP = "\u00a0"


def check_lang(tag: str) -> str:
    """Return ``tag`` if it is supported, else raise a configuration error naming the choices."""
    if tag not in FLORES_TO_ISO:
        raise ModelConfigurationError(
            f"Unknown language tag {tag!r}; supported tags are: {', '.join(SUPPORTED_LANGS)}"
        )
    return tag


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


# ---------------------------------------------------------------------------------------------
# Punctuation normalisation: upstream's Python port of Moses normalize-punctuation.perl.
# In the perl original (and in sacremoses) the "pseudo space" rules match a NO-BREAK SPACE, not
# an ASCII space; we write U+00A0 explicitly so that ordinary text such as "2 3" or "what ?"
# is not rewritten.
# ---------------------------------------------------------------------------------------------
_PUNC_REPLACEMENTS: tuple[tuple[str, str], ...] = (
    ("\r", ""),
    ("(", " ("),
    (")", ") "),
    ("( ", "("),
    (" )", ")"),
    (" :", ":"),
    (" ;", ";"),
    ("`", "'"),
    ("\u201e", '"'),  # „
    ("\u201c", '"'),  # “
    ("\u201d", '"'),  # ”
    ("\u2013", "-"),  # –
    ("\u2014", " - "),  # —
    ("\u00b4", "'"),  # ´
    ("\u2018", "'"),  # ‘
    ("\u201a", "'"),  # ‚
    ("\u2019", "'"),  # ’
    ("''", '"'),
    ("\u00b4\u00b4", '"'),
    ("\u2026", "..."),  # …
    (" \u00ab ", ' "'),
    ("\u00ab ", '"'),
    ("\u00ab", '"'),
    (" \u00bb ", '" '),
    (" \u00bb", '"'),
    ("\u00bb", '"'),
    (_NBSP + "%", "%"),
    ("n\u00ba" + _NBSP, "n\u00ba "),
    (_NBSP + ":", ":"),
    (_NBSP + "\u00baC", " \u00baC"),
    (_NBSP + "cm", " cm"),
    (_NBSP + "?", "?"),
    (_NBSP + "!", "!"),
    (_NBSP + ";", ";"),
    ("," + _NBSP, ", "),
)
_MULTISPACE = re.compile(r"[ ]{2,}")
_MULTIDOTS = re.compile(r"\.{2,}")
_END_BRACKET_SPACE_PUNC = re.compile(r"\) ([\.!:?;,])")
_DIGIT_SPACE_PERCENT = re.compile(r"(\d) %")
_DOUBLE_QUOT_PUNC = re.compile(r"\"([,\.]+)")
_DIGIT_NBSP_DIGIT = re.compile(r"(\d)" + _NBSP + r"(\d)")


def punc_norm(text: str) -> str:
    for old, new in _PUNC_REPLACEMENTS:
        text = text.replace(old, new)
    text = _MULTISPACE.sub(" ", text)
    text = _MULTIDOTS.sub(".", text)
    text = _END_BRACKET_SPACE_PUNC.sub(r")\1", text)
    text = _DIGIT_SPACE_PERCENT.sub(r"\1%", text)
    text = _DOUBLE_QUOT_PUNC.sub(r'\1"', text)
    text = _DIGIT_NBSP_DIGIT.sub(r"\1.\2", text)
    return text.strip(" ")


# ---------------------------------------------------------------------------------------------
# Indic digits -> ASCII, so numbers survive translation (upstream indic_num_map.py).
# Upstream's table covers these blocks; it has no Tamil digits and no Telugu zero, and we keep
# those gaps because the model saw exactly this mapping in training.
# ---------------------------------------------------------------------------------------------
_DIGIT_ZEROS = (0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0CE6, 0x0660, 0x06F0, 0xABF0, 0x1C50)
_DIGIT_TABLE: dict[int, str] = {zero + i: str(i) for zero in _DIGIT_ZEROS for i in range(10)}
_DIGIT_TABLE.update({0x0C66 + i: str(i) for i in range(1, 10)})


def normalize_indic_numerals(text: str) -> str:
    return text.translate(_DIGIT_TABLE)


# ---------------------------------------------------------------------------------------------
# Placeholders (upstream normalize_regex_inference.py): spans the model must not translate are
# replaced by <ID1>, <ID2>, ... and restored after decoding.
# ---------------------------------------------------------------------------------------------
URL_PATTERN = re.compile(
    r"\b(?<![\w/.])(?:(?:https?|ftp)://)?(?:(?:[\w-]+\.)+(?!\.))(?:[\w/\-?#&=%.]+)+(?!\.\w+)\b"
)
EMAIL_PATTERN = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Z|a-z]{2,}")
# dates, times, percentages, proportions, ratios
NUMERAL_PATTERN = re.compile(
    r"(~?\d+\.?\d*\s?%?\s?-?\s?~?\d+\.?\d*\s?%|~?\d+%|\d+[-\/.,:']\d+[-\/.,:'+]\d+(?:\.\d+)?"
    r"|\d+[-\/.:'+]\d+(?:\.\d+)?)"
)
# UPI ids, social media handles, hashtags
OTHER_PATTERN = re.compile(r"[A-Za-z0-9]*[#|@]\w+")
_PLACEHOLDER_PATTERNS = (EMAIL_PATTERN, URL_PATTERN, NUMERAL_PATTERN, OTHER_PATTERN)

# How the model sometimes renders "ID" when it translates a placeholder anyway (upstream list).
_ID_TRANSLATIONS = (
    "\u0622\u06cc \u0688\u06cc ",
    "\uabd1\uabe5\uabcf\uabd7\uabe4",
    "\u0906\u0908\u0921\u0940",
    "\u0906\u0908 . \u0921\u0940 . ",
    "\u0910\u091f\u093f",
    "\u0622\u0626\u06cc \u0688\u06cc ",
    "\u1c5f\u1c6d\u1c70\u1c64 \u1c7e",
    "\u0906\u092f\u0921\u0940",
    "\u0910\u0921\u093f",
    "\u0906\u0907\u0921\u093f",
)

PlaceholderMap = dict[str, str]


def wrap_with_placeholders(text: str) -> tuple[str, PlaceholderMap]:
    """Replace protected spans by ``<IDn>`` and return the text and the restore map."""
    serial = 1
    mapping: PlaceholderMap = {}
    for pattern in _PLACEHOLDER_PATTERNS:
        # Upstream iterates over a set, whose order depends on PYTHONHASHSEED; that would make the
        # model input (and so the cached translation) vary between worker processes. We number
        # longest-first (so a span that contains another is replaced whole), then by position.
        matches = sorted(set(pattern.findall(text)), key=lambda m: (-len(m), text.find(m)))
        for match in matches:
            # Short "URLs" are usually initials ("A. K."), short numerals are list numbering.
            if pattern is URL_PATTERN and len(match.replace(".", "")) < 4:
                continue
            if pattern is NUMERAL_PATTERN and len(re.sub(r"[ .:]", "", match)) < 4:
                continue
            if match not in text:  # already swallowed by a longer span
                continue
            placeholder = f"<ID{serial}>"
            mapping[placeholder] = match
            mapping[f"< ID{serial} >"] = match
            for variant in _ID_TRANSLATIONS:
                mapping[f"<{variant}{serial}>"] = match
                mapping[f"< {variant}{serial} >"] = match
                mapping[f"< {variant} {serial} >"] = match
            text = text.replace(match, placeholder)
            serial += 1
    text = re.sub(r"\s+", " ", text)
    # The URL regex can leave a trailing "/" behind the placeholder.
    text = text.replace(">/", ">")
    return text, mapping


def restore_placeholders(text: str, mapping: PlaceholderMap) -> str:
    for key, value in mapping.items():
        text = text.replace(key, value)
    return text


# ---------------------------------------------------------------------------------------------
# Script conversion
# ---------------------------------------------------------------------------------------------
_ODIA_YA_NUKTA = "\u0b2f\u0b3c"  # ଯ + ଼ : what the Unicode-offset transliterator yields
_ODIA_YYA = "\u0b5f"  # ୟ : what Odia text actually uses


def to_devanagari(text: str, lang: str) -> str:
    """Transliterate Indic text of ``lang`` into Devanagari, as upstream does before SPM."""
    from indicnlp.transliterate.unicode_transliterate import UnicodeIndicTransliterator

    iso = FLORES_TO_ISO[check_lang(lang)]
    if iso == "en":
        return text
    return UnicodeIndicTransliterator.transliterate(text, iso, COMMON_ISO)


def from_devanagari(text: str, lang: str) -> str:
    """Transliterate Devanagari model output back into the script of ``lang``."""
    from indicnlp.transliterate.unicode_transliterate import UnicodeIndicTransliterator

    iso = FLORES_TO_ISO[check_lang(lang)]
    if iso == "en":
        return text
    out = UnicodeIndicTransliterator.transliterate(text, COMMON_ISO, iso)
    if iso == "or":
        # Upstream post-fix: Devanagari य़ (often decomposed by SPM's NFKC) comes back as ଯ଼.
        out = out.replace(_ODIA_YA_NUKTA, _ODIA_YYA)
    return out


# ---------------------------------------------------------------------------------------------
# The processor
# ---------------------------------------------------------------------------------------------
class SentencePieceLike(Protocol):
    def encode(self, input: str, out_type: type = ...) -> list[str]: ...  # noqa: A002


class IndicTextProcessor:
    """Holds the (reusable, read-only) Moses and IndicNLP objects; safe to share across threads."""

    def __init__(self) -> None:
        from sacremoses import MosesDetokenizer, MosesPunctNormalizer, MosesTokenizer

        self._en_tok = MosesTokenizer(lang="en")
        self._en_punct = MosesPunctNormalizer()
        self._en_detok = MosesDetokenizer(lang="en")
        self._normalizers: dict[str, BaseNormalizer] = {}
        self._lock = threading.Lock()

    def _normalizer(self, iso: str) -> BaseNormalizer:
        from indicnlp.normalize.indic_normalize import IndicNormalizerFactory

        with self._lock:
            if iso not in self._normalizers:
                self._normalizers[iso] = IndicNormalizerFactory().get_normalizer(iso)
            return self._normalizers[iso]

    # -- source side ---------------------------------------------------------------------------
    def preprocess_sentence(self, text: str, src_lang: str) -> tuple[str, PlaceholderMap]:
        """Text -> model-ready word sequence (before SentencePiece) and its placeholder map."""
        from indicnlp.tokenize import indic_tokenize

        iso = FLORES_TO_ISO[check_lang(src_lang)]
        text = punc_norm(nfc(text))
        text = normalize_indic_numerals(text.strip("\n"))
        text, mapping = wrap_with_placeholders(text)
        text = text.strip()
        if iso == "en":
            words = self._en_tok.tokenize(self._en_punct.normalize(text), escape=False)
            return " ".join(words), mapping
        normalized = self._normalizer(iso).normalize(text)
        tokenized = " ".join(indic_tokenize.trivial_tokenize(normalized, iso))
        # The tokeniser splits a word-final virama off; upstream glues it back.
        return to_devanagari(tokenized, src_lang).replace(" \u094d ", "\u094d"), mapping

    def preprocess_batch(
        self,
        texts: Sequence[str],
        src_lang: str,
        tgt_lang: str,
        sp_src: SentencePieceLike,
    ) -> tuple[list[list[str]], list[PlaceholderMap]]:
        """Return, per text, the model input ``[src_tag, tgt_tag, *pieces]`` and placeholder map."""
        check_lang(src_lang)
        check_lang(tgt_lang)
        token_lists: list[list[str]] = []
        maps: list[PlaceholderMap] = []
        for text in texts:
            words, mapping = self.preprocess_sentence(text, src_lang)
            tokens = [src_lang, tgt_lang, *sp_src.encode(words, out_type=str)]
            if len(tokens) > MAX_SEQ_LEN:
                logger.warning("input of %d tokens truncated to %d", len(tokens), MAX_SEQ_LEN)
                tokens = tokens[:MAX_SEQ_LEN]
            token_lists.append(tokens)
            maps.append(mapping)
        return token_lists, maps

    # -- target side ---------------------------------------------------------------------------
    def postprocess_sentence(
        self, pieces: Sequence[str], mapping: PlaceholderMap, tgt_lang: str
    ) -> str:
        from indicnlp.tokenize import indic_detokenize

        iso = FLORES_TO_ISO[check_lang(tgt_lang)]
        # Same as SentencePiece decoding for these models (no byte fallback), minus a model load.
        text = "".join(pieces).replace(_SPM_SPACE, " ").strip()
        text = restore_placeholders(text, mapping)
        if iso == "en":
            text = self._en_detok.detokenize(text.split(" "))
        else:
            text = indic_detokenize.trivial_detokenize(from_devanagari(text, tgt_lang), iso)
        return nfc(text)

    def postprocess_batch(
        self,
        token_lists: Sequence[Sequence[str]],
        placeholder_maps: Sequence[PlaceholderMap],
        tgt_lang: str,
    ) -> list[str]:
        if len(token_lists) != len(placeholder_maps):
            raise ValueError(
                f"{len(token_lists)} hypotheses but {len(placeholder_maps)} placeholder maps"
            )
        return [
            self.postprocess_sentence(pieces, mapping, tgt_lang)
            for pieces, mapping in zip(token_lists, placeholder_maps, strict=True)
        ]


_default: IndicTextProcessor | None = None
_default_lock = threading.Lock()


def default_processor() -> IndicTextProcessor:
    global _default
    with _default_lock:
        if _default is None:
            _default = IndicTextProcessor()
        return _default


def preprocess_batch(
    texts: Sequence[str], src_lang: str, tgt_lang: str, sp_src: SentencePieceLike
) -> tuple[list[list[str]], list[PlaceholderMap]]:
    """Module-level convenience wrapper around :meth:`IndicTextProcessor.preprocess_batch`."""
    return default_processor().preprocess_batch(texts, src_lang, tgt_lang, sp_src)


def postprocess_batch(
    token_lists: Sequence[Sequence[str]],
    placeholder_maps: Sequence[PlaceholderMap],
    tgt_lang: str,
) -> list[str]:
    """Module-level convenience wrapper around :meth:`IndicTextProcessor.postprocess_batch`."""
    return default_processor().postprocess_batch(token_lists, placeholder_maps, tgt_lang)
