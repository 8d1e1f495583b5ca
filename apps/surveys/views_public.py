"""The pages anonymous respondents use: /s/<slug>/ (no account, no navigation, no third-party
assets, every visible word from the survey version's strings in the survey's language).

    start (consent)  ->  about you (first time only, skippable)  ->  answer  ->  thanks
                                                                   ^-- another --'   |
                                                                           finish -> done
    delete: erase one's answers with the deletion code (also after the survey closed)

The language is `?lang=` (a hidden field in forms), one of the survey's languages, the first
by default. The respondent is a pseudonymous cookie (HttpOnly, SameSite=Lax, Secure over
HTTPS, path /s/<slug>/) holding a random token the database knows only hashed; it is set when
the respondent agrees to take part. Every POST is counted by the per-address throttle
(apps/surveys/throttle.py); over the rate the same page comes back with 429, Retry-After and
everything typed still in the form.

Honeypot: the answer form has a field people never see ("website": display none, aria-hidden,
out of the tab order, autocomplete off). A filled one gets the normal redirect to the thanks
page and nothing is stored: a bot learns nothing from the reply. The cost, a person whose
browser autofills a hidden field losing that answer, is made unlikely by autocomplete=off and
a field name no autofill profile maps.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from apps.catalog.models import AUTONYMS

from .models import Survey, SurveyVersion
from .questionnaire import PREFER_NOT, Questionnaire
from .services.responses import (
    AnswerInput,
    DeletionCodeUnknown,
    FieldError,
    ResponseInvalid,
    SurveyUnavailable,
    answer_submit,
    deletion_code_for,
    demographics_save,
    respondent_erase_by_code,
    respondent_find,
    respondent_token_new,
    token_valid,
)
from .services.surveys import survey_availability
from .throttle import submit_allowed

COOKIE = "kasauti_respondent"
COOKIE_AGE = 180 * 24 * 3600
HONEYPOT = "website"
# The answer form's fields in page order (the first with an error gets the focus).
ANSWER_FIELDS = (
    "category_key",
    "group_keys",
    "group_text",
    "text",
    "attribute",
    "exposure",
    "experience",
)

RTL = {"ar", "fa", "he", "ur"}


# --- helpers -------------------------------------------------------------------------------


def _survey(slug: str) -> Survey:
    """The survey behind a public link; a draft does not exist for the public."""
    survey = get_object_or_404(Survey.objects.select_related("current_version"), slug=slug)
    if survey.status == Survey.Status.DRAFT or survey.current_version is None:
        raise Http404("no such survey")
    return survey


def _posted_version(request: HttpRequest, survey: Survey) -> SurveyVersion:
    """The version the posted form was drawn from (its questions are the ones answered)."""
    number = request.POST.get("version", "")
    current = survey.current_version
    if number.isdigit() and int(number) != current.number:
        found = SurveyVersion.objects.filter(survey=survey, number=int(number)).first()
        if found is not None:
            return found
    return current


def _questionnaire(request: HttpRequest, version: SurveyVersion) -> Questionnaire:
    lang = request.POST.get("lang") or request.GET.get("lang") or ""
    return Questionnaire(version.content, lang)


def _token(request: HttpRequest) -> str | None:
    token = request.COOKIES.get(COOKIE)
    return token if token_valid(token=token) else None


def _url(name: str, survey: Survey, q: Questionnaire) -> str:
    path = reverse(f"survey_public:{name}", kwargs={"slug": survey.slug})
    return f"{path}?{urlencode({'lang': q.language})}"


def _render(
    request: HttpRequest,
    survey: Survey,
    q: Questionnaire,
    template: str,
    context: dict | None = None,
    *,
    status: int = 200,
) -> HttpResponse:
    languages = [
        {
            "code": code,
            "name": AUTONYMS.get(code, code),
            "url": f"{request.path}?{urlencode({'lang': code})}",
            "current": code == q.language,
        }
        for code in q.languages
    ]
    base = {
        "survey": survey,
        "s": q.strings,
        "lang": q.language,
        "dir": "rtl" if q.language.split("-")[0] in RTL else "ltr",
        "languages": languages if len(languages) > 1 else [],
        "errors": {},
        "urls": {
            name: _url(name, survey, q)
            for name in ("start", "demographics", "answer", "thanks", "done", "delete")
        },
    }
    response = render(request, f"surveys/public/{template}", {**base, **(context or {})})
    response.status_code = status
    return response


def _unavailable(request, survey, q, reason: str, *, status: int = 200) -> HttpResponse:
    return _render(request, survey, q, "unavailable.html", {"reason": reason}, status=status)


def _throttled(response: HttpResponse, retry_after: int) -> HttpResponse:
    response["Retry-After"] = str(retry_after)
    return response


def _error_messages(q: Questionnaire, errors: dict[str, FieldError]) -> dict[str, str]:
    """Service errors -> the survey's own words (too_long names the limit)."""
    messages = {}
    for name, error in errors.items():
        if error.code == "too_long":
            messages[name] = q.text("too_long", limit=error.limit)
        else:  # required, or a value the form never offered (a tampered request)
            messages[name] = q.text("required")
    return messages


