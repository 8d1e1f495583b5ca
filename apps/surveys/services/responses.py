"""Respondents and their answers from the public link (/s/<slug>/), and erasure by code.

Privacy by construction:

* A web respondent is a random cookie token (`secrets.token_urlsafe`), stored only as its
  sha256 (Respondent.token_hash). No name, no account, no address (the throttle keeps none
  either: apps/surveys/throttle.py).
* The deletion code is derived from the token (sha256 of it, read as 8 characters of an
  unambiguous alphabet, shown XXXX-XXXX) and stored only as a hash. The server can show it
  again to whoever holds the cookie, and nobody else can work it out; the code does not reveal
  the token.
* Erasing by code deletes the respondent: every answer, its codings and the demographics.
  The derived mention counts of the concepts those answers were coded into are recounted.

Every check a respondent's input gets is here, not in the view: answer shape, keys of
categories, groups and demographic options against the version the form was drawn from,
length limits (a clear error naming the limit), NFC. HTML is kept as typed (templates escape
it); nothing is stripped silently.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from django.db import IntegrityError, connections, router, transaction
from django.utils import timezone

from apps.core.errors import KasautiError
from apps.core.text import nfc

from ..models import Answer, AnswerConcept, Respondent, Survey, SurveyVersion
from ..questionnaire import PREFER_NOT, Questionnaire
from .counts import survey_counts_refresh
from .surveys import survey_availability

# Length limits, in characters (after NFC). Named in the error a respondent sees.
TEXT_MAX = 2_000  # the stereotype, the experience
ATTRIBUTE_MAX = 500  # Answer.attribute's column
GROUP_TEXT_MAX = 300  # Answer.group_text's column
DEMOGRAPHIC_TEXT_MAX = 200  # a free-text demographic answer (region, religion, ...)
GROUPS_MAX = 50  # group keys picked in one answer

# No 0/O, 1/I/L: a code read aloud or copied from paper survives.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
TOKEN_RE = re.compile(r"^[A-Za-z0-9_\-]{32,64}$")

EXPOSURES = ("heard", "witnessed", "affected")


class SurveyUnavailable(KasautiError):
    """The survey takes no answers now; `reason` is survey_availability's (closed, full, ...)."""

    status_code = 409

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"the survey takes no answers now ({reason})")


@dataclass(frozen=True)
class FieldError:
    code: str  # "required", "too_long", "invalid"
    limit: int | None = None
    detail: str = ""

    def __str__(self) -> str:
        if self.code == "too_long":
            return f"too long: {self.limit:,} characters at most ({self.detail})"
        return f"{self.code}: {self.detail}" if self.detail else self.code


