"""The researcher's survey editor: the list of surveys, a new survey, its page (status, link,
gaps, open/close, settings, versions, and links to import, coding and reports), and the
questionnaire's editors (texts per language, answer shape and categories, demographic
questions). Every write goes through apps/surveys/services/surveys.py; a version that has
answers is never changed in place (survey_content_save makes a new one)."""

from __future__ import annotations

import copy
from collections import defaultdict

from django.contrib import messages
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from apps.accounts.decorators import researcher_required
from apps.catalog.forms import DatasetInclusionForm
from apps.catalog.inclusion import inclusion_rule_get
from apps.catalog.models import LANGUAGE_NAMES, Category
from apps.catalog.services.datasets import dataset_inclusion_set
from apps.core.error_pages import post_form
from apps.core.errors import KasautiError

from . import forms_editor as ef
from .models import Answer, Respondent, Survey, SurveyVersion
from .questionnaire import content_problems
from .services.surveys import (
    SurveyNotReady,
    survey_close,
    survey_content_save,
    survey_create,
    survey_delete,
    survey_languages_set,
    survey_open,
    survey_settings_update,
)
from .strings import DEFAULT_STRINGS, STRING_KEYS


def _survey(slug: str) -> Survey:
    return get_object_or_404(
        Survey.objects.select_related("dataset", "current_version", "created_by"), slug=slug
    )


def _title(survey: Survey) -> tuple[str, str]:
    """The survey's title in its default language, and that language (for lang=)."""
    content = survey.current_version.content
    lang = content["languages"][0]
    return content["strings"].get(lang, {}).get("title", ""), lang


def _language_name(code: str) -> str:
    return LANGUAGE_NAMES.get(code, code)


@require_GET
@researcher_required
def survey_list(request: HttpRequest) -> HttpResponse:
    surveys = Survey.objects.select_related("dataset", "current_version").annotate(
        answer_count=Count("answers", distinct=True)
    )
    rows = []
    for survey in surveys:
        title, lang = _title(survey)
        rows.append(
            {
                "survey": survey,
                "title": title,
                "title_lang": lang,
                "languages": survey.current_version.content["languages"],
            }
        )
    return render(request, "surveys/editor/list.html", {"rows": rows})


@require_http_methods(["GET", "POST"])
@researcher_required
def survey_new(request: HttpRequest) -> HttpResponse:
    form = ef.SurveyCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            survey = survey_create(
                dataset=data["dataset"],
                slug=data["slug"],
                languages=data["language_codes"],
                created_by=request.user,
            )
        except KasautiError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request,
                f"Survey {survey.slug!r} created as a draft. Fill in its texts, then open it.",
            )
            return redirect("surveys:survey", slug=survey.slug)
    status = 400 if request.method == "POST" else 200
    return render(request, "surveys/editor/new.html", {"form": form}, status=status)


def _gap_groups(problems: list[str], survey: Survey) -> list[dict]:
    """The gaps grouped by the editor page that fixes them, each with its link."""
    grouped: dict[str, list[str]] = defaultdict(list)
    for problem in problems:
        grouped[ef.gap_page(problem)].append(problem)
    groups = []
    for page, items in grouped.items():
        if page.startswith("strings:"):
            lang = page.split(":", 1)[1]
            title = f"Texts in {_language_name(lang)} ({lang})"
            url = reverse("surveys:survey-strings", args=[survey.slug, lang])
        elif page == "categories":
            title, url = (
                "Categories and groups",
                reverse("surveys:survey-questions", args=[survey.slug]),
            )
        elif page == "demographics":
            title = "Demographic questions"
            url = reverse("surveys:survey-demographics", args=[survey.slug])
        else:
            title, url = "Questions", reverse("surveys:survey-questions", args=[survey.slug])
        groups.append({"title": title, "url": url, "problems": items})
    return groups