def _set_cookie(response: HttpResponse, request: HttpRequest, survey: Survey, token: str) -> None:
    response.set_cookie(
        COOKIE,
        token,
        max_age=COOKIE_AGE,
        path=reverse("survey_public:start", kwargs={"slug": survey.slug}),
        secure=request.is_secure(),
        httponly=True,
        samesite="Lax",
    )


def _see_other(url: str) -> HttpResponseRedirect:
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response


# --- start ---------------------------------------------------------------------------------


@never_cache
@require_http_methods(["GET", "POST"])
def start(request: HttpRequest, slug: str) -> HttpResponse:
    """Title, introduction, consent and data protection, the consent checkbox, languages."""
    survey = _survey(slug)
    q = _questionnaire(request, survey.current_version)
    availability = survey_availability(survey=survey)
    if not availability.accepting:
        return _unavailable(request, survey, q, availability.reason)
    if request.method == "GET":
        return _render(request, survey, q, "start.html")
    verdict = submit_allowed(request)
    if not verdict.allowed:
        page = _render(request, survey, q, "start.html", {"throttled": True}, status=429)
        return _throttled(page, verdict.retry_after)
    if request.POST.get("consent") != "yes":
        errors = {"consent": q.text("required")}
        return _render(request, survey, q, "start.html", {"errors": errors}, status=400)
    token = _token(request) or respondent_token_new()
    respondent = respondent_find(survey=survey, token=token)
    asked = respondent is not None and respondent.demographics_asked
    target = "answer" if asked or not q.demographics else "demographics"
    response = _see_other(_url(target, survey, q))
    _set_cookie(response, request, survey, token)
    return response


# --- demographics --------------------------------------------------------------------------


def _demographic_questions(q: Questionnaire, values: dict, errors: dict | None = None) -> list:
    errors = errors or {}
    first = next((qn["key"] for qn in q.demographics if qn["key"] in errors), None)
    questions = []
    for question in q.demographics:
        options = [
            {"key": o["key"], "label": q.label(o), "id": f"d_{question['key']}_{i}"}
            for i, o in enumerate(question.get("options") or [])
        ]
        options.append(
            {
                "key": PREFER_NOT,
                "label": q.text("prefer_not_to_say"),
                "id": f"d_{question['key']}_prefer_not",
            }
        )
        questions.append(
            {
                "key": question["key"],
                "name": f"d_{question['key']}",
                "label": q.label(question),
                "free_text": not question.get("options"),
                "options": options,
                "value": values.get(question["key"], ""),
                "error": errors.get(question["key"], ""),
                "first_error": question["key"] == first,
            }
        )
    return questions


