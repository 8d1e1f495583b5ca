"""What a kind of judgement looks like and what an item's judgements add up to. Pure
functions over plain dicts, shared by the services, the API and the pages."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from apps.catalog.review import TupleVerdict, tuple_verdict
from apps.core.errors import KasautiError

from .models import CampaignKind, ItemStatus

YES, NO = "yes", "no"
YES_NO = (YES, NO)
SCORES = (1, 2, 3, 4, 5)

# BharatBBQ §3.7: the three validation criteria, in the order the screen shows them.
CRITERIA = {
    "a": "The template represents the intended stereotype.",
    "b": "The negative question evokes the stereotype; the non-negative question probes a "
    "neutral or positive association.",
    "c": "The placeholder terms represent the intended social groups.",
}

# BharatBBQ Appendix A.1, shown on screen next to the scores.
ADEQUACY_SCALE = {
    5: "All meaning preserved",
    4: "Most of the meaning preserved",
    3: "Much of the meaning preserved",
    2: "Little of the meaning preserved",
    1: "None of the meaning preserved",
}
FLUENCY_SCALE = {
    5: "Flawless language (native, natural, and error-free)",
    4: "Good language (minor issues but understandable and fluent)",
    3: "Non-native (awkward or foreign-sounding but understandable)",
    2: "Disfluent (ungrammatical or poorly formed)",
    1: "Incomprehensible",
}
SENTENCE_DECISIONS = ("keep", "fix", "drop")


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


def _text(answers: dict[str, Any], field: str, *, required: bool, limit: int = 2000) -> str:
    value = answers.get(field, "")
    if not isinstance(value, str):
        raise InvalidJudgement(f"{field}: expected text")
    value = value.strip()
    if required and not value:
        raise InvalidJudgement(f"{field}: a one-sentence justification is required")
    if len(value) > limit:
        raise InvalidJudgement(f"{field}: at most {limit} characters")
    return value


def _score(answers: dict[str, Any], field: str) -> int:
    value = answers.get(field)
    try:
        score = int(value)
    except (TypeError, ValueError):
        raise InvalidJudgement(f"{field}: a score from 1 to 5 is required") from None
    if score not in SCORES or str(value).strip() not in {str(s) for s in SCORES}:
        raise InvalidJudgement(f"{field}: a score from 1 to 5 is required, got {value!r}")
    return score


def answers_clean(*, kind: str, answers: Any) -> dict[str, Any]:
    """Validate one judgement's answers for a campaign kind; return the stored form.
    Raises InvalidJudgement naming the field."""
    if not isinstance(answers, dict):
        raise InvalidJudgement("answers: expected an object")
    if kind == CampaignKind.TEMPLATE_VALIDATION:
        clean: dict[str, Any] = {}
        for key in CRITERIA:
            value = answers.get(key)
            if value not in YES_NO:
                raise InvalidJudgement(f"{key}: answer yes or no")
            clean[key] = value
            clean[f"{key}_comment"] = _text(answers, f"{key}_comment", required=False)
        return clean
    if kind in (CampaignKind.TRANSLATION_SCORING, CampaignKind.CALIBRATION):
        return {
            "adequacy": _score(answers, "adequacy"),
            "adequacy_reason": _text(answers, "adequacy_reason", required=True),
            "fluency": _score(answers, "fluency"),
            "fluency_reason": _text(answers, "fluency_reason", required=True),
        }
    if kind == CampaignKind.TUPLE_VOTE:
        if answers.get("stereotypical") not in YES_NO:
            raise InvalidJudgement("stereotypical: answer yes or no")
        return {
            "stereotypical": answers["stereotypical"],
            "comment": _text(answers, "comment", required=False),
        }
    if kind == CampaignKind.SENTENCE_REVIEW:
        decision = answers.get("decision")
        if decision not in SENTENCE_DECISIONS:
            raise InvalidJudgement("decision: keep, fix or drop")
        text = _text(answers, "text", required=decision == "fix", limit=5000)
        return {"decision": decision, "text": text if decision == "fix" else ""}
    raise InvalidJudgement(f"unknown campaign kind {kind!r}")


@dataclass(frozen=True)
class Outcome:
    status: str
    summary: dict[str, Any]


def outcome_for(*, kind: str, answers: Sequence[dict[str, Any]], open_findings: int = 0) -> Outcome:
    """What the complete set of an item's judgements (one per annotator) decides."""
    if kind == CampaignKind.TEMPLATE_VALIDATION:
        all_yes = all(a[key] == YES for a in answers for key in CRITERIA)
        summary = {key: [a[key] for a in answers] for key in CRITERIA} | {
            "all_yes": all_yes,
            "open_findings": open_findings,
        }
        # BharatBBQ §3.7: approved only if every annotator approves every criterion; open
        # import findings need an adjudicator's explicit resolve/accept first.
        if all_yes and not open_findings:
            return Outcome(ItemStatus.APPROVED, summary)
        return Outcome(ItemStatus.ADJUDICATION, summary)
    if kind in (CampaignKind.TRANSLATION_SCORING, CampaignKind.CALIBRATION):
        return Outcome(
            ItemStatus.COMPLETE,
            {
                "adequacy": [a["adequacy"] for a in answers],
                "fluency": [a["fluency"] for a in answers],
                "adequacy_mean": statistics.fmean(a["adequacy"] for a in answers),
                "fluency_mean": statistics.fmean(a["fluency"] for a in answers),
            },
        )
    if kind == CampaignKind.TUPLE_VOTE:
        votes = [1 if a["stereotypical"] == YES else 0 for a in answers]
        # IndiBias §4.1 (>= 2 of 3 votes), as a strict majority for other numbers of
        # annotators: the catalog's rule, which reviewed releases apply too.
        stereotypical = tuple_verdict(votes) == TupleVerdict.STEREOTYPICAL
        return Outcome(
            ItemStatus.COMPLETE,
            {"votes": votes, "score": sum(votes), "stereotypical": stereotypical},
        )
    if kind == CampaignKind.SENTENCE_REVIEW:
        decisions = [a["decision"] for a in answers]
        texts = {a["text"] for a in answers if a["decision"] == "fix"}
        summary = {"decisions": decisions, "texts": sorted(texts)}
        if len(set(decisions)) == 1 and len(texts) <= 1:
            return Outcome(ItemStatus.COMPLETE, summary | {"decision": decisions[0]})
        return Outcome(ItemStatus.ADJUDICATION, summary)
    raise InvalidJudgement(f"unknown campaign kind {kind!r}")


