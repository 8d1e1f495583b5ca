"""The one definition of an instance's text hash (issue 22): what a release file's
`provenance` column, the provenance API and the changelog compare to say "same text".

sha256 over the texts and the label, joined by U+001F (a character no text holds: NUL and
control characters are refused at the boundary), UTF-8, first 16 hex digits (64 bits: enough
to tell two versions of one instance apart, short enough to carry in every row). Computed in
Python (`instance_text_hash`) and, for the release fast path and the changelog, in
PostgreSQL (`INSTANCE_TEXT_HASH_SQL`); tests/releases/test_provenance_column.py holds them
equal on hostile text.
"""

from __future__ import annotations

import hashlib

HASH_FIELDS = ("context", "question", "ans0", "ans1", "ans2", "label")
HASH_DIGITS = 16
_SEPARATOR = "\x1f"


def instance_text_hash(
    *, context: str, question: str, ans0: str, ans1: str, ans2: str, label: int
) -> str:
    text = _SEPARATOR.join((context, question, ans0, ans1, ans2, str(label)))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:HASH_DIGITS]


def instance_text_hash_sql(alias: str = "i") -> str:
    """The same hash as a PostgreSQL expression over the instance row `alias`."""
    joined = " || E'\\x1f' || ".join(
        f"{alias}.{name}::text" if name == "label" else f"{alias}.{name}" for name in HASH_FIELDS
    )
    return f"left(encode(sha256(convert_to({joined}, 'UTF8')), 'hex'), {HASH_DIGITS})"


INSTANCE_TEXT_HASH_SQL = instance_text_hash_sql()
