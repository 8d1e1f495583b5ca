"""The form that starts a BBQ-style multiple-choice run from the browser."""

from __future__ import annotations

from django import forms

from apps.catalog.models import Dataset
from apps.releases.models import Release

from .kinds import BBQ_MC
from .models import InstructionLanguage, ModelEntry, ModelKind, PromptTemplate
from .services.models import DTYPES


class ReleaseChoice(forms.ModelChoiceField):
    def label_from_instance(self, obj: Release) -> str:
        return f"{obj.dataset.name} — release {obj.number} ({obj.counts.get('total', 0):,} items)"


class RunForm(forms.Form):
    release = ReleaseChoice(
        queryset=Release.objects.select_related("dataset").order_by("dataset__name", "-number")
    )
    model = forms.ModelChoiceField(
        queryset=ModelEntry.objects.filter(kind__in=BBQ_MC.model_kinds).order_by("name"),
        help_text="A causal language model directory or a completions endpoint.",
    )
    shots = forms.TypedChoiceField(
        choices=[(0, "Zero-shot"), (2, "Two-shot")], coerce=int, initial=0
    )
    instruction_language = forms.ChoiceField(
        choices=InstructionLanguage.choices, initial=InstructionLanguage.ENGLISH
    )
    prompt_template = forms.ModelChoiceField(
        queryset=PromptTemplate.objects.all(),
        required=False,
        empty_label="By instruction language (BharatBBQ Appendix C)",
        help_text="Leave empty to use the template for the instruction language and shots.",
    )


class ModelEntryForm(forms.Form):
    """Register a model (the rules are model_entry_create's: a local directory needs a path,
    an endpoint a URL)."""

    name = forms.CharField(max_length=100)
    kind = forms.ChoiceField(choices=ModelKind.choices, initial=ModelKind.CAUSAL_LM)
    path = forms.CharField(
        max_length=500,
        required=False,
        help_text="Local directory: absolute, or relative to KASAUTI_MODEL_ROOT.",
    )
    endpoint_url = forms.URLField(
        max_length=500,
        required=False,
        assume_scheme="http",  # endpoints are usually plain http on a private network
        help_text="OpenAI-compatible endpoint, e.g. http://gpu-host:8000/v1",
    )
    endpoint_model = forms.CharField(max_length=200, required=False)
    dtype = forms.ChoiceField(choices=[(d, d) for d in DTYPES], initial="float32")
    device = forms.CharField(max_length=20, initial="cpu", help_text="cpu, cuda or cuda:N")
    notes = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)


class PredictionImportForm(forms.Form):
    """Import a file of predictions made elsewhere (the rules are predictions_import's)."""

    file = forms.FileField(help_text="CSV or JSON Lines: one row per item with its id and answer.")
    dataset = forms.ModelChoiceField(queryset=Dataset.objects.order_by("name"))
    release = ReleaseChoice(
        queryset=Release.objects.select_related("dataset").order_by("dataset__name", "-number"),
        required=False,
        empty_label="The dataset's current instances",
        help_text="Match against a release's items (it must be a release of the dataset).",
    )
    model = forms.CharField(
        max_length=200, label="Model label", help_text="What the predictions are from."
    )
    id_column = forms.CharField(
        max_length=100,
        initial="example_id",
        help_text="Holds each item's source id (e.g. BBQ's example_id) or Kasauti example id.",
    )
    prediction_column = forms.CharField(
        max_length=100,
        initial="prediction",
        help_text="An option index or the option's text.",
    )
    index_base = forms.TypedChoiceField(
        choices=[(0, "0-based (0, 1, 2)"), (1, "1-based (1, 2, 3)")], coerce=int, initial=0
    )
    file_format = forms.ChoiceField(
        choices=[("", "From the file name"), ("csv", "CSV"), ("jsonl", "JSON Lines")],
        required=False,
        label="Format",
    )
