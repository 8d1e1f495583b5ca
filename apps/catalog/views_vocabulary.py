"""The vocabulary editor (docs/studio/vocabulary.md): the list of vocabularies and the
unknown-answer expressions per language, a vocabulary's page that edits its entries (value,
group label, definite form) as lines of text and lists its history (every saved list, each
restorable as a new revision), and the refusals: bad lines named, a save or a restore based on
a list that changed meanwhile refused with what changed."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from apps.accounts.decorators import researcher_required, role_required
from apps.accounts.roles import is_researcher
from apps.core.error_pages import post_form
from apps.core.errors import KasautiError

from .forms_vocabulary import (
    UnknownExpressionForm,
    VocabularyCreateForm,
    VocabularyEditForm,
    VocabularyRestoreForm,
)
from .models import UnknownExpression, Vocabulary, VocabularyRevision
from .services.vocabulary import (
    VocabularyEditConflict,
    VocabularyInputError,
    unknown_expression_create,
    unknown_expression_delete,
    vocabulary_create,
    vocabulary_entries_replace,
    vocabulary_revision_restore,
)
from .vocabularies import (
    COLUMNS,
    revision_lines,
    unknown_expressions_by_language,
    vocabulary_definite_base,
    vocabulary_definite_partner,
    vocabulary_history,
    vocabulary_lines,
    vocabulary_lines_diff,
    vocabulary_rows,
    vocabulary_text,
    vocabulary_text_parse,
    vocabulary_token,
    vocabulary_uses,
)


def _form_error(form, exc: KasautiError) -> None:
    """A service's "field: message" goes beside that field, anything else above the form."""
    field, _, message = str(exc).partition(": ")
    if message and field in form.fields:
        form.add_error(field, message)
    else:
        form.add_error(None, str(exc))


def _list(request: HttpRequest, *, status: int = 200, **extra) -> HttpResponse:
    unknowns = unknown_expressions_by_language()
    error = extra.get("unknown_error")
    if error is not None:  # shown in its language's box, or above them all
        error["on_page"] = any(u.language == error["language"] for u in unknowns)
    context = {
        "rows": vocabulary_rows(),
        "unknowns": unknowns,
        "can_edit": is_researcher(request.user),
        "create_form": VocabularyCreateForm(),
        "unknown_error": None,
        **extra,
    }
    return render(request, "catalog/vocabulary/list.html", context, status=status)


@require_GET
@role_required
def vocabulary_list(request: HttpRequest) -> HttpResponse:
    return _list(request)


@post_form("creates a vocabulary")
@researcher_required
def vocabulary_create_view(request: HttpRequest) -> HttpResponse:
    form = VocabularyCreateForm(request.POST)
    if form.is_valid():
        try:
            vocabulary = vocabulary_create(**form.cleaned_data)
        except KasautiError as exc:
            _form_error(form, exc)
        else:
            messages.success(
                request,
                f"Vocabulary {vocabulary.name} ({vocabulary.language}) created: add its entries.",
            )
            return redirect("web:vocabulary", pk=vocabulary.pk)
    return _list(request, create_form=form, status=400)


def _detail(
    request: HttpRequest,
    vocabulary: Vocabulary,
    *,
    form: VocabularyEditForm | None = None,
    problems: list[tuple[int, str]] | None = None,
    changes=None,
    conflict: str = "",
    restore: int | None = None,
    status: int = 200,
) -> HttpResponse:
    """The page; `restore` names the revision a refused restore tried to bring back."""
    partner = vocabulary_definite_partner(vocabulary=vocabulary)
    lines = vocabulary_lines(vocabulary=vocabulary)
    if form is None:
        text = vocabulary_text(lines=lines, definite=partner is not None)
        form = VocabularyEditForm(
            initial={
                "text": text,
                "description": vocabulary.description,
                "definite_forms": partner is not None,
                "base_token": vocabulary_token(vocabulary=vocabulary, lines=lines),
                "base_text": text,
            }
        )
    return render(
        request,
        "catalog/vocabulary/detail.html",
        {
            "vocabulary": vocabulary,
            "partner": partner,
            "lines": lines,
            "groups": sorted({line.group for line in lines}),
            "uses": vocabulary_uses(vocabulary=vocabulary),
            "form": form,
            "problems": problems or [],
            "changes": changes,
            "conflict": conflict,
            "restore": restore,
            "history": vocabulary_history(vocabulary=vocabulary, lines=lines),
            "columns": " | ".join(COLUMNS if partner else COLUMNS[:2]),
            # Every line shows: the box grows with the list (and with what was typed).
            "text_rows": max(6, len((form["text"].value() or "").splitlines()) + 3),
            "can_edit": is_researcher(request.user),
        },
        status=status,
    )


