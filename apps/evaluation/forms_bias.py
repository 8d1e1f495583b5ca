"""The form that starts a CrowS-Pairs, SEAT or IndiCASA run from the browser."""

from __future__ import annotations

from django import forms

from apps.catalog.models import Dataset

from .models import ModelEntry, ModelKind
from .registry import evaluation_kinds
from .services.indicasa import LOSSES


def kind_choices() -> list[tuple[str, str]]:
    """The registered kinds started from this form (those with a form label)."""
    return [(kind.name, kind.form_label) for kind in evaluation_kinds() if kind.form_label]


class BiasRunForm(forms.Form):
    kind = forms.ChoiceField(choices=kind_choices)
    dataset = forms.ModelChoiceField(queryset=Dataset.objects.order_by("name"))
    model = forms.ModelChoiceField(
        queryset=ModelEntry.objects.exclude(kind=ModelKind.ENDPOINT).order_by("name"),
        required=False,
        empty_label="— default encoder (all-MiniLM-L6-v2; SEAT and IndiCASA training) —",
    )
    encoder = forms.ModelChoiceField(
        queryset=ModelEntry.objects.filter(kind=ModelKind.SENTENCE_ENCODER).order_by("name"),
        required=False,
        empty_label="— all-MiniLM-L6-v2 —",
        help_text="Generation only: the encoder that classifies completions (a trained "
        "IndiCASA encoder is registered as indicasa-encoder-run-N).",
    )
    languages = forms.CharField(
        required=False, initial="en", help_text="Comma-separated, e.g. en, hi. Empty: all."
    )
    seed = forms.IntegerField(min_value=0, max_value=2_147_483_647, initial=0)
    loss = forms.ChoiceField(choices=[(name, name) for name in LOSSES], initial="ntb_xent")
    epochs = forms.IntegerField(min_value=1, max_value=100, initial=3)
    rounds = forms.IntegerField(min_value=1, max_value=50, initial=5)

    def clean_languages(self) -> list[str] | None:
        """The languages asked for; None: every language (the services' default)."""
        parts = [part.strip() for part in self.cleaned_data["languages"].split(",")]
        return [part for part in parts if part] or None
