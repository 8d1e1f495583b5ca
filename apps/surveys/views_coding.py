"""The coding queue (researchers): answers waiting to be coded into concepts, with their
suggestions, and the concepts with their derived counts and live inclusion verdicts.

Every decision is a POST to its own URL that calls one service and redirects back to the queue
with the same filters (post/redirect/get: a reload never repeats a decision). Each answer's form
carries the id of the last coding event the coder saw, so a decision made meanwhile by someone
else is refused with a message rather than overwritten."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_POST

from apps.accounts.decorators import researcher_required
from apps.catalog.models import StereotypeConcept
from apps.core.errors import KasautiError
from apps.core.text import nfc

from .forms_coding import BulkForm, InvalidForm, NewConceptForm, concept_ref, form_errors
from .models import Answer, CodingEvent, Survey
from .questionnaire import Questionnaire
from .selectors import (
    CodingFilters,
    coding_category_names,
    coding_concept_choices,
    coding_concepts,
    coding_cursor_decode,
    coding_page,
    coding_suggestions_job,
)
from .services.coding import (
    UNCHECKED,
    answer_code,
    answer_mark_invalid,
    answer_reopen,
    answer_uncode,
    answers_bulk_code,
    answers_bulk_mark_invalid,
)
from .services.suggestions import suggestions_compute_async

SEARCH_MAX = 200


def _survey(slug: str) -> Survey:
    return get_object_or_404(Survey.objects.select_related("dataset", "current_version"), slug=slug)


def _filters(request: HttpRequest) -> CodingFilters:
    get = request.GET
    status = get.get("status", Answer.Status.PENDING)
    return CodingFilters(
        status=status if status in (*Answer.Status.values, "all") else Answer.Status.PENDING,
        category=nfc(get.get("category", ""))[:80],
        language=nfc(get.get("language", ""))[:16],
        q=nfc(get.get("q", "")).strip()[:SEARCH_MAX],
        after=coding_cursor_decode(get.get("after", "")),
    )


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _concept_options(survey: Survey) -> str:
    """The chooser's <option>s, every concept an answer may be coded into, escaped."""
    return mark_safe(  # noqa: S308 - every value is escaped here
        "".join(
            f'<option value="#{pk} {escape(_short(statement))}">'
            for pk, statement in coding_concept_choices(survey=survey)
        )
    )


@researcher_required
@require_GET
def coding_queue(request: HttpRequest, slug: str) -> HttpResponse:
    survey = _survey(slug)
    filters = _filters(request)
    page = coding_page(survey=survey, filters=filters)
    concept_q = nfc(request.GET.get("cq", "")).strip()[:SEARCH_MAX]
    concepts, concept_total = coding_concepts(survey=survey, q=concept_q)
    current = Questionnaire(survey.current_version.content) if survey.current_version else None
    query = filters.query()
    context = {
        "survey": survey,
        "title": current.text("title") if current else survey.slug,
        "languages": current.languages if current else [],
        "categories": [(c["key"], current.label(c)) for c in current.categories] if current else [],
        "filters": filters,
        "statuses": [(value, label) for value, label in Answer.Status.choices] + [("all", "All")],
        "page": page,
        "rows": page.rows,
        "query": urlencode(query),
        "next_query": urlencode({**query, "after": page.next_cursor}) if page.next_cursor else "",
        "back": urlencode({**query, **({"cq": concept_q} if concept_q else {})}),
        "concepts": concepts,
        "concept_total": concept_total,
        "concept_q": concept_q,
        # Built here, not in a template loop: a thousand options are most of the page's markup.
        "concept_options": _concept_options(survey),
        "base_url": reverse("surveys:coding", args=[survey.slug]),
        "category_names": coding_category_names(),
        "polarities": StereotypeConcept.Polarity.choices,
        "reasons": Answer.InvalidReason.choices,
        "bulk_reasons": [(k, v) for k, v in Answer.InvalidReason.choices if k != "duplicate"],
        "job": coding_suggestions_job(survey=survey),
        "actions": dict(CodingEvent.Action.choices),
    }
    return render(request, "surveys/coding/queue.html", context)


def _back(request: HttpRequest, survey: Survey) -> HttpResponseRedirect:
    """Back to the queue with the coder's filters. `back` is only ever used as the query
    string of our own URL, so it cannot send anyone elsewhere."""
    url = reverse("surveys:coding", args=[survey.slug])
    back = request.POST.get("back", "").replace("#", "").replace("\n", "").replace("\r", "")
    return HttpResponseRedirect(f"{url}?{back}" if back else url)


def _seen(request: HttpRequest):
    """The last event id the coder saw ("" = none yet). The queue's forms always send it; a
    post without it (a script) is not checked."""
    if "seen" not in request.POST:
        return UNCHECKED
    value = request.POST["seen"]
    if value == "":
        return None
    if not value.isdigit():
        raise KasautiError(f"seen: {value!r} is not an event id")
    return int(value)


