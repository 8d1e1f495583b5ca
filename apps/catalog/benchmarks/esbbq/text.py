"""The string rules of EsBBQ's `utils.py`, verbatim in behaviour: list and mapping cells,
NAME1/NAME2 flips, sentence capitalisation, contractions and the answer matching. Pure."""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import product
from typing import Any


class GenerationError(ValueError):
    """The original script would stop on this row (an assertion or a lookup that fails)."""


# utils.ling_replacements, verbatim: applied in order to every filled text.
LING_REPLACEMENTS: dict[str, list[tuple[str, str]]] = {
    "es": [
        (r"\bde el\b", "del"),
        (r"\b([aA]) el\b", r"\1l"),
        ("testigo de Jehová", "que es testigo de Jehová"),
    ],
    "ca": [
        (r"\bde el(s?)\b", r"del\1"),
        (r"\b([aA]) el(s?)\b", r"\1l\2"),
        (r"\bde ([aAeEèÈéÉiIoOòÒóÓuUhH])", r"d'\1"),
        (r"\bd'io", r"de io"),
        ("testimoni de Jehovà", "que és testimoni de Jehovà"),
    ],
}
_COMPILED_REPLACEMENTS = {
    language: [(re.compile(pattern), replacement) for pattern, replacement in rules]
    for language, rules in LING_REPLACEMENTS.items()
}


def split_and_strip(text: str, sep: str) -> list[str]:
    return [item.strip() for item in text.split(sep)]


def parse_list(text: str) -> list[str]:
    """utils.parse_list_from_string: "['a', 'b']"-like or comma-separated."""
    text = (text or "").strip()
    if not text:
        return []
    if text.startswith("[") and text.endswith("]"):
        return [item.strip('"') for item in split_and_strip(text[1:-1], ",")]
    return split_and_strip(text, ",")


def parse_mapping(text: str) -> dict[str, list[str]]:
    """utils.parse_dict_from_string: "NAME1: [nieto]; NAME2: [abuelo]"."""
    if not text:
        return {}
    text = text.replace('"', "")
    pairs = [split_and_strip(part, ":") for part in split_and_strip(text, ";")]
    result: dict[str, list[str]] = {}
    for pair in pairs:
        if len(pair) != 2:
            raise GenerationError(f"cannot read {':'.join(pair)!r} as 'KEY: [values]'")
        key, value = pair
        result[re.sub(r"(\{\{?)|(\}\}?)", "", key)] = parse_list(value)
    return result


def group_by_specifiers(mapping: dict[str, list[str]]) -> dict[str, dict[str | None, list[str]]]:
    """utils.group_by_specifiers: {"NAME1": {None: [...], "def": [...], "indef": [...]}}."""
    grouped: dict[str, dict[str | None, list[str]]] = {}
    for key, words in mapping.items():
        if "-" in key:
            parts = key.split("-")
            if len(parts) != 2:
                raise GenerationError(f"cannot read the key {key!r}")
            label, specifier = parts[0], parts[1]
        else:
            label, specifier = key, None
        grouped.setdefault(label, {})[specifier] = words
    for sub in grouped.values():
        if set(sub) == {"indef", "def"}:
            source = sub.get("indef", sub.get("def")) or []
            bare = []
            for phrase in source:
                if " " not in phrase:
                    raise GenerationError(f"{phrase!r} has no article to drop")
                bare.append(phrase[phrase.index(" ") + 1 :])
            sub[None] = bare
    for label, sub in grouped.items():
        if len({len(words) for words in sub.values()}) != 1:
            raise GenerationError(f"Lists for {label} don't match: {sub}")
    return grouped


def lexical_combinations(grouped: dict[str, dict[str | None, list[str]]]) -> list[dict[str, int]]:
    """utils.get_lex_div_combinations: index choices for WORD1, WORD2, ... in key order."""
    labels = list(grouped)
    lengths = [len(next(iter(grouped[label].values()))) for label in labels]
    return [
        dict(zip(labels, choice, strict=True)) for choice in product(*(range(n) for n in lengths))
    ]


def flip_names(text: str) -> str:
    return text.replace("NAME1", "TMP").replace("NAME2", "NAME1").replace("TMP", "NAME2")


# The Spanish Punkt model (nltk.sent_tokenize(language="spanish")) splits after ., ? and ! when
# whitespace and another token follow, unless the word before the period is an abbreviation it
# learnt. Only the first letter of each sentence changes, and the sentences are re-joined with one
# space; this reproduces that on EsBBQ's templates.
_SENTENCE_END_RE = re.compile(r"[.?!]+[\"')\]}»”’]*(?=\s+\S)")
_ABBREVIATIONS = frozenset({"sr", "sra", "srta", "dr", "dra", "ud", "uds", "etc", "p. ej", "ej"})


def sentences(text: str) -> list[str]:
    parts: list[str] = []
    start = 0
    for match in _SENTENCE_END_RE.finditer(text):
        before = text[start : match.start()].split()
        word = before[-1].lower() if before else ""
        if match.group().startswith(".") and word in _ABBREVIATIONS:
            continue
        parts.append(text[start : match.end()].strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return [part for part in parts if part]


def capitalize_sentences(text: str) -> str:
    """utils.capitalize_sents."""
    result = []
    for sent in sentences(text):
        if sent[0] in ("¿", "¡"):
            if len(sent) < 2:
                raise GenerationError(f"sentence {sent!r} has nothing after {sent[0]}")
            sent = sent[0] + sent[1].upper() + sent[2:]
        else:
            sent = sent[0].upper() + sent[1:]
        result.append(sent)
    return " ".join(result)


def fix_language(text: str, language: str) -> str:
    for pattern, replacement in _COMPILED_REPLACEMENTS[language]:
        text = pattern.sub(replacement, text)
    return text


@lru_cache(maxsize=65536)
def finish_text(text: str, language: str) -> str:
    """Capitalisation then contractions, as fill_template does to every filled text (cached:
    the same question or answer text recurs across many value combinations)."""
    return fix_language(capitalize_sentences(text), language)


def word_in_str(word: str, text: str) -> bool:
    word = re.sub(r"^(el |la |al |els |las |los |l')", "", word)
    return bool(re.search(rf"(?:(?<=\b)|(?<=\')){re.escape(word)}\b", text, flags=re.IGNORECASE))


def is_set(value: Any) -> bool:
    """pandas truthiness of a cell read as text: "" and "0" are false, as 0 and NaN->"" are."""
    text = str(value or "").strip()
    if not text:
        return False
    try:
        return float(text) != 0
    except ValueError:
        return True


def unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def first_row(rows: list[dict[str, str]], **where: str) -> dict[str, str]:
    for row in rows:
        if all(row.get(key, "") == value for key, value in where.items()):
            return row
    raise GenerationError(f"no vocabulary row with {where}")
