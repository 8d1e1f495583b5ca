"""Forms of the adaptation board (views_board.py). Each action form names the source template
it acts on; the view checks that it belongs to the dataset's source."""

from __future__ import annotations

from django import forms

from apps.core.text import is_language_code, nfc

from .board import ADAPTED_CLASS_CHOICES
from .models import Category, Dataset


class _NfcCharField(forms.CharField):
    def to_python(self, value):
        value = super().to_python(value)
        return nfc(value) if value else value


class SourceForm(forms.Form):
    source = forms.ModelChoiceField(
        queryset=Dataset.objects.none(),
        label="Source benchmark",
        help_text="The benchmark this dataset adapts (e.g. BBQ); each of its templates is then "
        "adapted or removed with a reason.",
    )

    def __init__(self, *args, choices=None, **kwargs):
        super().__init__(*args, **kwargs)
        if choices is not None:
            self.fields["source"].queryset = choices


class _RowForm(forms.Form):
    """An action on one source template's row; `back` keeps the board's category, status
    filter and page to return to."""

    source_template = forms.IntegerField(widget=forms.HiddenInput)
    back = forms.CharField(required=False, widget=forms.HiddenInput)


class StartForm(_RowForm):
    transformation_type = forms.ChoiceField(choices=ADAPTED_CLASS_CHOICES, label="Class")
    language = forms.CharField(
        max_length=16,
        label="Target language",
        help_text="An ISO 639 code: hi, ta, es, ca, …",
    )
    category = forms.ModelChoiceField(
        queryset=Category.objects.order_by("name"),
        label="Target category",
        help_text="May differ from the source's: EsBBQ reclassifies templates (§3.2.3).",
    )
    reason = _NfcCharField(
        required=False,
        max_length=2000,
        label="Reason",
        help_text="Why this class: the groups changed, the entity replaced, …",
    )

    def clean_language(self) -> str:
        language = self.cleaned_data["language"].strip()
        if not is_language_code(language):
            raise forms.ValidationError(
                f"{language!r} is not a language code (two or three lowercase letters, e.g. hi)"
            )
        return language


class RemoveForm(_RowForm):
    reason = _NfcCharField(
        max_length=2000,
        label="Reason",
        help_text="Why the stereotype is not relevant here (no survey mention, no reference).",
        error_messages={"required": "Say why the template is removed."},
    )

    def clean_reason(self) -> str:
        reason = self.cleaned_data["reason"].strip()
        if not reason:
            raise forms.ValidationError("Say why the template is removed.")
        return reason


class RestoreForm(_RowForm):
    pass


class LinkForm(_RowForm):
    template = _NfcCharField(
        max_length=100,
        label="Template id",
        help_text="An existing template of this dataset (e.g. the proper-noun version).",
    )
