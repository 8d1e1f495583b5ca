"""Reading an answer given in a predictions file: which option it names (an index, 0- or
1-based, or the option's text, compared after case, space and trailing-punctuation
normalisation). Plain Python."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

_SPACES = re.compile(r"\s+")


def answer_normalise(text: str) -> str:
    """Case-folded, spaces collapsed, trailing punctuation (., !, ?, ।, quotes...) removed."""
    text = _SPACES.sub(" ", unicodedata.normalize("NFC", text)).strip().casefold()
    while text and unicodedata.category(text[-1])[0] in "P":
        text = text[:-1].rstrip()
    while text and (unicodedata.category(text[0]) in ("Pi", "Ps") or text[0] in "\"'"):
        text = text[1:].lstrip()
    return text


def answer_index(
    prediction: int | str | None, answers: Sequence[str], *, index_base: int = 0
) -> int | None:
    """The chosen option (0..len-1) or None when the answer is not one of them."""
    if prediction is None:
        return None
    if isinstance(prediction, str) and prediction.strip().isascii():
        stripped = prediction.strip()
        if stripped.isdigit():
            prediction = int(stripped)
    if isinstance(prediction, int):
        index = prediction - index_base
        return index if 0 <= index < len(answers) else None
    wanted = answer_normalise(prediction)
    matches = [i for i, answer in enumerate(answers) if answer_normalise(answer) == wanted]
    return matches[0] if len(matches) == 1 else None