def _survey_page(
    request: HttpRequest,
    survey: Survey,
    *,
    settings_form=None,
    languages_form=None,
    inclusion_form=None,
    open_refused: list[str] | None = None,
    refused_heading: str = "The survey was not opened: everything below must be filled in first.",
    status: int = 200,
) -> HttpResponse:
    content = survey.current_version.content
    versions = list(
        SurveyVersion.objects.filter(survey=survey)
        .select_related("created_by")
        .annotate(answer_count=Count("answers"))
        .order_by("-number")
    )
    answer_count = sum(v.answer_count for v in versions)
    title, title_lang = _title(survey)
    dataset = survey.dataset
    rule = inclusion_rule_get(dataset.inclusion_rule)
    problems = content_problems(content)
    return render(
        request,
        "surveys/editor/detail.html",
        {
            "survey": survey,
            "title": title,
            "title_lang": title_lang,
            "languages": [(code, _language_name(code)) for code in content["languages"]],
            "answer_count": answer_count,
            "respondent_count": Respondent.objects.filter(survey=survey).count(),
            "pending_count": Answer.objects.filter(
                survey=survey, status=Answer.Status.PENDING
            ).count(),
            "versions": versions,
            "public_path": f"/s/{survey.slug}/",
            "public_url": request.build_absolute_uri(f"/s/{survey.slug}/"),
            "gap_groups": _gap_groups(problems, survey),
            "gap_count": len(problems),
            "open_refused": _gap_groups(open_refused, survey) if open_refused else None,
            "open_refused_count": len(open_refused or []),
            "refused_heading": refused_heading,
            "settings_form": settings_form
            or ef.SettingsForm(
                initial={
                    "opens_at": survey.opens_at,
                    "closes_at": survey.closes_at,
                    "response_cap": survey.response_cap,
                }
            ),
            "languages_form": languages_form
            or ef.LanguagesForm(initial={"languages": ", ".join(content["languages"])}),
            "inclusion_form": inclusion_form
            or DatasetInclusionForm(
                initial={
                    "rule": dataset.inclusion_rule,
                    "evidence_required": dataset.evidence_required,
                }
            ),
            "rule": rule,
            "can_delete": survey.status == Survey.Status.DRAFT and answer_count == 0,
        },
        status=status,
    )


@require_GET
@researcher_required
def survey_detail(request: HttpRequest, slug: str) -> HttpResponse:
    return _survey_page(request, _survey(slug))


@post_form("opens the survey's public link (refused while its questionnaire has gaps)")
@researcher_required
def survey_open_view(request: HttpRequest, slug: str) -> HttpResponse:
    survey = _survey(slug)
    try:
        survey = survey_open(survey=survey)
    except SurveyNotReady as exc:
        # The gaps are shown on the survey's page itself, grouped by where to fill them in.
        return _survey_page(request, _survey(slug), open_refused=exc.problems, status=409)
    messages.success(request, f"The survey is open: /s/{survey.slug}/ takes answers.")
    return redirect("surveys:survey", slug=slug)


@post_form("closes the survey's public link")
@researcher_required
def survey_close_view(request: HttpRequest, slug: str) -> HttpResponse:
    survey = survey_close(survey=_survey(slug))
    messages.success(request, f"The survey is closed: /s/{survey.slug}/ takes no more answers.")
    return redirect("surveys:survey", slug=slug)


@post_form("deletes a draft survey that has no answers")
@researcher_required
def survey_delete_view(request: HttpRequest, slug: str) -> HttpResponse:
    survey = _survey(slug)
    try:
        survey_delete(survey=survey)
    except KasautiError as exc:
        messages.error(request, str(exc))
        return redirect("surveys:survey", slug=slug)
    messages.success(request, f"Draft survey {slug!r} deleted.")
    return redirect("surveys:survey-list")


@post_form("saves the survey's opening and closing dates and its response cap")
@researcher_required
def survey_settings_view(request: HttpRequest, slug: str) -> HttpResponse:
    survey = _survey(slug)
    form = ef.SettingsForm(request.POST)
    if form.is_valid():
        try:
            survey_settings_update(survey=survey, **form.cleaned_data)
        except KasautiError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, "Settings saved.")
            return redirect("surveys:survey", slug=slug)
    return _survey_page(request, survey, settings_form=form, status=400)


@post_form("changes the survey's languages")
@researcher_required
def survey_languages_view(request: HttpRequest, slug: str) -> HttpResponse:
    survey = _survey(slug)
    form = ef.LanguagesForm(request.POST)
    if form.is_valid():
        try:
            version = survey_languages_set(
                survey=survey, languages=form.cleaned_data["languages"], saved_by=request.user
            )
        except SurveyNotReady as exc:
            form.add_error(None, "Not saved: the survey is open (close it first).")
            return _survey_page(
                request,
                survey,
                languages_form=form,
                open_refused=exc.problems,
                refused_heading=(
                    "The languages were not changed: the survey is open, and these would be "
                    "missing."
                ),
                status=409,
            )
        except KasautiError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, _saved_message(survey, version, "Languages saved"))
            return redirect("surveys:survey", slug=slug)
    return _survey_page(request, survey, languages_form=form, status=400)