@require_http_methods(["GET", "POST"])
@role_required
def vocabulary_detail(request: HttpRequest, pk: int) -> HttpResponse:
    vocabulary = get_object_or_404(Vocabulary, pk=pk)
    base = vocabulary_definite_base(vocabulary=vocabulary)
    if base is not None:  # a <name>-def vocabulary is edited with <name>
        return redirect("web:vocabulary", pk=base.pk)
    if request.method == "GET":
        return _detail(request, vocabulary)
    if not is_researcher(request.user):
        raise PermissionDenied("Only researchers and admins can edit vocabularies.")
    form = VocabularyEditForm(request.POST)
    if not form.is_valid():
        return _detail(request, vocabulary, form=form, status=400)
    data = form.cleaned_data
    lines, problems = vocabulary_text_parse(text=data["text"])
    if problems:
        return _detail(request, vocabulary, form=form, problems=problems, status=400)
    before = [line.key() for line in vocabulary_lines(vocabulary=vocabulary)]
    try:
        vocabulary_entries_replace(
            vocabulary=vocabulary,
            lines=lines,
            base_token=data["base_token"],
            description=data["description"],
            definite_forms=data["definite_forms"],
            saved_by=request.user,
        )
    except VocabularyInputError as exc:
        return _detail(request, vocabulary, form=form, problems=exc.problems, status=400)
    except VocabularyEditConflict as exc:
        return _conflict(request, vocabulary, data, exc)
    except KasautiError as exc:
        _form_error(form, exc)
        return _detail(request, vocabulary, form=form, status=400)
    if [line.key() for line in vocabulary_lines(vocabulary=vocabulary)] == before:
        messages.info(
            request, f"{vocabulary.name} saved: no entry changed, so no revision was recorded."
        )
    else:
        messages.success(
            request,
            f"{vocabulary.name} saved: {len(lines)} entr{'y' if len(lines) == 1 else 'ies'}. "
            "Existing template versions keep the values they copied.",
        )
    return redirect("web:vocabulary", pk=vocabulary.pk)


def _conflict(
    request: HttpRequest,
    vocabulary: Vocabulary,
    data: dict,
    exc: VocabularyEditConflict,
    *,
    restore: int | None = None,
) -> HttpResponse:
    """409: what changed since the page was loaded (its `base_text`), the typed text kept, and
    the next save or restore based on the list as it now is: the editor has seen the change."""
    before, _ = vocabulary_text_parse(text=data.get("base_text") or "")
    partner = vocabulary_definite_partner(vocabulary=vocabulary)
    retry = VocabularyEditForm(
        initial={
            "text": data.get("text") or "",
            "description": data.get("description") or "",
            "definite_forms": data.get("definite_forms", partner is not None),
            "base_token": exc.token,
            "base_text": vocabulary_text(lines=exc.current, definite=partner is not None),
        }
    )
    return _detail(
        request,
        vocabulary,
        form=retry,
        changes=vocabulary_lines_diff(before=before, after=exc.current),
        conflict=str(exc),
        restore=restore,
        status=409,
    )


@post_form("restores an earlier list of a vocabulary, as a new revision")
@researcher_required
def vocabulary_restore(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    vocabulary = get_object_or_404(Vocabulary, pk=pk)
    revision = get_object_or_404(VocabularyRevision, vocabulary=vocabulary, number=number)
    form = VocabularyRestoreForm(request.POST)
    if not form.is_valid():
        messages.error(
            request,
            "The restore did not say which list the page showed (reload the page): "
            "nothing was restored.",
        )
        return redirect("web:vocabulary", pk=vocabulary.pk)
    data = form.cleaned_data
    try:
        written = vocabulary_revision_restore(
            revision=revision, base_token=data["base_token"], saved_by=request.user
        )
    except VocabularyEditConflict as exc:
        return _conflict(request, vocabulary, data, exc, restore=number)
    except VocabularyInputError as exc:
        # The list no longer fits the vocabulary (it keeps definite forms now, say): it goes
        # in the box, to be completed and saved as an edit.
        partner = vocabulary_definite_partner(vocabulary=vocabulary)
        lines = vocabulary_lines(vocabulary=vocabulary)
        current = vocabulary_text(lines=lines, definite=partner is not None)
        edit = VocabularyEditForm(
            initial={
                "text": vocabulary_text(
                    lines=revision_lines(revision.entries), definite=partner is not None
                ),
                "description": vocabulary.description,
                "definite_forms": partner is not None,
                "base_token": vocabulary_token(vocabulary=vocabulary, lines=lines),
                "base_text": current,
            }
        )
        return _detail(
            request, vocabulary, form=edit, problems=exc.problems, restore=number, status=400
        )
    except KasautiError as exc:
        messages.error(request, f"Revision {number} was not restored: {exc}")
        return redirect("web:vocabulary", pk=vocabulary.pk)
    if written is None:
        messages.info(request, f"Revision {number} is the current list: nothing to restore.")
    else:
        count = len(revision.entries)
        messages.success(
            request,
            f"{vocabulary.name}: revision {number} restored as revision {written.number} "
            f"({count} entr{'y' if count == 1 else 'ies'}). Existing template versions keep "
            "the values they copied.",
        )
    return redirect(reverse("web:vocabulary", args=[vocabulary.pk]) + "#history")


@post_form("adds an unknown-answer expression for a language")
@researcher_required
def unknown_expression_add(request: HttpRequest) -> HttpResponse:
    form = UnknownExpressionForm(request.POST)
    if form.is_valid():
        try:
            expression = unknown_expression_create(**form.cleaned_data)
        except KasautiError as exc:
            _form_error(form, exc)
        else:
            messages.success(
                request, f"Unknown answer {expression.text!r} added for {expression.language}."
            )
            return redirect(reverse("web:vocabularies") + f"#unknown-{expression.language}")
    language = request.POST.get("language", "")
    return _list(request, unknown_error={"language": language, "form": form}, status=400)


@post_form("removes an unknown-answer expression")
@researcher_required
def unknown_expression_remove(request: HttpRequest, pk: int) -> HttpResponse:
    expression = get_object_or_404(UnknownExpression, pk=pk)
    unknown_expression_delete(expression=expression)
    messages.success(
        request, f"Unknown answer {expression.text!r} removed from {expression.language}."
    )
    return redirect(reverse("web:vocabularies") + f"#unknown-{expression.language}")
