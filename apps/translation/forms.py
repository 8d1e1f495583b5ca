"""The form that starts a translation job."""

from __future__ import annotations

from django import forms

from apps.catalog.models import LANGUAGE_NAMES, Dataset

from .models import DEFAULT_THRESHOLD, LANGUAGE_TAGS, TranslationSource


class TranslationJobForm(forms.Form):
    dataset = forms.ModelChoiceField(queryset=Dataset.objects.all())
    languages = forms.MultipleChoiceField(
        choices=[(code, f"{LANGUAGE_NAMES.get(code, code)} ({code})") for code in LANGUAGE_TAGS],
        widget=forms.CheckboxSelectMultiple,
        help_text="Target languages.",
    )
    threshold = forms.FloatField(
        min_value=0.0,
        max_value=1.0,
        initial=DEFAULT_THRESHOLD,
        help_text="Strings whose back-translation similarity is below this go to correction.",
    )
    source = forms.ChoiceField(
        choices=TranslationSource.choices,
        initial=TranslationSource.INSTANCES,
        widget=forms.RadioSelect,
        label="What to translate",
    )