def _decide(request: HttpRequest, survey: Survey, call, done: str) -> HttpResponseRedirect:
    try:
        call()
    except KasautiError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, done)
    return _back(request, survey)


@researcher_required
@require_POST
def coding_code(request: HttpRequest, slug: str, answer_id: int) -> HttpResponse:
    survey = _survey(slug)
    if request.POST.get("new"):
        form = NewConceptForm(request.POST)
        if not form.is_valid():
            messages.error(request, f"answer #{answer_id}: new concept: {form_errors(form)}")
            return _back(request, survey)
        kwargs = {"new_concepts": [form.new_concept()]}
        done = f"Answer #{answer_id} coded into a new concept."
    else:
        concept_id = concept_ref(request.POST.get("concept", ""))
        if concept_id is None:
            messages.error(
                request,
                f"answer #{answer_id}: choose a concept from the list (its number, e.g. #12)",
            )
            return _back(request, survey)
        kwargs = {"concept_ids": [concept_id]}
        done = f"Answer #{answer_id} coded into concept #{concept_id}."

    def call():
        answer_code(
            answer=answer_id, survey=survey, by=request.user, seen_event=_seen(request), **kwargs
        )

    return _decide(request, survey, call, done)


@researcher_required
@require_POST
def coding_uncode(request: HttpRequest, slug: str, answer_id: int) -> HttpResponse:
    survey = _survey(slug)
    concept_id = concept_ref(request.POST.get("concept", ""))
    if concept_id is None:
        messages.error(request, f"answer #{answer_id}: which concept link to remove?")
        return _back(request, survey)
    return _decide(
        request,
        survey,
        lambda: answer_uncode(
            answer=answer_id,
            survey=survey,
            concept_id=concept_id,
            by=request.user,
            seen_event=_seen(request),
        ),
        f"Answer #{answer_id} is no longer coded into concept #{concept_id}.",
    )


@researcher_required
@require_POST
def coding_invalid(request: HttpRequest, slug: str, answer_id: int) -> HttpResponse:
    survey = _survey(slug)
    form = InvalidForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"answer #{answer_id}: {form_errors(form)}")
        return _back(request, survey)
    reason = form.cleaned_data["reason"]
    return _decide(
        request,
        survey,
        lambda: answer_mark_invalid(
            answer=answer_id,
            survey=survey,
            reason=reason,
            duplicate_of=form.cleaned_data.get("duplicate_of"),
            by=request.user,
            seen_event=_seen(request),
        ),
        f"Answer #{answer_id} marked invalid ({Answer.InvalidReason(reason).label.lower()}).",
    )


@researcher_required
@require_POST
def coding_reopen(request: HttpRequest, slug: str, answer_id: int) -> HttpResponse:
    survey = _survey(slug)
    return _decide(
        request,
        survey,
        lambda: answer_reopen(
            answer=answer_id, survey=survey, by=request.user, seen_event=_seen(request)
        ),
        f"Answer #{answer_id} is back in the queue.",
    )


@researcher_required
@require_POST
def coding_bulk(request: HttpRequest, slug: str) -> HttpResponse:
    survey = _survey(slug)
    form = BulkForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"bulk action: {form_errors(form)}")
        return _back(request, survey)
    data = form.cleaned_data
    ids = data["answer"]
    try:
        if data["action"] == "code":
            outcome = answers_bulk_code(
                survey=survey,
                answer_ids=ids,
                concept_id=concept_ref(data["concept"]),
                by=request.user,
            )
            done = (
                f"{outcome.changed} answer(s) coded into concept #{outcome.concept_ids[0]}"
                f"{f'; {outcome.unchanged} already were' if outcome.unchanged else ''}."
            )
        else:
            outcome = answers_bulk_mark_invalid(
                survey=survey, answer_ids=ids, reason=data["reason"], by=request.user
            )
            done = (
                f"{outcome.changed} answer(s) marked invalid"
                f"{f'; {outcome.unchanged} already were' if outcome.unchanged else ''}."
            )
    except KasautiError as exc:
        messages.error(request, f"bulk action: {exc}")
    else:
        messages.success(request, done)
    return _back(request, survey)


@researcher_required
@require_POST
def coding_suggest(request: HttpRequest, slug: str) -> HttpResponse:
    """Queue the suggestion job (or point at the one already queued or running)."""
    survey = _survey(slug)
    job = suggestions_compute_async(survey=survey, requested_by=request.user)
    messages.success(
        request,
        f"Suggestions are being computed: job #{job.pk} (progress below, or /jobs/{job.pk}/).",
    )
    return _back(request, survey)
