"""The real load + translate path, on tiny random IndicTrans2-shaped checkpoints."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from worker.engines.errors import README_ANCHOR, ModelConfigurationError
from worker.engines.translator import Translator, length_sorted_batches

SENTENCES = [
    "Who was the doctor?",
    "A farmer and an engineer were waiting at the station yesterday morning.",
    "Mail priya.sharma@example.com before 15/10/2023.",
    "It can't be determined.",
    "The old grandmother from the village helped the young student with the answer.",
]
TAMIL = range(0x0B80, 0x0C00)
DEVANAGARI = range(0x0900, 0x0980)


def test_translate_returns_one_string_per_input_in_order(en_indic: Translator) -> None:
    out = en_indic.translate(SENTENCES, "eng_Latn", "hin_Deva")
    assert len(out) == len(SENTENCES)
    assert all(isinstance(text, str) and text for text in out)
    # Order preserved: each position equals translating that sentence alone.
    assert out == [en_indic.translate([s], "eng_Latn", "hin_Deva")[0] for s in SENTENCES]


def test_translate_is_deterministic(en_indic: Translator) -> None:
    first = en_indic.translate(SENTENCES, "eng_Latn", "mar_Deva")
    assert first == en_indic.translate(SENTENCES, "eng_Latn", "mar_Deva")


def test_target_script_conversion_runs(en_indic: Translator) -> None:
    out = en_indic.translate(SENTENCES[:2], "eng_Latn", "tam_Taml")
    letters = [c for text in out for c in text if c.isalpha()]
    assert any(ord(c) in TAMIL for c in letters)
    assert not any(ord(c) in DEVANAGARI for c in letters)


def test_indic_to_english_direction(indic_en: Translator) -> None:
    texts = ["ଏହା ଏକ ପରୀକ୍ଷା ବାକ୍ୟ ଅଟେ।", "இது ஒரு சோதனை வாக்கியம்."]
    out = indic_en.translate(texts[:1], "ory_Orya", "eng_Latn")
    out += indic_en.translate(texts[1:], "tam_Taml", "eng_Latn")
    assert len(out) == 2 and all(isinstance(text, str) for text in out)


def test_blank_inputs_give_blank_outputs(en_indic: Translator) -> None:
    out = en_indic.translate(["", "Who was the doctor?", "   "], "eng_Latn", "ben_Beng")
    assert out[0] == "" and out[2] == "" and out[1]


def test_translate_tokens_matches_raw_ctranslate2(en_indic: Translator) -> None:
    tokens, _ = en_indic.preprocess(SENTENCES, "eng_Latn", "hin_Deva")
    assert all(t[:2] == ["eng_Latn", "hin_Deva"] for t in tokens)
    ours = en_indic.translate_tokens(tokens)
    raw = en_indic.raw.translate_batch(
        tokens, max_batch_size=9216, batch_type="tokens", **en_indic.decoding_options()
    )
    assert ours == [r.hypotheses[0] for r in raw]


def test_length_sorted_batching_restores_order(en_indic: Translator, monkeypatch) -> None:
    seen: list[list[int]] = []

    class EchoTranslator:
        def translate_batch(self, batch, **_: object) -> list[SimpleNamespace]:
            seen.append([len(tokens) for tokens in batch])
            return [
                SimpleNamespace(hypotheses=[[f"n{len(tokens)}", tokens[-1]]]) for tokens in batch
            ]

    inputs = [["x"] * n + [f"last{i}"] for i, n in enumerate([9, 2, 7, 1, 5, 3, 8])]
    monkeypatch.setattr(en_indic, "_ct2", EchoTranslator())
    monkeypatch.setattr(en_indic, "max_batch_tokens", 20)
    out = en_indic.translate_tokens(inputs)
    assert out == [[f"n{len(t)}", t[-1]] for t in inputs]
    assert len(seen) > 1
    flat = [n for batch in seen for n in batch]
    assert flat == sorted(flat)
    assert all(len(batch) * max(batch) <= 20 for batch in seen)


def test_length_sorted_batches_respects_row_cap() -> None:
    batches = length_sorted_batches([3, 1, 2, 5, 4], max_batch_tokens=1000, max_batch_size=2)
    assert batches == [[1, 2], [0, 4], [3]]


def test_model_version_is_stable_and_tracks_content(tmp_path: Path, tiny_model_dirs) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(tiny_model_dirs["en-indic"], copy)
    original = Translator(tiny_model_dirs["en-indic"], device="cpu").model_version
    assert Translator(copy, device="cpu").model_version == original  # survives a copy
    (copy / "MODEL_VERSION").write_text("indictrans2-en-indic-1B-ct2-int8\n")
    assert Translator(copy, device="cpu").model_version == "indictrans2-en-indic-1B-ct2-int8"


def test_unknown_language_is_a_configuration_error(en_indic: Translator) -> None:
    with pytest.raises(ModelConfigurationError, match="guj_Gujr"):
        en_indic.translate(["hello"], "eng_Latn", "guj_Gujr")
    with pytest.raises(ModelConfigurationError):
        en_indic.translate(["hello"], "eng_Latn", "eng_Latn")


def test_missing_model_dir_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope"
    with pytest.raises(ModelConfigurationError) as err:
        Translator(missing, device="cpu")
    assert str(missing) in str(err.value)
    assert README_ANCHOR in str(err.value)
    assert err.value.path == missing


@pytest.mark.parametrize("victim", ["model.bin", "vocab/model.SRC", "vocab/model.TGT"])
def test_missing_file_names_the_path(tmp_path: Path, tiny_model_dirs, victim: str) -> None:
    copy = tmp_path / "broken"
    shutil.copytree(tiny_model_dirs["indic-en"], copy)
    (copy / victim).unlink()
    with pytest.raises(ModelConfigurationError) as err:
        Translator(copy, device="cpu")
    assert str(copy / victim) in str(err.value)
    assert README_ANCHOR in str(err.value)


def test_malformed_sentencepiece_model(tmp_path: Path, tiny_model_dirs) -> None:
    copy = tmp_path / "garbled"
    shutil.copytree(tiny_model_dirs["indic-en"], copy)
    (copy / "vocab" / "model.TGT").write_bytes(b"not a sentencepiece model")
    with pytest.raises(ModelConfigurationError, match="SentencePiece"):
        Translator(copy, device="cpu")


def test_bad_compute_type_and_device(tiny_model_dirs) -> None:
    with pytest.raises(ModelConfigurationError):
        Translator(tiny_model_dirs["en-indic"], compute_type="int3")
    with pytest.raises(ModelConfigurationError):
        Translator(tiny_model_dirs["en-indic"], device="tpu")


def test_int8_compute_type_loads(tiny_model_dirs) -> None:
    tr = Translator(tiny_model_dirs["en-indic"], device="auto", compute_type="int8")
    assert tr.device in ("cpu", "cuda")
    assert len(tr.translate(SENTENCES[:2], "eng_Latn", "tel_Telu")) == 2


def test_single_string_is_rejected(en_indic: Translator) -> None:
    with pytest.raises(TypeError):
        en_indic.translate("Who was the doctor?", "eng_Latn", "hin_Deva")  # type: ignore[arg-type]
