"""Inclusion rules: which stereotype concepts a dataset keeps, from how many people mentioned
them and how many of those were affected.

A rule is a registered object (not a switch on a name), so a team adds its own without editing
this module. Each dataset names its rule (`Dataset.inclusion_rule`) and whether evidence is
required (`Dataset.evidence_required`); concepts with no dataset are judged by DEFAULT_RULE.

The counts a rule reads are the concept's *derived* survey counts when any survey answer is
coded into it (`survey_mentions`, `survey_affected`), else its typed, reported `mentions` with
no affected count. The two are never added together.

Besides the rule, a kept concept has a trusted source, is validated, and (where the dataset
requires it) has an evidence reference that is not rejected: `concept_verdict` says which of
these fail, in words, and `StereotypeConcept.objects.usable()` is the same test as a query.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.db.models import Q

DEFAULT_RULE = "bharatbbq"


@dataclass(frozen=True)
class InclusionRule:
    name: str
    label: str
    # (mentions, affected) -> None if the concept passes, else why not, in words.
    check: Callable[[int, int], str | None]
    # The same test as a query over the fields `_mentions` and `_affected` (annotated by
    # StereotypeConceptQuerySet.with_counts).
    q: Callable[[], Q]
    citation: str = ""


_RULES: dict[str, InclusionRule] = {}


def inclusion_rule_register(rule: InclusionRule) -> None:
    _RULES[rule.name] = rule


def inclusion_rule_unregister(name: str) -> None:
    _RULES.pop(name, None)


def inclusion_rule_get(name: str) -> InclusionRule:
    try:
        return _RULES[name or DEFAULT_RULE]
    except KeyError:
        known = ", ".join(sorted(_RULES))
        raise KeyError(f"unknown inclusion rule {name!r}; known: {known}") from None


def inclusion_rules() -> list[InclusionRule]:
    return sorted(_RULES.values(), key=lambda rule: rule.name)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _bharatbbq(mentions: int, affected: int) -> str | None:
    if mentions >= 3:
        return None
    return f"{_plural(mentions, 'mention')}; needs at least 3"


def _esbbq(mentions: int, affected: int) -> str | None:
    if mentions >= 3 or (mentions >= 2 and affected >= 1):
        return None
    if mentions == 2:
        return "2 mentions and none affected; needs 3, or 2 with one affected"
    return f"{_plural(mentions, 'mention')}; needs 3, or 2 with one affected"


BHARATBBQ = InclusionRule(
    name="bharatbbq",
    label="At least 3 mentions (BharatBBQ)",
    check=_bharatbbq,
    q=lambda: Q(_mentions__gte=3),
    citation="BharatBBQ §3.5",
)
ESBBQ = InclusionRule(
    name="esbbq",
    label="At least 3 mentions, or 2 with one respondent affected (EsBBQ)",
    check=_esbbq,
    q=lambda: Q(_mentions__gte=3) | Q(_mentions__gte=2, _affected__gte=1),
    citation="EsBBQ §3.2.1",
)


def register() -> None:
    """The rules the papers use; called from CatalogConfig.ready()."""
    inclusion_rule_register(BHARATBBQ)
    inclusion_rule_register(ESBBQ)


@dataclass(frozen=True)
class Verdict:
    passes: bool
    rule: InclusionRule
    mentions: int
    affected: int
    # "survey" when the counts are derived from coded answers, else "reported".
    counted_as: str
    reasons: list[str] = field(default_factory=list)


def concept_verdict(concept, *, evidence: list | None = None) -> Verdict:
    """Whether `concept` passes its dataset's rule, and every reason it does not.

    `evidence` may be given (a prefetched list) to spare a query per concept in lists."""
    from .models import EvidenceReference, StereotypeConcept

    dataset = concept.dataset
    rule = inclusion_rule_get(dataset.inclusion_rule if dataset else DEFAULT_RULE)
    if concept.survey_mentions is not None:
        mentions, affected, counted_as = (
            concept.survey_mentions,
            concept.survey_affected or 0,
            "survey",
        )
    else:
        mentions, affected, counted_as = concept.mentions, 0, "reported"
    reasons = []
    why = rule.check(mentions, affected)
    if why:
        reasons.append(why)
    if concept.source not in StereotypeConcept.TRUSTED_SOURCES:
        reasons.append(f"source {concept.get_source_display()!r} is not a trusted source")
    if concept.validation_status != StereotypeConcept.Validation.VALIDATED:
        reasons.append(f"not validated ({concept.get_validation_status_display().lower()})")
    if dataset is None or dataset.evidence_required:
        refs = list(concept.evidence.all()) if evidence is None else evidence
        if not any(ref.validation_status != EvidenceReference.Validation.REJECTED for ref in refs):
            reasons.append("no evidence reference (or all rejected)")
    return Verdict(
        passes=not reasons,
        rule=rule,
        mentions=mentions,
        affected=affected,
        counted_as=counted_as,
        reasons=reasons,
    )
