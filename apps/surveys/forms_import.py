"""Forms of the survey import pages: the upload (format, file) and the mapping (a select per
survey field choosing a column, and the reading settings)."""

from __future__ import annotations

from django import forms

from .importers import (
    ANSWER_FIELDS,
    DATE_ORDERS,
    EXPOSURE_KINDS,
    MAX_BYTES,
    OPTION_DEFAULTS,
    ROW_FIELDS,
    survey_formats,
)

MAX_SECTIONS = 20
DATE_ORDER_LABELS = {
    "auto": "Tell from the dates",
    "mdy": "Month first (3/25/2024)",
    "dmy": "Day first (25/3/2024)",
}


class SurveyImportUploadForm(forms.Form):
    format = forms.ChoiceField(label="Export format")
    file = forms.FileField(label="CSV file", help_text="The responses downloaded as CSV.")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["format"].choices = [(f.name, f.label) for f in survey_formats()]

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_BYTES:
            raise forms.ValidationError(
                f"The file has {upload.size:,} bytes; at most {MAX_BYTES:,} are imported."
            )
        return upload


class SurveyImportMappingForm(forms.Form):
    """One select per field (the first section's answer fields, then FIELD.2 ... for repeated
    sections, then demographics.KEY), each offering the file's columns by label; the
    settings. Field names are the mapping's keys, so cleaned_data is the mapping."""

    def __init__(
        self,
        *args,
        columns: list[str],
        sections: int,
        demographics: dict[str, str],
        languages: list[str],
        exposure_defaults: dict[str, list[str]] | None = None,
        **kwargs,
    ) -> None:
        super().__init__(*args, **kwargs)
        choices = [("", "— not in the file —"), *((label, label) for label in columns)]
        self.sections = max(1, min(sections, MAX_SECTIONS))
        self.row_names = list(ROW_FIELDS)
        for name, label in ROW_FIELDS.items():
            self.fields[name] = forms.ChoiceField(label=label, choices=choices, required=False)
        self.section_names: list[list[str]] = []
        for n in range(1, self.sections + 1):
            names = []
            for name, label in ANSWER_FIELDS.items():
                key = name if n == 1 else f"{name}.{n}"
                self.fields[key] = forms.ChoiceField(label=label, choices=choices, required=False)
                names.append(key)
            self.section_names.append(names)
        self.demographic_names = []
        for key, label in demographics.items():
            self.fields[key] = forms.ChoiceField(label=label, choices=choices, required=False)
            self.demographic_names.append(key)
        self.fields["date_order"] = forms.ChoiceField(
            label="Date order of dates like 3/5/2024",
            choices=[(o, DATE_ORDER_LABELS[o]) for o in DATE_ORDERS],
            initial="auto",
        )
        self.fields["timezone"] = forms.CharField(
            label="Time zone of times that name none",
            max_length=64,
            initial=OPTION_DEFAULTS["timezone"],
            help_text="UTC, or a name such as Asia/Kolkata",
        )
        self.fields["default_language"] = forms.ChoiceField(
            label="Language when the file does not say",
            choices=[("", f"The survey's first ({languages[0]})"), *((c, c) for c in languages)],
            required=False,
        )
        for kind in EXPOSURE_KINDS:
            self.fields[f"{kind}_words"] = forms.CharField(
                label=f"Words meaning “{kind}” in the how-they-know column",
                max_length=500,
                required=False,
                help_text="separated by |; empty: the survey's own labels and common words",
                widget=forms.TextInput(
                    attrs={"placeholder": " | ".join((exposure_defaults or {}).get(kind, []))}
                ),
            )
        self.option_names = ["date_order", "timezone", "default_language"] + [
            f"{kind}_words" for kind in EXPOSURE_KINDS
        ]

    def groups(self) -> list[tuple[str, str, list]]:
        """(id, heading, bound fields) for the template."""
        out = [("submission", "The submission", [self[n] for n in self.row_names])]
        for n, names in enumerate(self.section_names, start=1):
            heading = "Answer" if self.sections == 1 else f"Answer, section {n}"
            out.append((f"section-{n}", heading, [self[name] for name in names]))
        if self.demographic_names:
            out.append(
                (
                    "demographics",
                    "About the respondent (optional questions)",
                    [self[n] for n in self.demographic_names],
                )
            )
        return out

    def options(self) -> list:
        return [self[n] for n in self.option_names]

    def mapping(self) -> dict[str, str]:
        data = self.cleaned_data
        return {name: data.get(name) or "" for name in self.fields}
