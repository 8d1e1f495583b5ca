"""Small factories for the coding tests: respondents, answers and concepts written with the
ORM (the public submit service is tested elsewhere)."""

from __future__ import annotations

import hashlib
import itertools

from django.utils import timezone

from apps.catalog.models import Category, StereotypeConcept
from apps.surveys.models import Answer, Respondent

_counter = itertools.count(1)


def respondent(survey, *, language: str = "hi") -> Respondent:
    n = next(_counter)
    return Respondent.objects.create(
        survey=survey,
        token_hash=hashlib.sha256(f"r{n}".encode()).hexdigest(),
        language=language,
    )


def answer(survey, who: Respondent | None = None, **fields) -> Answer:
    who = who or respondent(survey)
    fields.setdefault("language", who.language or "hi")
    fields.setdefault("text", f"answer {next(_counter)}")
    fields.setdefault("category_key", "religion")
    return Answer.objects.create(
        survey=survey,
        version=survey.current_version,
        respondent=who,
        submitted_at=timezone.now(),
        **fields,
    )


def concept(dataset, statement: str = "", **fields) -> StereotypeConcept:
    category, _ = Category.objects.get_or_create(name=fields.pop("category", "Religion"))
    fields.setdefault("source", "survey")
    fields.setdefault("validation_status", StereotypeConcept.Validation.VALIDATED)
    fields.setdefault("target_groups", ["Muslims"])
    return StereotypeConcept.objects.create(
        category=category,
        dataset=dataset,
        statement=statement or f"concept {next(_counter)}",
        **fields,
    )
