"""Prediction file readers and answer matching: shapes, line/field errors, normalisation."""

from __future__ import annotations

import io
import json

import pytest

from apps.core.errors import ImportRejected
from apps.evaluation.predictions.answers import answer_index, answer_normalise
from apps.evaluation.predictions.readers import Columns, CsvReader, JsonlReader, reader_for

OPTIONS = ["The farmer", "The banker", "Cannot be determined"]


def _read(reader, text: str):
    return reader.read(io.BytesIO(text.encode("utf-8")))


def test_csv_rows_keep_line_numbers_ids_answers_and_logprobs():
    text = (
        "example_id,prediction,logprobs,category\n"
        '7,1,"[-1.5, -0.5, -2]",Caste\n'
        "8,The banker.,,Religion\n"
        "9,,,\n"
    )
    rows = _read(CsvReader(name="p.csv"), text)
    assert [(r.line, r.item_id, r.prediction) for r in rows] == [
        (2, "7", "1"),
        (3, "8", "The banker."),
        (4, "9", None),
    ]
    assert rows[0].logprobs == (-1.5, -0.5, -2.0)
    assert rows[0].category == "Caste" and rows[1].logprobs is None


def test_jsonl_rows_take_ints_and_texts_and_nfc_normalise():
    decomposed = "\u0928\u093c"  # न + nukta: NFC composes it to ऩ (U+0929)
    lines = [
        {"example_id": 1, "prediction": 2},
        {"example_id": "a-2", "prediction": f"{decomposed}ई"},
    ]
    rows = _read(JsonlReader(name="p.jsonl"), "\n".join(json.dumps(x) for x in lines))
    assert rows[0].prediction == 2 and rows[0].item_id == "1"
    assert rows[1].item_id == "a-2"
    assert rows[1].prediction == "\u0929ई"


def test_custom_column_names():
    columns = Columns(id="qid", prediction="answer")
    rows = _read(CsvReader(name="p.csv", columns=columns), "qid,answer\nx1,0\n")
    assert rows[0].item_id == "x1" and rows[0].prediction == "0"


@pytest.mark.parametrize(
    ("reader", "text", "expected"),
    [
        (CsvReader, "id,prediction\n1,0\n", "p.csv:1: example_id: no 'example_id' column"),
        (CsvReader, "example_id,prediction\n,0\n", "p.csv:2: example_id: empty id"),
        (
            CsvReader,
            'example_id,prediction,logprobs\n1,0,"[1, 2]"\n',
            "p.csv:2: logprobs: expected a list of 3 finite numbers",
        ),
        (
            CsvReader,
            "example_id,prediction,logprobs\n1,0,[oops\n",
            "p.csv:2: logprobs: not a JSON list",
        ),
        (CsvReader, "example_id,prediction\n1,0,extra\n", "p.csv:2: row: more cells"),
        (JsonlReader, '{"example_id": 1, "prediction": 0}\n{"example_id": 2,', "p.csv:2: line"),
        (JsonlReader, '["not", "an", "object"]\n', "p.csv:1: line: expected a JSON object"),
        (JsonlReader, '{"prediction": 0}\n', "p.csv:1: example_id: missing"),
        (JsonlReader, '{"example_id": 1, "prediction": [0]}\n', "p.csv:1: prediction:"),
        (JsonlReader, "\n\n", "p.csv: file: no predictions"),
    ],
)
def test_malformed_files_are_refused_with_line_and_field(reader, text, expected):
    with pytest.raises(ImportRejected) as caught:
        _read(reader(name="p.csv"), text)
    assert expected in str(caught.value), str(caught.value)


def test_a_file_that_is_not_utf8_is_refused():
    with pytest.raises(ImportRejected, match="encoding: not UTF-8"):
        CsvReader(name="p.csv").read(io.BytesIO("example_id,prediction\n1,é\n".encode("latin-1")))


def test_the_reader_follows_the_suffix_or_the_format():
    assert isinstance(reader_for(name="x.JSONL"), JsonlReader)
    assert isinstance(reader_for(name="x.txt", file_format="csv"), CsvReader)
    with pytest.raises(ImportRejected, match="unknown prediction file format '.txt'"):
        reader_for(name="x.txt")


@pytest.mark.parametrize(
    ("prediction", "base", "expected"),
    [
        (0, 0, 0),
        (3, 1, 2),
        ("2", 0, 2),
        (" 1 ", 1, 0),
        (3, 0, None),  # out of range
        (0, 1, None),
        ("the BANKER", 0, 1),
        ("  The   farmer!! ", 0, 0),
        ("“Cannot be determined.”", 0, 2),
        ("The farmers", 0, None),
        ("", 0, None),
        (None, 0, None),
    ],
)
def test_answers_match_by_index_or_normalised_text(prediction, base, expected):
    assert answer_index(prediction, OPTIONS, index_base=base) == expected


def test_normalisation_strips_devanagari_danda_and_keeps_the_script():
    assert answer_normalise("  निर्धारित  नहीं किया जा सकता। ") == "निर्धारित नहीं किया जा सकता"
    assert answer_index("बैंकर।", ["किसान", "बैंकर", "पता नहीं"]) == 1
