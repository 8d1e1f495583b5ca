"""The pieces every campaign kind's judgements are made of (yes/no, a 1-5 score, a text), the
errors of the workbench, and an outcome. Pure functions over plain dicts; what each kind asks
and decides is its object in apps/annotation/kinds/."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from apps.core.errors import KasautiError

YES, NO = "yes", "no"
YES_NO = (YES, NO)
SCORES = (1, 2, 3, 4, 5)


class InvalidJudgement(KasautiError):
    status_code = 400


class PermissionRefused(KasautiError):
    status_code = 403


def languages_clean(languages: Iterable[str]) -> list[str]:
    """Language codes as stored on a profile: lower case, no blanks, each once, in order."""
    clean = []
    for code in languages:
        code = str(code).strip().lower()
        if not code:
            continue
        if len(code) > 16 or not code.replace("-", "").isalnum():
            raise KasautiError(f"languages: {code!r} is not a language code")
        if code not in clean:
            clean.append(code)
    return clean


def text_answer(answers: dict[str, Any], field: str, *, required: bool, limit: int = 2000) -> str:
    value = answers.get(field, "")
    if not isinstance(value, str):
        raise InvalidJudgement(f"{field}: expected text")
    value = value.strip()
    if required and not value:
        raise InvalidJudgement(f"{field}: a one-sentence justification is required")
    if len(value) > limit:
        raise InvalidJudgement(f"{field}: at most {limit} characters")
    return value


def score_answer(answers: dict[str, Any], field: str) -> int:
    value = answers.get(field)
    try:
        score = int(value)
    except (TypeError, ValueError):
        raise InvalidJudgement(f"{field}: a score from 1 to 5 is required") from None
    if score not in SCORES or str(value).strip() not in {str(s) for s in SCORES}:
        raise InvalidJudgement(f"{field}: a score from 1 to 5 is required, got {value!r}")
    return score


@dataclass(frozen=True)
class Outcome:
    status: str
    summary: dict[str, Any]


def new_idempotency_key() -> str:
    """A fresh key for one form render or API read: a judgement sent twice with it is stored
    once."""
    return uuid.uuid4().hex


def form_text(data: Any, name: str) -> str:
    """A posted text field (QueryDict) with the line breaks the catalog stores: browsers
    submit every line break of a <textarea> as CRLF, which would make an untouched multi-line
    field look edited (and store CRLF in a new version or a judgement)."""
    return data.get(name, "").replace("\r\n", "\n")
