"""Forms of the server-rendered pages."""

from __future__ import annotations

from django import forms

from .importers import INSTANCES, TEMPLATES, format_names
from .models import Category, ContextCondition, Dataset
from .page_selectors import InstanceFilters, category_choices, instance_languages


class InstanceFilterForm(forms.Form):
    """GET filters of the instances list; invalid values are ignored rather than reported,
    since they can only come from a hand-edited URL."""

    category = forms.ModelChoiceField(queryset=Category.objects.none(), required=False)
    language = forms.ChoiceField(required=False)
    context_condition = forms.ChoiceField(
        required=False, choices=[("", "Any context"), *ContextCondition.choices]
    )

    def __init__(self, *args, dataset: Dataset, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["category"].queryset = category_choices(dataset=dataset)
        self.fields["category"].empty_label = "Any category"
        languages = instance_languages(dataset=dataset)
        self.fields["language"].choices = [("", "Any language"), *languages]

    def filters(self) -> InstanceFilters:
        self.is_valid()  # cleaned_data keeps the valid fields even if another one is invalid
        data = self.cleaned_data
        return InstanceFilters(
            category=data.get("category"),
            language=data.get("language") or "",
            context_condition=data.get("context_condition") or "",
        )


class BenchmarkImportForm(forms.Form):
    """The Import page: what `import_benchmark` takes (the files come from request.FILES)."""

    format = forms.ChoiceField(
        choices=[
            ("Template sets", [(name, name) for name in format_names(kind=TEMPLATES)]),
            (
                "Published instance files",
                [(name, name) for name in format_names(kind=INSTANCES)],
            ),
        ]
    )
    dataset = forms.CharField(max_length=100)
    language = forms.CharField(
        max_length=16,
        initial="en",
        required=False,
        help_text="Language of the template texts (bbq, bharatbbq).",
    )
    category = forms.CharField(
        max_length=100,
        required=False,
        help_text="indicasa: the category when the file name does not give it.",
    )
    strict = forms.BooleanField(
        required=False,
        help_text="Reject the import if there is any finding (authoring pipelines).",
    )
    seed = forms.IntegerField(
        required=False,
        initial=0,
        min_value=0,
        help_text="bbq: seed of the name and word draws of BBQ's generator (recorded).",
    )
