"""Cell-level parsers shared by the readers: the placeholder mini-language, group lists, flags.

The mini-language (BBQ `Names`/`Lexical_diversity`, EsBBQ `names_es`, BharatBBQ `Names`):
    `{{NAME1}}: [v1, v2]; {{NAME2}}: [v3]`  or  `NAME1: [..]; WORD1: [..]`  or
    `NAME1-def: [el nieto, la nieta]; NAME1-indef: [un nieto, una nieta]`
Keys come in any order, with or without braces, in any case and with brace typos
(`{NAME1}}`, `{{Word1}}`); values are unquoted and comma-separated; pairs are separated by `;`
and/or newlines. Keys are returned in canonical form: "NAME1", "WORD2", "NAME1-def".
"""

from __future__ import annotations

import ast
import json
import re

# A key: optional quotes/braces, NAME|WORD, a number, an optional -def/-indef specifier.
_KEY = r"""["'\s{]*(NAME|WORD)\s*(\d+)\s*(?:-\s*(def|indef))?\s*[}"'\s]*"""
_CHUNK_RE = re.compile(_KEY + r":\s*\[([^\[\]]*)\]", re.IGNORECASE)
_SEPARATORS_RE = re.compile(r"[\s;,]*")
# A placeholder in running text, lenient about braces and case; needs a brace on each side so
# that ordinary words are never touched.
_TEXT_PLACEHOLDER_RE = re.compile(
    r"\{+\s*(NAME|WORD)\s*(\d+)\s*(?:-\s*(def|indef))?\s*\}+", re.IGNORECASE
)
_ANY_BRACED_RE = re.compile(r"\{\{[^{}]*\}\}")
_CANONICAL_PLACEHOLDER_RE = re.compile(r"\{\{(?:NAME|WORD)\d+(?:-(?:def|indef))?\}\}")

TRUE_WORDS = frozenset({"1", "true", "yes", "y", "t"})
FALSE_WORDS = frozenset({"", "0", "false", "no", "n", "f"})


def canonical_key(kind: str, number: str, specifier: str | None) -> str:
    key = f"{kind.upper()}{int(number)}"
    return f"{key}-{specifier.lower()}" if specifier else key


def parse_placeholder_lists(text: str) -> dict[str, list[str]]:
    """Parse the mini-language. Raises ValueError naming what could not be read."""
    result: dict[str, list[str]] = {}
    position = 0
    for match in _CHUNK_RE.finditer(text):
        _expect_separator(text, position, match.start())
        key = canonical_key(match.group(1), match.group(2), match.group(3))
        if key in result:
            raise ValueError(f"{key} is given twice")
        result[key] = _split_values(key, match.group(4))
        position = match.end()
    _expect_separator(text, position, len(text))
    if text.strip() and not result:
        raise ValueError(f"cannot read a `KEY: [value, ...]` list in {_excerpt(text)}")
    return result


def _expect_separator(text: str, start: int, end: int) -> None:
    between = text[start:end]
    if _SEPARATORS_RE.fullmatch(between) is None:
        raise ValueError(
            f"cannot parse {_excerpt(between.strip())}: expected `KEY: [value, ...]` "
            "pairs separated by `;`"
        )


def _split_values(key: str, body: str) -> list[str]:
    values = [_unquote(v.strip()) for v in body.split(",")]
    if values and values[-1] == "" and len(values) > 1:
        values.pop()  # tolerate a trailing comma
    if any(not v for v in values):
        raise ValueError(f"{key} has an empty value in [{body.strip()}]")
    return values


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1].strip()
    return value


def _excerpt(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def normalise_text_placeholders(text: str) -> str:
    """Rewrite `{NAME1}}`, `{{ word1 }}`, `{{Name2-DEF}}` ... as `{{NAME1}}`, `{{WORD1}}`."""
    return _TEXT_PLACEHOLDER_RE.sub(
        lambda m: "{{" + canonical_key(m.group(1), m.group(2), m.group(3)) + "}}", text
    )


def unknown_placeholders(text: str) -> list[str]:
    """Braced tokens that are not NAME/WORD placeholders (e.g. BBQ's unused {{GEN1}})."""
    return [
        token
        for token in _ANY_BRACED_RE.findall(text)
        if not _CANONICAL_PLACEHOLDER_RE.fullmatch(token)
    ]


def parse_group_list(text: str) -> list[str]:
    """A JSON list, a Python list literal, or a plain comma list; a bare string is one item."""
    text = text.strip()
    if not text:
        return []
    for loader in (json.loads, ast.literal_eval):
        try:
            value = loader(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, (list, tuple)):
            return [str(item).strip() for item in value if str(item).strip()]
        if isinstance(value, str):
            return [value.strip()] if value.strip() else []
    body = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    return [_unquote(item.strip()) for item in body.split(",") if _unquote(item.strip())]


def parse_flag(text: str) -> bool:
    """0/1, TRUE/empty, yes/no. Raises ValueError for anything else."""
    value = text.strip().lower()
    if value in TRUE_WORDS:
        return True
    if value in FALSE_WORDS:
        return False
    raise ValueError(f"expected 1/0, TRUE/FALSE or empty, got {text!r}")


def parse_int(text: str, *, low: int, high: int) -> int:
    """An integer in [low, high]; "4.0" is accepted (spreadsheets). Raises ValueError."""
    value = text.strip()
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"expected a whole number from {low} to {high}, got {text!r}") from None
    if not number.is_integer() or not low <= number <= high:
        raise ValueError(f"expected a whole number from {low} to {high}, got {text!r}")
    return int(number)