class ResponseInvalid(KasautiError):
    """What is wrong with a submitted answer or demographics, per field; nothing was saved."""

    def __init__(self, errors: dict[str, FieldError]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{name}: {error}" for name, error in errors.items()))


class DeletionCodeUnknown(KasautiError):
    status_code = 404

    def __init__(self) -> None:
        super().__init__("no answers match that deletion code; nothing was erased")


# --- tokens and codes ----------------------------------------------------------------------


def respondent_token_new() -> str:
    return secrets.token_urlsafe(32)


def token_valid(*, token: str | None) -> bool:
    return bool(token) and bool(TOKEN_RE.match(token))


def token_hash(*, token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def deletion_code_for(*, token: str) -> str:
    """The respondent's deletion code, XXXX-XXXX: derived from the token, so it is the same
    every time it is shown and needs no storing in the clear."""
    number = int.from_bytes(hashlib.sha256(b"deletion-code:" + token.encode("ascii")).digest())
    chars = []
    for _ in range(CODE_LENGTH):
        number, index = divmod(number, len(CODE_ALPHABET))
        chars.append(CODE_ALPHABET[index])
    return f"{''.join(chars[:4])}-{''.join(chars[4:])}"


def deletion_code_normalise(*, code: str) -> str:
    """As typed -> as derived: case, spaces and dashes do not matter."""
    letters = re.sub(r"[\s\-‐‑–—_.]", "", nfc(code or "")).upper()
    return f"{letters[:4]}-{letters[4:]}" if len(letters) == CODE_LENGTH else letters


def deletion_code_hash(*, survey: Survey, code: str) -> str:
    return hashlib.sha256(f"{survey.pk}:{deletion_code_normalise(code=code)}".encode()).hexdigest()


# --- respondents ---------------------------------------------------------------------------


def respondent_find(*, survey: Survey, token: str | None) -> Respondent | None:
    if not token_valid(token=token):
        return None
    return Respondent.objects.filter(survey=survey, token_hash=token_hash(token=token)).first()


def respondent_get_or_create(*, survey: Survey, token: str, language: str = "") -> Respondent:
    """The respondent holding `token` (a cookie), created on first use with its deletion code's
    hash. Safe under concurrent first requests with one token (the unique constraint decides)."""
    if not token_valid(token=token):
        raise KasautiError("respondent token: not a token this site issued")
    hashed = token_hash(token=token)
    found = Respondent.objects.filter(survey=survey, token_hash=hashed).first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            return Respondent.objects.create(
                survey=survey,
                source=Respondent.Source.WEB,
                token_hash=hashed,
                deletion_code_hash=deletion_code_hash(
                    survey=survey, code=deletion_code_for(token=token)
                ),
                language=language[:16],
            )
    except IntegrityError:
        return Respondent.objects.get(survey=survey, token_hash=hashed)


def _version_for(survey: Survey, version: SurveyVersion | None) -> SurveyVersion:
    """The version a form was drawn from (if it is this survey's), else the current one."""
    if version is not None and version.survey_id == survey.pk:
        return version
    return survey.current_version


@transaction.atomic
def demographics_save(
    *,
    survey: Survey,
    token: str,
    values: Mapping[str, str] | None,
    version: SurveyVersion | None = None,
    language: str = "",
) -> Respondent:
    """The optional demographic answers, asked once: `values` is {question key: option key,
    "prefer_not", or a short text for a question without options}; blanks are left out;
    None means skipped. A second call changes nothing (asked once)."""
    version = _version_for(survey, version)
    cleaned = _demographics_clean(Questionnaire(version.content), values or {})
    respondent = respondent_get_or_create(survey=survey, token=token, language=language)
    respondent = Respondent.objects.select_for_update().get(pk=respondent.pk)
    if respondent.demographics_asked:
        return respondent
    respondent.demographics = cleaned if values is not None else {}
    respondent.demographics_version = version
    respondent.demographics_asked = True
    respondent.save(update_fields=["demographics", "demographics_version", "demographics_asked"])
    return respondent


def _demographics_clean(questionnaire: Questionnaire, values: Mapping[str, str]) -> dict:
    errors: dict[str, FieldError] = {}
    cleaned: dict[str, str] = {}
    questions = {q["key"]: q for q in questionnaire.demographics}
    for key, raw in values.items():
        question = questions.get(key)
        if question is None:
            errors[key] = FieldError("invalid", detail="not a question of this survey")
            continue
        value = nfc(str(raw or "")).strip()
        if not value:
            continue  # every question is optional
        options = {o["key"] for o in question.get("options") or []}
        if value == PREFER_NOT:
            cleaned[key] = value
        elif options:
            if value not in options:
                errors[key] = FieldError("invalid", detail=f"{value[:40]!r} is not an option")
            else:
                cleaned[key] = value
        elif len(value) > DEMOGRAPHIC_TEXT_MAX:
            errors[key] = FieldError("too_long", DEMOGRAPHIC_TEXT_MAX, f"{len(value):,} given")
        else:
            cleaned[key] = value
    if errors:
        raise ResponseInvalid(errors)
    return cleaned


# --- answers -------------------------------------------------------------------------------


@dataclass
class AnswerInput:
    """One answer as submitted (strings as typed; the service cleans and checks them)."""

    category_key: str = ""
    group_keys: list[str] = field(default_factory=list)
    group_text: str = ""
    text: str = ""
    attribute: str = ""
    heard: bool = False
    witnessed: bool = False
    affected: bool = False
    experience: str = ""


def _answer_clean(questionnaire: Questionnaire, given: AnswerInput) -> AnswerInput:
    """Checked and normalised against the questionnaire, or ResponseInvalid naming each field."""
    errors: dict[str, FieldError] = {}

    def text(name: str, value: str, limit: int) -> str:
        value = nfc(value or "").strip()
        if len(value) > limit:
            errors[name] = FieldError("too_long", limit, f"{len(value):,} given")
        return value

    answer = AnswerInput(
        category_key=(given.category_key or "").strip(),
        group_keys=[k.strip() for k in given.group_keys if k and k.strip()],
        group_text=text("group_text", given.group_text, GROUP_TEXT_MAX),
        text=text("text", given.text, TEXT_MAX),
        attribute=text("attribute", given.attribute, ATTRIBUTE_MAX),
        heard=bool(given.heard),
        witnessed=bool(given.witnessed),
        affected=bool(given.affected),
        experience=text("experience", given.experience, TEXT_MAX),
    )
    if not questionnaire.ask_experience and answer.experience:
        errors["experience"] = FieldError("invalid", detail="this survey asks no experience")
    if questionnaire.categories:
        category = questionnaire.category(answer.category_key)
        if not answer.category_key:
            errors["category_key"] = FieldError("required")
        elif category is None:
            errors["category_key"] = FieldError(
                "invalid", detail=f"{answer.category_key[:40]!r} is not a category of this survey"
            )
        else:
            known = {g["key"] for g in category.get("groups") or []}
            unknown = [k for k in answer.group_keys if k not in known]
            if unknown:
                errors["group_keys"] = FieldError(
                    "invalid", detail=f"{unknown[0][:40]!r} is not a group of that category"
                )
            elif len(answer.group_keys) > GROUPS_MAX:
                errors["group_keys"] = FieldError("invalid", detail="too many groups")
            if answer.group_text and not category.get("allow_other"):
                errors["group_text"] = FieldError(
                    "invalid", detail="this category takes no typed-in group"
                )
    elif answer.category_key or answer.group_keys:
        errors["category_key"] = FieldError("invalid", detail="this survey has no categories")
    answer.group_keys = list(dict.fromkeys(answer.group_keys))
    has_group = bool(answer.group_keys or answer.group_text)
    shape = questionnaire.answer_shape
    if shape == "free_text":
        if answer.attribute:
            errors.setdefault("attribute", FieldError("invalid", detail="free-text answers only"))
        if not answer.text:
            errors.setdefault("text", FieldError("required"))
    elif shape == "tuple":
        if answer.text:
            errors.setdefault(
                "text", FieldError("invalid", detail="(group, attribute) answers only")
            )
        if not answer.attribute:
            errors.setdefault("attribute", FieldError("required"))
        if not has_group:
            errors.setdefault("group_keys", FieldError("required"))
    elif not answer.text:  # either: the free text, or a group and what is said about it
        if not answer.attribute:
            errors.setdefault("text", FieldError("required"))
        elif not has_group:
            errors.setdefault("group_keys", FieldError("required"))
    if not (answer.heard or answer.witnessed or answer.affected):
        errors["exposure"] = FieldError("required")
    if errors:
        raise ResponseInvalid(errors)
    return answer


def answer_submit(
    *,
    survey: Survey,
    token: str,
    answer: AnswerInput,
    version: SurveyVersion | None = None,
    language: str = "",
    now: datetime | None = None,
) -> Answer:
    """Save one answer of the respondent holding `token` (created on their first answer).

    Checked against the questionnaire first (nothing is written if anything is wrong), then,
    inside the transaction, whether the survey takes answers. A response cap is never
    overshot by concurrent submits (see _capped_insert)."""
    version = _version_for(survey, version)
    questionnaire = Questionnaire(version.content, language)
    cleaned = _answer_clean(questionnaire, answer)
    if not token_valid(token=token):
        raise KasautiError("respondent token: not a token this site issued")

    def insert() -> Answer:
        respondent = respondent_get_or_create(
            survey=survey, token=token, language=questionnaire.language
        )
        return Answer.objects.create(
            survey=survey,
            version=version,
            respondent=respondent,
            source=Respondent.Source.WEB,
            language=questionnaire.language,
            category_key=cleaned.category_key,
            group_keys=cleaned.group_keys,
            group_text=cleaned.group_text,
            text=cleaned.text,
            attribute=cleaned.attribute,
            heard=cleaned.heard,
            witnessed=cleaned.witnessed,
            affected=cleaned.affected,
            experience=cleaned.experience,
            submitted_at=now or timezone.now(),
        )

    if survey.response_cap is None:
        with transaction.atomic():
            availability = survey_availability(survey=survey, now=now)
            if not availability.accepting:
                raise SurveyUnavailable(availability.reason)
            return insert()
    return _capped_insert(survey=survey, insert=insert, now=now)


class _NearTheCap(Exception):
    """Too close to the cap for the shared-lock path: retry under the exclusive lock."""


@functools.cache
def _connections_bound(alias: str) -> int:
    """At most this many transactions can be in flight at once: PostgreSQL's max_connections."""
    with connections[alias].cursor() as cursor:
        cursor.execute("SHOW max_connections")
        return int(cursor.fetchone()[0])


def _capped_insert(*, survey: Survey, insert, now: datetime | None) -> Answer:
    """Insert an answer into a survey with a response cap, never past the cap, without making
    every submit wait for every other one.

    Far from the cap (the usual case): take a KEY SHARE lock on the survey row (many submits
    hold it at once), insert, then count the answers, own row included. With at most
    B = max_connections transactions in flight, the count C (committed answers + this one)
    plus the B - 1 others that may be in flight cannot pass the cap if C + B - 1 <= cap, so
    this answer commits. Otherwise this attempt is rolled back and made again under an
    exclusive FOR UPDATE lock on the survey row, which waits for every in-flight KEY SHARE
    holder to commit and keeps new ones out: its count is exact, so the cap is met, not passed.
    (Invariant: committed answers + answers in flight that passed their check <= cap.)
    SQLite (the single-user setup) serialises writers anyway: always the exclusive path."""
    alias = router.db_for_write(Answer)
    if connections[alias].vendor == "postgresql":
        bound = _connections_bound(alias)
        # survey_availability without the cap: status and dates, no count (counted below).
        uncapped = copy.copy(survey)
        uncapped.response_cap = None
        try:
            with transaction.atomic(using=alias):
                with connections[alias].cursor() as cursor:
                    table = connections[alias].ops.quote_name(Survey._meta.db_table)
                    cursor.execute(
                        f"SELECT 1 FROM {table} WHERE id = %s FOR KEY SHARE", [survey.pk]
                    )
                availability = survey_availability(survey=uncapped, now=now)
                if not availability.accepting:
                    raise SurveyUnavailable(availability.reason)
                answer = insert()
                if Answer.objects.filter(survey=survey).count() + bound - 1 > survey.response_cap:
                    raise _NearTheCap()
                return answer
        except _NearTheCap:
            pass
    with transaction.atomic(using=alias):
        survey = Survey.objects.select_for_update().get(pk=survey.pk)
        availability = survey_availability(survey=survey, now=now)
        if not availability.accepting:
            raise SurveyUnavailable(availability.reason)
        return insert()


# --- erasure -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Erased:
    respondents: int
    answers: int
    concepts_recounted: int


def respondent_erase_by_code(*, survey: Survey, code: str) -> Erased:
    """Erase everything of the respondent(s) holding deletion code `code` in `survey`: their
    answers (with the answers' codings and suggestions) and demographics, then recount the
    concepts those answers were coded into. An unknown code changes nothing
    (DeletionCodeUnknown)."""
    hashed = deletion_code_hash(survey=survey, code=code)
    with transaction.atomic():
        respondents = list(
            Respondent.objects.select_for_update()
            .filter(survey=survey, deletion_code_hash=hashed)
            .values_list("pk", flat=True)
        )
        if not respondents:
            raise DeletionCodeUnknown()
        concept_ids = set(
            AnswerConcept.objects.filter(answer__respondent_id__in=respondents).values_list(
                "concept_id", flat=True
            )
        )
        answers = Answer.objects.filter(respondent_id__in=respondents).count()
        Respondent.objects.filter(pk__in=respondents).delete()
        recounted = survey_counts_refresh(concept_ids=concept_ids)
    return Erased(len(respondents), answers, recounted)