@post_form("sets the inclusion rule of the survey's dataset")
@researcher_required
def survey_inclusion_view(request: HttpRequest, slug: str) -> HttpResponse:
    survey = _survey(slug)
    form = DatasetInclusionForm(request.POST)
    if form.is_valid():
        try:
            dataset_inclusion_set(
                dataset=survey.dataset,
                rule=form.cleaned_data["rule"],
                evidence_required=form.cleaned_data["evidence_required"],
            )
        except KasautiError as exc:
            form.add_error("rule", str(exc))
        else:
            messages.success(request, f"Inclusion rule of {survey.dataset.name} saved.")
            return redirect("surveys:survey", slug=slug)
    return _survey_page(request, survey, inclusion_form=form, status=400)


@require_GET
@researcher_required
def survey_version(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    survey = _survey(slug)
    version = get_object_or_404(
        SurveyVersion.objects.select_related("created_by"), survey=survey, number=number
    )
    content = version.content
    languages = content["languages"]
    return render(
        request,
        "surveys/editor/version.html",
        {
            "survey": survey,
            "version": version,
            "content": content,
            "languages": [(code, _language_name(code)) for code in languages],
            "strings": [
                (
                    key,
                    help,
                    [(lang, content["strings"].get(lang, {}).get(key, "")) for lang in languages],
                )
                for key, help in STRING_KEYS.items()
            ],
            "answer_count": Answer.objects.filter(version=version).count(),
            "is_current": version.pk == survey.current_version_id,
        },
    )


# --- the questionnaire's editors ----------------------------------------------------------


def _saved_message(survey: Survey, version: SurveyVersion, what: str) -> str:
    # The service made a new version when the one the survey had (read before saving) has
    # answers; it changed that one in place otherwise.
    if version.pk != survey.current_version_id:
        return (
            f"{what}: version {version.number} made. Version {version.number - 1} has answers "
            "and stays as they were given."
        )
    return f"{what} (version {version.number})."


def _save(request: HttpRequest, survey: Survey, content: dict, what: str):
    """Save through the service; returns None when saved, else the gaps that refused it."""
    try:
        version = survey_content_save(survey=survey, content=content, saved_by=request.user)
    except SurveyNotReady as exc:
        return exc.problems
    messages.success(request, _saved_message(survey, version, what))
    return None


def _editor_context(survey: Survey, **extra) -> dict:
    content = survey.current_version.content
    frozen = Answer.objects.filter(version=survey.current_version).exists()
    return {
        "survey": survey,
        "version": survey.current_version,
        "languages": [(code, _language_name(code)) for code in content["languages"]],
        "frozen": frozen,
        **extra,
    }


@require_http_methods(["GET", "POST"])
@researcher_required
def survey_strings(request: HttpRequest, slug: str, lang: str) -> HttpResponse:
    """One language's texts, each with what it is for and a reference text beside it (the
    same string in another of the survey's languages, or Kasauti's English default)."""
    survey = _survey(slug)
    content = copy.deepcopy(survey.current_version.content)
    if lang not in content["languages"]:
        raise Http404(f"the survey has no language {lang!r}")
    errors: dict[str, str] = {}
    refused = None
    texts = content["strings"].get(lang, {})
    if request.method == "POST":
        parsed = ef.strings_from_post(request.POST, language=lang)
        texts, errors = parsed.value, parsed.errors
        if not errors:
            content["strings"][lang] = texts
            refused = _save(request, survey, content, f"Texts in {_language_name(lang)} saved")
            if refused is None:
                return redirect("surveys:survey-strings", slug=slug, lang=lang)
    others = [code for code in content["languages"] if code != lang]
    saved = survey.current_version.content["strings"]
    # The reference beside each field: the language asked for, else the first other language
    # with any text yet, else Kasauti's English default.
    ref = request.GET.get("ref", "")
    if ref != "en" and ref not in others:
        ref = next((code for code in others if any((saved.get(code) or {}).values())), "en")
    reference = saved.get(ref, {}) if ref in others else DEFAULT_STRINGS["en"]
    rows = [
        {
            "key": key,
            "help": help,
            "value": texts.get(key, ""),
            "reference": reference.get(key, ""),
            "long": key in ef.LONG_STRINGS,
            "error": errors.get(key, ""),
        }
        for key, help in STRING_KEYS.items()
    ]
    empty = sum(1 for row in rows if not row["value"])
    return render(
        request,
        "surveys/editor/strings.html",
        _editor_context(
            survey,
            lang=lang,
            lang_name=_language_name(lang),
            rows=rows,
            empty=empty,
            errors=errors,
            refused=refused,
            ref=ref,
            ref_name=_language_name(ref),
            ref_choices=[(code, _language_name(code)) for code in others]
            + ([] if "en" in others or lang == "en" else [("en", "English (Kasauti default)")]),
            string_limit=ef.STRING_LIMIT,
        ),
        status=400 if errors or refused else 200,
    )


def _extra(request: HttpRequest) -> int:
    """How many blank rows to add at the end of each list (?extra=, 1 to 10)."""
    try:
        return min(max(int(request.GET.get("extra", "1")), 1), 10)
    except ValueError:
        return 1


def _labels(item: dict, languages: list[str]) -> list[tuple[str, str]]:
    """(language, label) for every survey language, blank where there is none yet."""
    return [(lang, (item.get("labels") or {}).get(lang, "")) for lang in languages]


def _rows(item: dict, languages: list[str], children_name: str, children: list[dict]) -> dict:
    """A category with its groups, or a question with its options, as the editor's form rows:
    labels per language, and "new" for the blank rows offered for adding."""
    return {
        "labels": _labels(item, languages),
        children_name: [
            {"key": child["key"], "labels": _labels(child, languages), "new": not child["key"]}
            for child in children
        ],
        "new": not item["key"],
    }


@require_http_methods(["GET", "POST"])
@researcher_required
def survey_questions(request: HttpRequest, slug: str) -> HttpResponse:
    """The answer shape, whether to ask for the experience, and the categories with their
    groups (labels in every survey language)."""
    survey = _survey(slug)
    content = copy.deepcopy(survey.current_version.content)
    languages = content["languages"]
    errors: dict[str, str] = {}
    refused = None
    if request.method == "POST":
        shape = ef.shape_from_post(request.POST)
        categories = ef.categories_from_post(request.POST, languages=languages)
        errors = {**shape.errors, **categories.errors}
        content.update(shape.value)
        content["categories"] = categories.value
        if not errors:
            refused = _save(request, survey, content, "Questions saved")
            if refused is None:
                return redirect("surveys:survey-questions", slug=slug)
    extra = _extra(request)
    blocks = []
    for category in [
        *content["categories"],
        *(
            {"key": "", "category": "", "labels": {}, "allow_other": True, "groups": []}
            for _ in range(extra)
        ),
    ]:
        groups = [
            *category.get("groups", []),
            *(
                {"key": "", "labels": {}}
                for _ in range(max(extra, 2 if not category["key"] else 1))
            ),
        ]
        blocks.append({**category, **_rows(category, languages, "groups", groups)})
    return render(
        request,
        "surveys/editor/questions.html",
        _editor_context(
            survey,
            content=content,
            blocks=blocks,
            shapes=list(ef.ANSWER_SHAPE_LABELS.items()),
            errors=errors,
            refused=refused,
            catalog_categories=Category.objects.order_by("name").values_list("name", flat=True),
            extra=extra,
        ),
        status=400 if errors or refused else 200,
    )


@require_http_methods(["GET", "POST"])
@researcher_required
def survey_demographics(request: HttpRequest, slug: str) -> HttpResponse:
    """The optional demographic questions (EsBBQ Appendix A.2 to start from), each with its
    options; every question also offers "prefer not to say"."""
    survey = _survey(slug)
    content = copy.deepcopy(survey.current_version.content)
    languages = content["languages"]
    errors: dict[str, str] = {}
    refused = None
    if request.method == "POST":
        parsed = ef.demographics_from_post(request.POST, languages=languages)
        errors = parsed.errors
        content["demographics"] = parsed.value
        if not errors:
            refused = _save(request, survey, content, "Demographic questions saved")
            if refused is None:
                return redirect("surveys:survey-demographics", slug=slug)
    extra = _extra(request)
    blocks = []
    for question in [
        *content["demographics"],
        *({"key": "", "labels": {}, "options": []} for _ in range(extra)),
    ]:
        options = [*question.get("options", []), *({"key": "", "labels": {}} for _ in range(extra))]
        blocks.append({"key": question["key"], **_rows(question, languages, "options", options)})
    prefer_not = [
        (lang, content["strings"].get(lang, {}).get("prefer_not_to_say", "")) for lang in languages
    ]
    return render(
        request,
        "surveys/editor/demographics.html",
        _editor_context(
            survey,
            blocks=blocks,
            errors=errors,
            refused=refused,
            prefer_not=prefer_not,
            extra=extra,
        ),
        status=400 if errors or refused else 200,
    )