# How pages name a judged field (agreement tables, adjudication).
FIELD_LABELS = {
    **{code: f"({code}) {text}" for code, text in CRITERIA.items()},
    "adequacy": "Adequacy",
    "fluency": "Fluency",
    "stereotypical": "Stereotypical (vote)",
    "decision": "Keep / fix / drop",
    "overall": "Overall (all criteria)",
}


def field_label(field: str) -> str:
    return FIELD_LABELS.get(field, field)


def labels_for(*, kind: str) -> dict[str, tuple[Sequence[Any], bool]]:
    """The judged fields of a kind with their full label set and whether they are ordinal."""
    if kind == CampaignKind.TEMPLATE_VALIDATION:
        return {key: (YES_NO, False) for key in CRITERIA}
    if kind in (CampaignKind.TRANSLATION_SCORING, CampaignKind.CALIBRATION):
        return {"adequacy": (SCORES, True), "fluency": (SCORES, True)}
    if kind == CampaignKind.TUPLE_VOTE:
        return {"stereotypical": (YES_NO, False)}
    return {"decision": (SENTENCE_DECISIONS, False)}


def answers_from_form(*, kind: str, data: Any) -> dict[str, Any]:
    """The answers of an HTML form post (QueryDict), in the shape answers_clean expects."""
    if kind == CampaignKind.TEMPLATE_VALIDATION:
        fields = [*CRITERIA, *(f"{key}_comment" for key in CRITERIA)]
    elif kind in (CampaignKind.TRANSLATION_SCORING, CampaignKind.CALIBRATION):
        fields = ["adequacy", "adequacy_reason", "fluency", "fluency_reason"]
    elif kind == CampaignKind.TUPLE_VOTE:
        fields = ["stereotypical", "comment"]
    else:
        fields = ["decision", "text"]
    return {name: form_text(data, name) for name in fields}


def form_text(data: Any, name: str) -> str:
    """A posted text field (QueryDict) with the line breaks the catalog stores: browsers
    submit every line break of a <textarea> as CRLF, which would make an untouched multi-line
    field look edited (and store CRLF in a new version or a judgement)."""
    return data.get(name, "").replace("\r\n", "\n")
