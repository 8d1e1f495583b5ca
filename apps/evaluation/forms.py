"""The form that starts a BBQ-style multiple-choice run from the browser."""

from __future__ import annotations

from django import forms

from apps.releases.models import Release

from .models import InstructionLanguage, ModelEntry, ModelKind, PromptTemplate


class ReleaseChoice(forms.ModelChoiceField):
    def label_from_instance(self, obj: Release) -> str:
        return f"{obj.dataset.name} — release {obj.number} ({obj.counts.get('total', 0):,} items)"


class RunForm(forms.Form):
    release = ReleaseChoice(
        queryset=Release.objects.select_related("dataset").order_by("dataset__name", "-number")
    )
    model = forms.ModelChoiceField(
        queryset=ModelEntry.objects.filter(
            kind__in=(ModelKind.CAUSAL_LM, ModelKind.ENDPOINT)
        ).order_by("name"),
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
