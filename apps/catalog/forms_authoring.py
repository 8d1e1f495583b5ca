"""The template authoring form (docs/studio/authoring.md): every field the benchmark formats
carry, turned into a TemplateVersion content dict (`content()`), the one definition the save
and the live preview share.

Placeholder lists are written one value a line, with an optional group label after a `|`
(`Sharma | Brahmin`); a line without a label stands for its own group. A list may instead be a
vocabulary reference (a vocabulary and some of its groups), resolved by the service."""

from __future__ import annotations

import re
from typing import Any

from django import forms

from apps.core.text import LANGUAGE_CODE_RE, is_language_code

from .importers.values import parse_group_list
from .instantiation import NAME_AXES
from .models import (
    Category,
    Dataset,
    NounForm,
    Pairing,
    ReviewStatus,
    StereotypeConcept,
    Template,
    TemplateVersion,
    TransformationType,
    Vocabulary,
)

VALUES, VOCABULARY = "values", "vocabulary"
FORMS = ("def", "indef")  # the -def / -indef forms of a list, aligned line by line
_WORD_KEY = re.compile(r"^ph-(WORD\d+)-")
_LABEL_SEPARATOR = "|"
# A new template's identity and the edit's base version: not content, checked on save only.
IDENTITY_FIELDS = (
    "__all__",
    "dataset",
    "external_id",
    "category",
    "new_category",
    "question_index",
    "variant",
    "base_version",
)

TEXTS = {
    "ambiguous_context": "Ambiguous context",
    "disambiguating_context": "Disambiguating context",
    "question_negative": "Negative question",
    "question_non_negative": "Non-negative question",
    "answer_negative": "Answer to the negative question",
    "answer_non_negative": "Answer to the non-negative question",
}


def _lines(text: str) -> list[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def values_text(values: list[str], groups: list[str] | None) -> str:
    """A list as the form writes it: one value a line, `value | group` where the group label
    is not the value itself."""
    groups = groups or []
    lines = []
    for i, value in enumerate(values):
        group = groups[i] if i < len(groups) else ""
        lines.append(f"{value} {_LABEL_SEPARATOR} {group}" if group and group != value else value)
    return "\n".join(lines)


class PlaceholderListForm(forms.Form):
    """One placeholder list (NAME1, NAME2, WORDn) with its -def / -indef forms."""

    mode = forms.ChoiceField(
        choices=[(VALUES, "Values typed here"), (VOCABULARY, "From a vocabulary")],
        initial=VALUES,
        widget=forms.RadioSelect,
        label="Values come from",
        required=False,  # not posted: typed values
    )
    values = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        label="Values, one a line (optional group label after |)",
    )
    definite = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        label="Definite forms (-def), one a line, aligned with the values",
    )
    indefinite = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        label="Indefinite forms (-indef), one a line, aligned with the values",
    )
    vocabulary = forms.ModelChoiceField(
        queryset=Vocabulary.objects.order_by("name", "language"), required=False
    )
    groups = forms.CharField(
        required=False, label="Vocabulary groups (comma-separated; empty: all)", max_length=1000
    )

    def __init__(self, *args: Any, name: str, language: str = "en", **kwargs: Any) -> None:
        self.name = name
        self.findings: list[dict[str, str]] = []
        super().__init__(*args, prefix=f"ph-{name}", **kwargs)
        self.describe(language)

    def describe(self, language: str) -> None:
        """Each control says where its findings are shown (aria-describedby), and the texts
        carry the template's language so that the served Noto face draws them."""
        for name, field in self.fields.items():
            field.widget.attrs["aria-describedby"] = f"findings-{self.name}"
            if name in ("values", "definite", "indefinite"):
                field.widget.attrs["lang"] = language
                field.widget.attrs["data-lang-follows"] = "1"

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("mode") == VOCABULARY and not data.get("vocabulary"):
            self.add_error("vocabulary", "choose a vocabulary, or type the values")
        return data

    def entries(self) -> dict[str, Any]:
        """{"placeholders": {...}, "placeholder_groups": {...}} of this list (empty: unused)."""
        data = self.cleaned_data
        placeholders: dict[str, Any] = {}
        groups: dict[str, list[str]] = {}
        if data.get("mode") == VOCABULARY and data.get("vocabulary"):
            vocabulary = data["vocabulary"]
            placeholders[self.name] = {
                "vocabulary": vocabulary.name,
                "language": vocabulary.language,
                "groups": parse_group_list(data.get("groups") or ""),
            }
        else:
            values, labels = [], []
            for line in _lines(data.get("values", "")):
                value, _, label = line.partition(_LABEL_SEPARATOR)
                values.append(value.strip())
                labels.append(label.strip() or value.strip())
            if values:
                placeholders[self.name] = values
                if labels != values:
                    groups[self.name] = labels
        for form, key in zip(FORMS, ("definite", "indefinite"), strict=True):
            lines = _lines(data.get(key, ""))
            if lines:
                placeholders[f"{self.name}-{form}"] = lines
        return {"placeholders": placeholders, "placeholder_groups": groups}

    @classmethod
    def initial_for(cls, version: TemplateVersion, name: str) -> dict[str, Any]:
        placeholders = version.placeholders or {}
        source = (version.placeholder_sources or {}).get(name)
        initial: dict[str, Any] = {
            "mode": VALUES,
            "values": values_text(
                placeholders.get(name) or [], (version.placeholder_groups or {}).get(name)
            ),
            "definite": "\n".join(placeholders.get(f"{name}-def") or []),
            "indefinite": "\n".join(placeholders.get(f"{name}-indef") or []),
        }
        if isinstance(source, dict) and source.get("vocabulary"):
            vocabulary = Vocabulary.objects.filter(
                name=source["vocabulary"], language=source.get("language", version.language)
            ).first()
            if vocabulary is not None:
                initial.update(
                    mode=VOCABULARY,
                    vocabulary=vocabulary.pk,
                    groups=", ".join(source.get("groups") or []),
                )
        return initial