@never_cache
@require_http_methods(["GET", "POST"])
def demographics(request: HttpRequest, slug: str) -> HttpResponse:
    """The optional questions about the respondent, asked once (skippable)."""
    survey = _survey(slug)
    token = _token(request)
    q = _questionnaire(request, survey.current_version)
    if token is None:
        return _see_other(_url("start", survey, q))
    availability = survey_availability(survey=survey)
    if not availability.accepting:
        return _unavailable(request, survey, q, availability.reason)
    respondent = respondent_find(survey=survey, token=token)
    if (respondent is not None and respondent.demographics_asked) or not q.demographics:
        return _see_other(_url("answer", survey, q))
    if request.method == "GET":
        questions = _demographic_questions(q, {})
        return _render(request, survey, q, "demographics.html", {"questions": questions})

    version = _posted_version(request, survey)
    q = _questionnaire(request, version)
    values: dict[str, str] = {}
    for question in q.demographics:
        key = question["key"]
        chosen = request.POST.get(f"d_{key}", "")
        if not question.get("options") and request.POST.get(f"d_{key}_prefer_not"):
            chosen = PREFER_NOT
        values[key] = chosen
    context = {"questions": _demographic_questions(q, values), "version": version}
    verdict = submit_allowed(request)
    if not verdict.allowed:
        page = _render(
            request, survey, q, "demographics.html", {**context, "throttled": True}, status=429
        )
        return _throttled(page, verdict.retry_after)
    skipped = "skip" in request.POST
    try:
        demographics_save(
            survey=survey,
            token=token,
            values=None if skipped else values,
            version=version,
            language=q.language,
        )
    except ResponseInvalid as invalid:
        errors = _error_messages(q, invalid.errors)
        context["questions"] = _demographic_questions(q, values, errors)
        return _render(request, survey, q, "demographics.html", context, status=400)
    return _see_other(_url("answer", survey, q))


# --- answer --------------------------------------------------------------------------------


def _answer_form(q: Questionnaire, data: dict) -> dict:
    """The questionnaire's categories and groups with what was picked or typed."""
    categories = []
    for category in q.categories:
        key = category["key"]
        categories.append(
            {
                "key": key,
                "label": q.label(category),
                "id": f"a_category_{key}",
                "checked": data.get("category") == key,
                "allow_other": bool(category.get("allow_other")),
                "group_text": data.get("group_text", {}).get(key, ""),
                "groups": [
                    {
                        "value": f"{key}/{group['key']}",
                        "label": q.label(group),
                        "id": f"a_group_{key}_{group['key']}",
                        "checked": f"{key}/{group['key']}" in data.get("groups", ()),
                    }
                    for group in category.get("groups") or []
                ],
            }
        )
    return {
        "categories": categories,
        "shape": q.answer_shape,
        "ask_experience": q.ask_experience,
        "data": data,
    }


def _answer_data(request: HttpRequest, q: Questionnaire) -> dict:
    """The posted answer form, as typed (kept whole to draw the form again)."""
    post = request.POST
    return {
        "category": post.get("category", ""),
        "groups": post.getlist("group"),
        "group_text": {c["key"]: post.get(f"group_text__{c['key']}", "") for c in q.categories},
        "text": post.get("text", ""),
        "attribute": post.get("attribute", ""),
        "heard": bool(post.get("heard")),
        "witnessed": bool(post.get("witnessed")),
        "affected": bool(post.get("affected")),
        "experience": post.get("experience", ""),
    }


def _answer_input(data: dict) -> AnswerInput:
    """The chosen category's groups and typed-in group; the other categories' fields are hidden
    from people with scripts on, and not part of the answer."""
    category = data["category"]
    if not category:  # no category picked, but groups of one category ticked: that one
        picked = {value.split("/", 1)[0] for value in data["groups"] if "/" in value}
        if len(picked) == 1:
            category = picked.pop()
            data["category"] = category
    prefix = f"{category}/"
    return AnswerInput(
        category_key=category,
        group_keys=[v[len(prefix) :] for v in data["groups"] if v.startswith(prefix)],
        group_text=data["group_text"].get(category, ""),
        text=data["text"],
        attribute=data["attribute"],
        heard=data["heard"],
        witnessed=data["witnessed"],
        affected=data["affected"],
        experience=data["experience"],
    )


