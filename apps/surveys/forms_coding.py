"""Forms of the coding queue: what a coder posts, checked before any service runs."""

from __future__ import annotations

import re

from django import forms

from apps.catalog.models import StereotypeConcept

from .models import Answer
from .services.coding import NewConcept

# A concept typed or picked in the chooser: "#123 statement", "#123" or "123".
CONCEPT_REF = re.compile(r"^\s*#?(\d+)\b")


def concept_ref(value: str) -> int | None:
    match = CONCEPT_REF.match(value or "")
    return int(match.group(1)) if match else None


class NewConceptForm(forms.Form):
    """A new concept, created in the survey's dataset while coding."""

    category = forms.CharField(max_length=100)
    subcategory = forms.CharField(max_length=100, required=False)
    target_groups = forms.CharField(
        max_length=1000, help_text="Comma-separated: the group(s) the stereotype targets."
    )
    attribute = forms.CharField(max_length=200, required=False)
    statement = forms.CharField(max_length=2000, widget=forms.Textarea(attrs={"rows": 2}))
    polarity = forms.ChoiceField(
        choices=StereotypeConcept.Polarity.choices, initial=StereotypeConcept.Polarity.NEGATIVE
    )

    def new_concept(self) -> NewConcept:
        data = self.cleaned_data
        return NewConcept(
            category=data["category"],
            subcategory=data["subcategory"],
            target_groups=[g.strip() for g in data["target_groups"].split(",") if g.strip()],
            attribute=data["attribute"],
            statement=data["statement"],
            polarity=data["polarity"],
        )


class InvalidForm(forms.Form):
    reason = forms.ChoiceField(choices=Answer.InvalidReason.choices)
    duplicate_of = forms.IntegerField(required=False, min_value=1)

    def clean(self):
        data = super().clean()
        if data.get("reason") == Answer.InvalidReason.DUPLICATE and not data.get("duplicate_of"):
            self.add_error("duplicate_of", "say which of the respondent's answers it repeats")
        return data


class BulkForm(forms.Form):
    ACTIONS = [("code", "Code into concept"), ("invalid", "Mark invalid")]

    action = forms.ChoiceField(choices=ACTIONS)
    answer = forms.TypedMultipleChoiceField(coerce=int, choices=[])
    concept = forms.CharField(required=False, max_length=2100)
    reason = forms.ChoiceField(
        choices=[(k, v) for k, v in Answer.InvalidReason.choices if k != "duplicate"],
        required=False,
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Any integer: the service checks that each answer is the survey's and names strays.
        self.fields["answer"].valid_value = lambda value: str(value).isdigit()

    def clean(self):
        data = super().clean()
        if data.get("action") == "code" and concept_ref(data.get("concept", "")) is None:
            self.add_error("concept", "choose the concept to code the selected answers into")
        if data.get("action") == "invalid" and not data.get("reason"):
            self.add_error("reason", "choose why the selected answers are invalid")
        return data


def form_errors(form: forms.Form) -> str:
    """A form's errors as one sentence, field by field."""
    parts = []
    for name, errors in form.errors.items():
        where = "" if name == "__all__" else f"{name.replace('_', ' ')}: "
        parts.append(where + "; ".join(str(e) for e in errors))
    return "; ".join(parts)
