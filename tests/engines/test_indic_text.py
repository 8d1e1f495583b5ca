"""Pre/post-processing: scripts, placeholders, normalisation. No model weights needed beyond
the tiny SentencePiece models."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
import sentencepiece as spm

from worker.engines.errors import README_ANCHOR, ModelConfigurationError
from worker.engines.indic_text import (
    INDIC_LANGS,
    SUPPORTED_LANGS,
    check_lang,
    default_processor,
    from_devanagari,
    normalize_indic_numerals,
    postprocess_batch,
    preprocess_batch,
    punc_norm,
    to_devanagari,
    wrap_with_placeholders,
)

SAMPLES = {
    "hin_Deva": "यह एक परीक्षण वाक्य है, ज्ञान और क्षेत्र।",
    "mar_Deva": "हे एक चाचणी वाक्य आहे, शाळा.",
    "ben_Beng": "এটি একটি পরীক্ষামূলক বাক্য, বড়ো মেয়ে।",
    "asm_Beng": "এইটো এটা পৰীক্ষামূলক বাক্য, ৱ।",
    "ory_Orya": "ଏହା ଏକ ପରୀକ୍ଷା ବାକ୍ୟ ଅଟେ। ୟୁଗ ଓଡ଼ିଆ",
    "tam_Taml": "இது ஒரு சோதனை வாக்கியம், பழம்.",
    "tel_Telu": "ఇది ఒక పరీక్ష వాక్యం.",
}
DEVANAGARI = range(0x0900, 0x0980)


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


@pytest.fixture(scope="module")
def sp_indic(tiny_model_dirs: dict[str, Path]) -> spm.SentencePieceProcessor:
    return spm.SentencePieceProcessor(
        model_file=str(tiny_model_dirs["indic-en"] / "vocab" / "model.SRC")
    )


@pytest.fixture(scope="module")
def sp_english(tiny_model_dirs: dict[str, Path]) -> spm.SentencePieceProcessor:
    return spm.SentencePieceProcessor(
        model_file=str(tiny_model_dirs["en-indic"] / "vocab" / "model.SRC")
    )


def test_samples_cover_all_indic_languages() -> None:
    assert set(SAMPLES) == set(INDIC_LANGS)
    assert len(SUPPORTED_LANGS) == 8


def test_unknown_language_tag_lists_supported_tags() -> None:
    with pytest.raises(ModelConfigurationError) as err:
        check_lang("hin_Latn")
    message = str(err.value)
    assert "hin_Latn" in message
    assert all(tag in message for tag in SUPPORTED_LANGS)
    assert README_ANCHOR in message


def test_unknown_tag_rejected_by_preprocess(sp_english: spm.SentencePieceProcessor) -> None:
    with pytest.raises(ModelConfigurationError):
        preprocess_batch(["hello"], "eng_Latn", "guj_Gujr", sp_english)


@pytest.mark.parametrize("lang", INDIC_LANGS)
def test_transliteration_round_trip_is_exact(lang: str) -> None:
    text = nfc(SAMPLES[lang])
    deva = to_devanagari(text, lang)
    if lang != "hin_Deva" and lang != "mar_Deva":
        assert deva != text
    letters = [c for c in deva if c.isalpha()]
    assert letters and all(ord(c) in DEVANAGARI or c in "ৰৱ" for c in letters)
    assert nfc(from_devanagari(deva, lang)) == text


def test_odia_post_fix_handles_decomposed_yya() -> None:
    # SentencePiece's NFKC decomposes य़ into य + ़, which transliterates to ଯ + ଼.
    decomposed = "\u092f\u093c\u0941\u0917"
    assert from_devanagari(decomposed, "ory_Orya") == "\u0b5f\u0b41\u0b17"  # ୟୁଗ


@pytest.mark.parametrize("lang", INDIC_LANGS)
def test_full_pre_post_round_trip(lang: str, sp_indic: spm.SentencePieceProcessor) -> None:
    """Feeding the source pieces back as if they were the model output must give the input."""
    tokens, maps = preprocess_batch([SAMPLES[lang]], lang, "eng_Latn", sp_indic)
    assert tokens[0][:2] == [lang, "eng_Latn"]
    assert "<unk>" not in tokens[0]
    assert postprocess_batch([tokens[0][2:]], maps, lang) == [nfc(SAMPLES[lang])]


def test_english_round_trip_restores_placeholders(sp_english: spm.SentencePieceProcessor) -> None:
    text = (
        "Mail priya.sharma@example.com or visit https://example.org/bbq?id=7 before "
        "15/10/2023 at 10:30, said @kasauti."
    )
    tokens, maps = preprocess_batch([text], "eng_Latn", "hin_Deva", sp_english)
    joined = "".join(tokens[0])
    for entity in ("priya.sharma@example.com", "example.org", "15/10/2023", "10:30", "@kasauti"):
        assert entity not in joined
    assert "ID1" in joined
    assert set(maps[0].values()) == {
        "priya.sharma@example.com",
        "https://example.org/bbq?id=7",
        "15/10/2023",
        "10:30",
        "@kasauti",
    }
    assert postprocess_batch([tokens[0][2:]], maps, "eng_Latn") == [text]


def test_placeholders_restored_into_indic_script() -> None:
    _, mapping = wrap_with_placeholders("on 15/10/2023 at https://example.org/x")
    # The model may emit the placeholder spaced out or with "ID" translated.
    pieces = ["▁", "<", "ID1", ">", "▁को", "▁<", "आईडी", "2", ">"]
    [out] = postprocess_batch([pieces], [mapping], "tam_Taml")
    assert "https://example.org/x" in out
    assert "15/10/2023" in out
    assert "கோ" in out  # the Devanagari word was transliterated to Tamil


def test_placeholder_numbering_is_deterministic_and_longest_first() -> None:
    text = "From 10/2023 to 15/10/2023 and back to 10/2023."
    first = wrap_with_placeholders(text)
    assert first == wrap_with_placeholders(text)
    masked, mapping = first
    assert "15/10/2023" not in masked and "10/2023" not in masked
    assert mapping["<ID1>"] == "15/10/2023"
    assert mapping["<ID2>"] == "10/2023"


def test_short_numbers_and_initials_are_not_masked() -> None:
    masked, mapping = wrap_with_placeholders("A. K. Das ate 3.5 apples at 1:30 on day 2/3.")
    assert mapping == {}
    assert masked == "A. K. Das ate 3.5 apples at 1:30 on day 2/3."
    # Four or more digits are masked (upstream's threshold).
    assert wrap_with_placeholders("at 12:30")[0] == "at <ID1>"


def test_indic_digits_become_ascii() -> None:
    assert normalize_indic_numerals("१५/१०/२०२३ ১২ ୪୫") == "15/10/2023 12 45"


def test_punctuation_normalisation_matches_moses_rules() -> None:
    assert punc_norm("“Hello” – he said…") == '"Hello" - he said.'
    assert punc_norm("The  value is 5\u00a0%") == "The value is 5%"
    assert punc_norm("1\u00a0000 items") == "1.000 items"
    # Only the no-break space triggers the pseudo-space rules, not an ordinary space.
    assert punc_norm("I have 2 3 year olds ?") == "I have 2 3 year olds ?"


def test_nfc_at_the_boundary(sp_indic: spm.SentencePieceProcessor) -> None:
    decomposed = unicodedata.normalize("NFD", SAMPLES["ben_Beng"])
    assert decomposed != SAMPLES["ben_Beng"]
    tokens, maps = preprocess_batch([decomposed], "ben_Beng", "eng_Latn", sp_indic)
    [out] = postprocess_batch([tokens[0][2:]], maps, "ben_Beng")
    assert out == nfc(SAMPLES["ben_Beng"])


def test_postprocess_checks_lengths() -> None:
    with pytest.raises(ValueError):
        default_processor().postprocess_batch([["▁a"]], [], "eng_Latn")