@never_cache
@require_http_methods(["GET", "POST"])
def answer(request: HttpRequest, slug: str) -> HttpResponse:
    """Report one stereotype; as many times as the respondent likes."""
    survey = _survey(slug)
    token = _token(request)
    q = _questionnaire(request, survey.current_version)
    if token is None:
        return _see_other(_url("start", survey, q))
    if request.method == "GET":
        availability = survey_availability(survey=survey)
        if not availability.accepting:
            return _unavailable(request, survey, q, availability.reason)
        respondent = respondent_find(survey=survey, token=token)
        if q.demographics and (respondent is None or not respondent.demographics_asked):
            return _see_other(_url("demographics", survey, q))
        context = {**_answer_form(q, {}), "version": survey.current_version}
        return _render(request, survey, q, "answer.html", context)

    version = _posted_version(request, survey)
    q = _questionnaire(request, version)
    data = _answer_data(request, q)
    verdict = submit_allowed(request)
    if not verdict.allowed:
        context = {**_answer_form(q, data), "version": version, "throttled": True}
        page = _render(request, survey, q, "answer.html", context, status=429)
        return _throttled(page, verdict.retry_after)
    if request.POST.get(HONEYPOT):
        return _see_other(_url("thanks", survey, q))  # looks accepted; nothing is stored
    given = _answer_input(data)
    try:
        answer_submit(
            survey=survey, token=token, answer=given, version=version, language=q.language
        )
    except ResponseInvalid as invalid:
        errors = _error_messages(q, invalid.errors)
        context = {
            **_answer_form(q, data),
            "version": version,
            "errors": errors,
            "group_error": errors.get("group_keys") or errors.get("group_text", ""),
            "first_error": next((name for name in ANSWER_FIELDS if name in errors), ""),
        }
        return _render(request, survey, q, "answer.html", context, status=400)
    except SurveyUnavailable as unavailable:
        return _unavailable(request, survey, q, unavailable.reason, status=409)
    return _see_other(_url("thanks", survey, q))


# --- thanks, done --------------------------------------------------------------------------


@never_cache
@require_http_methods(["GET"])
def thanks(request: HttpRequest, slug: str) -> HttpResponse:
    """The answer was saved: the deletion code, report another, or finish."""
    survey = _survey(slug)
    token = _token(request)
    q = _questionnaire(request, survey.current_version)
    if token is None:
        return _see_other(_url("start", survey, q))
    return _render(request, survey, q, "thanks.html", {"code": deletion_code_for(token=token)})


@never_cache
@require_http_methods(["GET"])
def done(request: HttpRequest, slug: str) -> HttpResponse:
    """Finished: the code once more, and the respondent cookie is removed (a shared phone's
    next person starts afresh, demographics included)."""
    survey = _survey(slug)
    token = _token(request)
    q = _questionnaire(request, survey.current_version)
    code = deletion_code_for(token=token) if token else ""
    response = _render(request, survey, q, "done.html", {"code": code})
    response.delete_cookie(COOKIE, path=reverse("survey_public:start", kwargs={"slug": slug}))
    return response


# --- delete --------------------------------------------------------------------------------


@never_cache
@require_http_methods(["GET", "POST"])
def delete(request: HttpRequest, slug: str) -> HttpResponse:
    """Erase one's answers with the deletion code. Open to closed and full surveys too."""
    survey = _survey(slug)
    q = _questionnaire(request, survey.current_version)
    if request.method == "GET":
        return _render(request, survey, q, "delete.html")
    code = request.POST.get("code", "")[:40]
    verdict = submit_allowed(request)
    if not verdict.allowed:
        page = _render(
            request, survey, q, "delete.html", {"code": code, "throttled": True}, status=429
        )
        return _throttled(page, verdict.retry_after)
    if not code.strip():
        errors = {"code": q.text("required")}
        return _render(
            request, survey, q, "delete.html", {"code": code, "errors": errors}, status=400
        )
    try:
        respondent_erase_by_code(survey=survey, code=code)
    except DeletionCodeUnknown:
        errors = {"code": q.text("delete_unknown")}
        return _render(
            request, survey, q, "delete.html", {"code": code, "errors": errors}, status=404
        )
    response = _render(request, survey, q, "delete.html", {"deleted": True})
    token = _token(request)
    if token and respondent_find(survey=survey, token=token) is None:
        # This browser's respondent was the one erased (or has none): forget the token here.
        response.delete_cookie(COOKIE, path=reverse("survey_public:start", kwargs={"slug": slug}))
    return response