class TemplateAuthoringForm(forms.Form):
    """A template's identity (new templates only) and content. `content()` is the content
    dict every save and preview takes."""

    dataset = forms.ModelChoiceField(queryset=Dataset.objects.order_by("name"))
    external_id = forms.CharField(
        max_length=Template._meta.get_field("external_id").max_length,
        label="Template id",
        help_text="unique in the dataset, e.g. Caste-07a",
    )
    category = forms.ModelChoiceField(queryset=Category.objects.order_by("name"), required=False)
    new_category = forms.CharField(
        max_length=100, required=False, label="or a new category", help_text="created on save"
    )
    question_index = forms.CharField(max_length=50, required=False, label="Question index (Q_id)")
    variant = forms.CharField(max_length=20, required=False, label="Version letter")
    base_version = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    language = forms.RegexField(
        regex=LANGUAGE_CODE_RE,
        max_length=16,
        initial="en",
        help_text="hi, ta, es, ...",
        error_messages={"invalid": "a language code such as hi, ta or es"},
    )
    ambiguous_context = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    disambiguating_context = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), required=False
    )
    question_negative = forms.CharField(required=False)
    question_non_negative = forms.CharField(required=False)
    answer_negative = forms.CharField(initial="{{NAME1}}", required=False)
    answer_non_negative = forms.CharField(initial="{{NAME2}}", required=False)
    target_placeholder = forms.ChoiceField(
        choices=[(axis, axis) for axis in NAME_AXES],
        label="Stereotyped group's placeholder",
    )
    pairing = forms.ChoiceField(choices=Pairing.choices)
    proper_noun = forms.BooleanField(required=False, label="Proper-noun version (names)")
    noun_form = forms.ChoiceField(
        choices=[("", "(not said)"), *NounForm.choices], required=False, label="Noun form"
    )
    subcategory = forms.CharField(max_length=100, required=False)
    stereotyped_groups = forms.CharField(
        required=False, help_text="comma-separated group labels", max_length=2000
    )
    non_stereotyped_groups = forms.CharField(
        required=False, help_text="comma-separated group labels", max_length=2000
    )
    relevant_social_values = forms.CharField(
        required=False, label="Relevant social values", help_text="e.g. bad at math"
    )
    source = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}),
        required=False,
        label="Sources",
        help_text="references attesting the stereotype, one a line",
    )
    concept = forms.ModelChoiceField(
        queryset=StereotypeConcept.objects.select_related("category").order_by(
            "category__name", "statement"
        ),
        required=False,
        label="Stereotype concept",
    )
    transformation_type = forms.ChoiceField(
        choices=[("", "(none)"), *TransformationType.choices],
        required=False,
        label="Transformation class",
    )
    transformation_reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), required=False, label="Transformation reason"
    )
    original_bbq_id = forms.CharField(max_length=50, required=False, label="Source template id")
    notes = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)

    def __init__(
        self,
        *args: Any,
        template: Template | None = None,
        dataset: Dataset | None = None,
        version: TemplateVersion | None = None,
        dataset_fixed: bool = False,
        **kwargs: Any,
    ) -> None:
        self.template = template
        self.dataset_fixed = dataset_fixed
        if version is not None:
            kwargs.setdefault("initial", self.initial_from(version))
        super().__init__(*args, **kwargs)
        for name, label in TEXTS.items():
            self.fields[name].label = label
        if template is not None:  # an edit: the identity is the template's own
            for name in ("dataset", "external_id", "category", "new_category"):
                del self.fields[name]
            for name in ("question_index", "variant"):
                del self.fields[name]
            self.fields["base_version"].required = True
        elif dataset is not None:
            self.fields["dataset"].initial = dataset.pk
            # The page of one dataset: shown, not changeable (the posted value is ignored).
            self.fields["dataset"].disabled = dataset_fixed
        self.lists = [
            PlaceholderListForm(
                self.data if self.is_bound else None,
                name=name,
                initial=PlaceholderListForm.initial_for(version, name) if version else None,
            )
            for name in self.list_names(version)
        ]
        language = str(self.data.get("language") or self.initial.get("language") or "en")
        if not is_language_code(language):
            language = "en"
        for name, field in self.fields.items():
            described = [f"findings-{name}"]
            if field.help_text:
                described.insert(0, f"help-{name}")
            field.widget.attrs["aria-describedby"] = " ".join(described)
            if name in TEXTS or name in ("relevant_social_values", "subcategory"):
                field.widget.attrs["lang"] = language
                field.widget.attrs["data-lang-follows"] = "1"
        for form in self.lists:
            form.describe(language)

    def list_names(self, version: TemplateVersion | None) -> list[str]:
        """NAME1, NAME2 and every WORDn the version or the posted data has (at least one)."""
        words: set[str] = set()
        if version is not None:
            words |= {key.split("-")[0] for key in version.placeholders if key.startswith("WORD")}
        if self.is_bound:
            words |= {m.group(1) for key in self.data if (m := _WORD_KEY.match(key))}
        if not words:
            words = {"WORD1"}
        return [*NAME_AXES, *sorted(words, key=lambda name: int(name[4:]))]

    @staticmethod
    def initial_from(version: TemplateVersion) -> dict[str, Any]:
        initial = {name: getattr(version, name) for name in TEXTS}
        initial.update(
            base_version=version.number,
            language=version.language,
            target_placeholder=version.target_placeholder,
            pairing=version.pairing,
            proper_noun=version.proper_noun,
            noun_form=version.noun_form,
            subcategory=version.subcategory,
            stereotyped_groups=", ".join(version.stereotyped_groups or []),
            non_stereotyped_groups=", ".join(version.non_stereotyped_groups or []),
            relevant_social_values=version.relevant_social_values,
            source=version.source,
            concept=version.concept_id,
            transformation_type=version.transformation_type,
            transformation_reason=version.transformation_reason,
            original_bbq_id=version.original_bbq_id,
            notes=version.notes,
        )
        return initial

    @classmethod
    def data_from(cls, version: TemplateVersion) -> dict[str, str]:
        """The fields the page posts for a version (saved or not), every list with its values
        typed in: what a test or a benchmark sends to stand for a researcher's form."""
        data = {
            name: "" if value is None else value
            for name, value in cls.initial_from(version).items()
        }
        names = {key.split("-")[0] for key in version.placeholders}
        for name in sorted(names):
            initial = PlaceholderListForm.initial_for(version, name)
            for key in ("mode", "values", "definite", "indefinite"):
                data[f"ph-{name}-{key}"] = initial[key] if key != "mode" else VALUES
        return data

    def is_valid(self) -> bool:
        # Every list form is validated, so that each shows its own errors.
        lists_valid = all([form.is_valid() for form in self.lists])
        return super().is_valid() and lists_valid

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.template is None and not data.get("category") and not data.get("new_category"):
            self.add_error("category", "choose a category or name a new one")
        return data

    def field_errors(self) -> list[dict[str, str]]:
        """The form's own errors about the content as preview findings ({"field", "level",
        "message"}): a list's errors name the list (NAME1), the others their field. The
        identity fields (template id, dataset, category) are checked when saving."""
        out = [
            {"field": name, "level": "error", "message": message}
            for name, messages in self.errors.items()
            if name not in IDENTITY_FIELDS
            for message in messages
        ]
        for form in self.lists:
            out += [
                {"field": form.name, "level": "error", "message": f"{form.name}: {message}"}
                for messages in form.errors.values()
                for message in messages
            ]
        return out

    def content(self) -> dict[str, Any]:
        """The TemplateVersion content of the form: what a save records as a draft and what the
        preview shows. Call after is_valid()."""
        data = self.cleaned_data
        placeholders: dict[str, Any] = {}
        groups: dict[str, list[str]] = {}
        for form in self.lists:
            entries = form.entries()
            placeholders.update(entries["placeholders"])
            groups.update(entries["placeholder_groups"])
        content: dict[str, Any] = {name: data.get(name, "") for name in TEXTS}
        content.update(
            language=data.get("language") or "en",
            placeholders=placeholders,
            placeholder_groups=groups,
            # Re-derived by the service from the vocabulary references above.
            placeholder_sources={},
            target_placeholder=data.get("target_placeholder") or "NAME1",
            pairing=data.get("pairing") or Pairing.STEREOTYPICAL.value,
            proper_noun=bool(data.get("proper_noun")),
            noun_form=data.get("noun_form") or "",
            subcategory=data.get("subcategory") or "",
            stereotyped_groups=parse_group_list(data.get("stereotyped_groups") or ""),
            non_stereotyped_groups=parse_group_list(data.get("non_stereotyped_groups") or ""),
            relevant_social_values=data.get("relevant_social_values") or "",
            source=data.get("source") or "",
            concept_id=data["concept"].pk if data.get("concept") else None,
            transformation_type=data.get("transformation_type") or "",
            transformation_reason=data.get("transformation_reason") or "",
            original_bbq_id=data.get("original_bbq_id") or "",
            notes=data.get("notes") or "",
            # Every version written in the browser is a draft: it goes to validation from here.
            status=ReviewStatus.DRAFT.value,
        )
        return content
