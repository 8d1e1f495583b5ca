"""Pure functions of the translation job: no database, no models. Services feed them rows.

What goes to machine translation is the set of *unique* source strings. A disambiguated BBQ
context is the ambiguous context, a space, then the disambiguating text, and the ambiguous part
is shared by the four instances of a combination, so it is split off and translated once; the
translated context is the two translations joined the same way.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

UNKNOWN_ROLE = "unknown"
# Articles an answer may carry in front of the words the context uses ("The doctor" is found in
# "... a doctor and a nurse ...": the reader knows it is the same person).
_LEADING_ARTICLE = re.compile(r"^(the|a|an)\s+", re.IGNORECASE)
# Punctuation MT tends to add around a short answer ("डॉक्टर।"); it never matters for the match.
_EDGE_PUNCTUATION = ".,;:!?।॥\"'“”‘’()[] \u00a0"


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def split_context(context: str, ambiguous: str | None) -> list[str]:
    """The parts of a context to translate: [ambiguous, rest] when the context extends the
    ambiguous one as instantiation builds it, else the context whole."""
    if ambiguous and context != ambiguous and context.startswith(ambiguous + " "):
        rest = context[len(ambiguous) + 1 :]
        if rest.strip():
            return [ambiguous, rest]
    return [context]


def join_context(parts: Sequence[str]) -> str:
    return " ".join(part.strip() for part in parts if part.strip())


@dataclass(frozen=True)
class InstanceText:
    """What is translated of one instance: context parts, question, three options."""

    source_id: int
    context_parts: tuple[str, ...]
    question: str
    answers: tuple[str, str, str]

    def strings(self) -> tuple[str, ...]:
        return (*self.context_parts, self.question, *self.answers)


def instance_texts(rows: Iterable[dict[str, Any]]) -> list[InstanceText]:
    """Split each instance into its translation units. The ambiguous context of a disambiguated
    instance is its ambiguous sibling's context (same version, combination and name order)."""
    rows = list(rows)
    ambiguous: dict[tuple[int, int, str], str] = {}
    for row in rows:
        if row["context_condition"] == "ambig":
            key = (row["template_version_id"], row["combination"], row["name_order"])
            ambiguous.setdefault(key, row["context"])
    texts = []
    for row in rows:
        key = (row["template_version_id"], row["combination"], row["name_order"])
        parts = (
            split_context(row["context"], ambiguous.get(key))
            if row["context_condition"] == "disambig"
            else [row["context"]]
        )
        texts.append(
            InstanceText(
                source_id=row["id"],
                context_parts=tuple(parts),
                question=row["question"],
                answers=(row["ans0"], row["ans1"], row["ans2"]),
            )
        )
    return texts


# Fields of an instance counted as "strings in the instances" (the P4 denominator).
STRINGS_PER_INSTANCE = 5


def unique_strings(groups: Iterable[Iterable[str]]) -> list[str]:
    """First-seen order, blanks dropped (translating an empty string invents text)."""
    seen: dict[str, None] = {}
    for group in groups:
        for text in group:
            if text.strip():
                seen.setdefault(text, None)
    return list(seen)


def chunk_texts(texts: Sequence[str], size: int) -> list[list[str]]:
    """Length-sorted chunks of at most `size` texts: similar lengths batch with little padding,
    and each chunk is one task (a crash loses at most one)."""
    if size < 1:
        raise ValueError("chunk size must be at least 1")
    ordered = sorted(texts, key=lambda text: (len(text), text))
    return [ordered[i : i + size] for i in range(0, len(ordered), size)]


def _normalised(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


def _needles(answer: str) -> list[str]:
    bare = answer.strip(_EDGE_PUNCTUATION)
    without_article = _LEADING_ARTICLE.sub("", bare)
    return [n for n in dict.fromkeys([bare, without_article]) if n]


def appears_in(answer: str, context: str) -> bool:
    """Whether an option occurs in a context, ignoring case, edge punctuation and (English) a
    leading article."""
    haystack = _normalised(context)
    return any(_normalised(needle) in haystack for needle in _needles(answer))


def option_mismatches(
    *,
    english_context: str,
    english_answers: Sequence[str],
    roles: Sequence[str],
    translated_context: str,
    translated_answers: Sequence[str],
) -> list[str]:
    """BharatBBQ's answer-option consistency: an option (other than "unknown") that appears in
    the English context must appear, translated, in the translated context. Returns one reason
    per option that does not."""
    reasons: list[str] = []
    for english, translated, role in zip(english_answers, translated_answers, roles, strict=True):
        if role == UNKNOWN_ROLE or not appears_in(english, english_context):
            continue
        if not appears_in(translated, translated_context):
            reasons.append(
                f"answer option {translated!r} (English {english!r}) not found in the "
                "translated context"
            )
    return reasons


def low_similarity_reason(similarity: float, threshold: float) -> str:
    return f"low similarity {similarity:.2f} < {threshold:.2f}"
