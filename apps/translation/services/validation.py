"""Checking what a translation job is asked for: target languages, threshold, source."""

from __future__ import annotations

from collections.abc import Iterable

from apps.core.errors import KasautiError
from worker.engines.indic_text import check_lang

from ..models import LANGUAGE_TAGS


def languages_validate(*, languages: Iterable[str]) -> list[str]:
    """Target ISO codes, deduplicated, in the order given; KasautiError names a bad one."""
    result: list[str] = []
    for code in languages:
        if code not in LANGUAGE_TAGS:
            raise KasautiError(
                f"unknown target language {code!r}; choose from {', '.join(LANGUAGE_TAGS)}"
            )
        if code not in result:
            result.append(code)
    if not result:
        raise KasautiError("choose at least one target language")
    return result


def languages_check(*, languages: list[str]) -> None:
    """At start: every language known here and to the script checks of the engines."""
    for code in languages:
        if code not in LANGUAGE_TAGS:
            raise KasautiError(
                f"unknown target language {code!r}; choose from {', '.join(LANGUAGE_TAGS)}"
            )
        check_lang(LANGUAGE_TAGS[code])
