"""Cell parsers: the placeholder mini-language, group lists, header keys, flags."""

from __future__ import annotations

import pytest

from apps.catalog.importers.limits import TableError
from apps.catalog.importers.tables import ImportFile, header_key, read_table
from apps.catalog.importers.templates import transformation
from apps.catalog.importers.values import (
    normalise_text_placeholders,
    parse_flag,
    parse_group_list,
    parse_int,
    parse_placeholder_lists,
    unknown_placeholders,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{{NAME1}}: [a, b];\n{{NAME2}}: [c]", {"NAME1": ["a", "b"], "NAME2": ["c"]}),
        ("NAME2: [c] ; NAME1:[a]", {"NAME2": ["c"], "NAME1": ["a"]}),
        ("{{Word1}}:[Rajasthan]", {"WORD1": ["Rajasthan"]}),
        ("{NAME1}}: [x]; {{ name2 }}: [y, z,]", {"NAME1": ["x"], "NAME2": ["y", "z"]}),
        (
            "NAME1-def: [el nieto, la nieta]; NAME1-indef: [un nieto, una nieta]",
            {"NAME1-def": ["el nieto", "la nieta"], "NAME1-indef": ["un nieto", "una nieta"]},
        ),
        ('"NAME1": [a]; WORD12: [b]', {"NAME1": ["a"], "WORD12": ["b"]}),
        ("", {}),
    ],
)
def test_placeholder_lists(text: str, expected: dict) -> None:
    assert parse_placeholder_lists(text) == expected


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("NAME1: [a, b", "cannot parse"),
        ("NAME1 = a, b", "cannot parse"),
        ("NAME1: [a]; NAME1: [b]", "NAME1 is given twice"),
        ("NAME1: [a, , b]", "empty value"),
        ("NAME1: [a] garbage NAME2: [b]", "garbage"),
    ],
)
def test_placeholder_lists_errors(text: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        parse_placeholder_lists(text)


def test_text_placeholders_are_normalised() -> None:
    text = "{NAME1}} met {{ name2 }} at {{Word1}}; {{Name1-DEF}} left. {{GEN1}} stays."
    assert normalise_text_placeholders(text) == (
        "{{NAME1}} met {{NAME2}} at {{WORD1}}; {{NAME1-def}} left. {{GEN1}} stays."
    )
    assert unknown_placeholders(normalise_text_placeholders(text)) == ["{{GEN1}}"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('["old"]', ["old"]),
        ("['musulmà', 'jueu']", ["musulmà", "jueu"]),
        ("Punjab, Rajasthan", ["Punjab", "Rajasthan"]),
        ("Rajasthan", ["Rajasthan"]),
        ("[low SES, poor]", ["low SES", "poor"]),
        ("", []),
    ],
)
def test_group_lists(text: str, expected: list[str]) -> None:
    assert parse_group_list(text) == expected


def test_header_key() -> None:
    assert header_key("Proper Nouns") == header_key("proper_nouns") == "proper_nouns"
    assert header_key("Known_anti-stereotyped-groups") == "known_anti_stereotyped_groups"
    assert header_key(" Annotator 1 (1 to 5)") == "annotator_1_(1_to_5)"


def test_flags_and_ints() -> None:
    assert parse_flag("TRUE") and parse_flag("1") and not parse_flag("") and not parse_flag("0")
    with pytest.raises(ValueError):
        parse_flag("maybe")
    assert parse_int("4.0", low=1, high=5) == 4
    for bad in ("0", "6", "2.5", "x", "nan"):
        with pytest.raises(ValueError):
            parse_int(bad, low=1, high=5)


def test_transformation_codes_and_labels() -> None:
    assert transformation("CT") == "CT"
    assert transformation("Simply-Transferred") == "ST"
    assert transformation("target group modified") == "TM"
    assert transformation("") == ""
    assert transformation("moved") is None


def test_rows_remember_their_physical_line() -> None:
    data = b'a,b\n1,"two\nlines"\n\n3,x\n'
    table = read_table(ImportFile("f.csv", data))
    assert [row.line for row in table.rows] == [2, 5]
    assert table.rows[0].cells == {"a": "1", "b": "two\nlines"}


def test_encoding_error_names_the_line() -> None:
    data = b"a,b\n1,ok\n2,caf" + "é".encode("latin-1") + b"\n"
    with pytest.raises(TableError) as caught:
        read_table(ImportFile("f.csv", data))
    assert caught.value.line == 3
    assert "not valid UTF-8" in caught.value.message and "0xe9" in caught.value.message
