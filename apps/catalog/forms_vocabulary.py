"""Forms of the vocabulary editor (views_vocabulary.py). Values are checked by the services
(apps/catalog/services/vocabulary.py); the forms only carry them."""

from __future__ import annotations

from django import forms

from apps.core.text import nfc


class _NfcCharField(forms.CharField):
    def to_python(self, value):
        value = super().to_python(value)
        return nfc(value) if value else value


class VocabularyCreateForm(forms.Form):
    name = _NfcCharField(max_length=96, help_text="e.g. names-religion-gender, occupations-ses")
    language = forms.CharField(max_length=16, help_text="An ISO 639 code: hi, ta, es, ca, …")
    description = _NfcCharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    definite_forms = forms.BooleanField(
        required=False,
        label="Keep definite forms",
        help_text="For a language that puts an article before names (Catalan: el Josep, "
        "la Montserrat): kept in a parallel vocabulary <name>-def.",
    )


class VocabularyEditForm(forms.Form):
    text = _NfcCharField(
        required=False,
        strip=False,
        label="Entries",
        widget=forms.Textarea(attrs={"rows": 14, "spellcheck": "false"}),
    )
    description = _NfcCharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    definite_forms = forms.BooleanField(required=False, label="Keep definite forms")
    base_token = forms.CharField(widget=forms.HiddenInput)
    base_text = _NfcCharField(required=False, strip=False, widget=forms.HiddenInput)


class VocabularyRestoreForm(forms.Form):
    """A "Restore this list" button submits the editor's form to the revision's address: the
    token (and list) the page was loaded with, so a restore follows the conflict rule of a
    save. The typed text is posted too, and kept in the box if the restore is refused."""

    base_token = forms.CharField()
    base_text = _NfcCharField(required=False, strip=False)
    text = _NfcCharField(required=False, strip=False)
    description = _NfcCharField(required=False)


class UnknownExpressionForm(forms.Form):
    language = forms.CharField(max_length=16)
    text = _NfcCharField(max_length=200, label="Expression")
