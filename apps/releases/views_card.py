"""The dataset card's own texts and licence, edited on the dataset (issue 22): the form at
/datasets/<id>/card/, researchers only. What it saves goes into the card of the next release;
a release's card is frozen with the release (docs/releases/card.md)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from apps.accounts.decorators import researcher_required
from apps.catalog.models import Dataset
from apps.catalog.services.dataset_card import (
    CARD_FIELDS,
    HUB_LICENSES,
    PRETTY_NAME_MAX,
    dataset_card_update,
)
from apps.core.errors import KasautiError

from .selectors import release_latest

_TEXT = {"rows": 5}


class DatasetCardForm(forms.Form):
    """Carries the values; the service (dataset_card_update) checks and normalises them."""

    license = forms.ChoiceField(
        label="Licence",
        choices=[(key, f"{key} — {value.label}") for key, value in HUB_LICENSES.items()],
        help_text="A Hugging Face Hub licence id: the card's front matter says it, and "
        "CITATION.cff too when it has an SPDX id.",
    )
    pretty_name = forms.CharField(
        label="Pretty name",
        required=False,
        max_length=PRETTY_NAME_MAX,
        help_text="The card's title; the dataset's name when empty.",
    )
    card_authors = forms.CharField(
        label="Authors",
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="One per line: “Family, Given” for a person, or a team's name "
        "(CITATION.cff's authors).",
    )
    card_uses = forms.CharField(
        label="Uses",
        required=False,
        widget=forms.Textarea(attrs=_TEXT),
        help_text="What the dataset is meant for, and what it is not (Markdown).",
    )
    card_limitations = forms.CharField(
        label="Limitations",
        required=False,
        widget=forms.Textarea(attrs=_TEXT),
        help_text="Known gaps and biases of the dataset itself (Markdown).",
    )
    card_ethics = forms.CharField(
        label="Ethical considerations",
        required=False,
        widget=forms.Textarea(attrs=_TEXT),
        help_text="Risks of harm, consent, the people the stereotypes concern (Markdown).",
    )
    card_citation = forms.CharField(
        label="Citation",
        required=False,
        widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false", "class": "mono"}),
        help_text="How to cite the dataset: a BibTeX entry (shown as a code block) or text.",
    )


def _form_error(form: forms.Form, exc: KasautiError) -> None:
    """A service's "field: message" goes beside that field, anything else above the form."""
    field, _, message = str(exc).partition(": ")
    if message and field in form.fields:
        form.add_error(field, message)
    else:
        form.add_error(None, str(exc))


@require_http_methods(["GET", "POST"])
@researcher_required
def dataset_card_edit(request: HttpRequest, pk: int) -> HttpResponse:
    dataset = get_object_or_404(Dataset, pk=pk)
    status = 200
    if request.method == "POST":
        form = DatasetCardForm(request.POST)
        if form.is_valid():
            try:
                changed = dataset_card_update(dataset=dataset, **form.cleaned_data)
            except KasautiError as exc:
                _form_error(form, exc)
            else:
                if changed:
                    labels = ", ".join(form.fields[name].label.lower() for name in changed)
                    messages.success(
                        request,
                        f"Saved ({labels}). The next release's card carries the change; "
                        "releases already made keep their card.",
                    )
                else:
                    messages.info(request, "Nothing changed.")
                return redirect("releases:card-edit", pk=dataset.pk)
        status = 400
    else:
        form = DatasetCardForm(initial={name: getattr(dataset, name) for name in CARD_FIELDS})
    return render(
        request,
        "releases/dataset_card_form.html",
        {
            "dataset": dataset,
            "form": form,
            "latest": release_latest(dataset_id=dataset.pk),
            "license_unknown": dataset.license in ("", "unknown"),
        },
        status=status,
    )
