"""Forms of the server-rendered pages."""

from __future__ import annotations

from django import forms

from .importers import INSTANCES, TEMPLATES, format_names
from .inclusion import inclusion_rules
from .models import Category, ContextCondition, Dataset, EvidenceReference
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
    adapted_from = forms.CharField(
        max_length=100,
        required=False,
        label="Adapted from",
        help_text="esbbq, cabbq: the dataset these templates adapt (e.g. a BBQ import).",
    )


class DatasetInclusionForm(forms.Form):
    """Which concepts a dataset keeps: a registered inclusion rule, and whether evidence is
    required (apps/catalog/inclusion.py)."""

    rule = forms.ChoiceField(label="Inclusion rule", choices=())
    evidence_required = forms.BooleanField(
        required=False,
        label="Evidence required",
        help_text="A concept also needs an evidence reference that is not rejected.",
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Read when the form is made: a rule registered after start-up is offered too.
        self.fields["rule"].choices = [(rule.name, rule.label) for rule in inclusion_rules()]


class EvidenceForm(forms.Form):
    """A typed evidence reference for a concept (evidence_add)."""

    kind = forms.ChoiceField(choices=EvidenceReference.Kind.choices)
    url = forms.URLField(
        label="URL",
        required=False,
        max_length=EvidenceReference._meta.get_field("url").max_length,
        assume_scheme="https",
    )
    quote = forms.CharField(
        label="Quoted passage",
        required=False,
        max_length=20_000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="The passage that attests the stereotype, as written.",
    )
    note = forms.CharField(
        required=False, max_length=5_000, widget=forms.Textarea(attrs={"rows": 2})
    )

    def clean(self) -> dict:
        data = super().clean()
        if not self.errors and not any(data.get(name) for name in ("url", "quote", "note")):
            raise forms.ValidationError("Give a URL, a quoted passage or a note.")
        return data


class ConceptFilterForm(forms.Form):
    """The concept list's filter: one dataset, the concepts judged by the default rule (no
    dataset), or all. Invalid values are ignored (they come from a hand-edited URL)."""

    dataset = forms.ChoiceField(required=False)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["dataset"].choices = [
            ("", "All datasets"),
            ("none", "No dataset (default rule)"),
            *(
                (str(pk), name)
                for pk, name in Dataset.objects.order_by("name").values_list("pk", "name")
            ),
        ]

    def dataset_filter(self) -> str:
        return self.cleaned_data.get("dataset", "") if self.is_valid() else ""
