"""Forms of the researcher's survey editor.

The questionnaire's repeating parts (categories with their groups, demographic questions with
their options, every label in every survey language) are posted as numbered fields
(`c0-key`, `c0-label-hi`, `c0-g1-key`, ...) and read back into the content's shape by
`categories_from_post` and `demographics_from_post`. Each list is rendered with blank rows at
its end (a new category, group, question or option); a row left blank is dropped, a row ticked
"remove" is removed. What they cannot accept is reported per field, and nothing is saved.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field

from django import forms
from django.utils.text import slugify

from apps.catalog.models import LANGUAGE_NAMES, Dataset
from apps.core.errors import KasautiError
from apps.core.text import nfc

from .models import Survey
from .questionnaire import ANSWER_SHAPES, KEY_RE
from .services.surveys import survey_languages_check
from .strings import STRING_KEYS

# Slugs the editor's own addresses use under /surveys/.
RESERVED_SLUGS = {"new"}
# Longest text accepted for one string and for one label (characters).
STRING_LIMIT = 5000
LABEL_LIMIT = 300
# The most rows one list may post: a bound on the work a hand-made request can ask for.
ROW_LIMIT = 200
# Strings edited in a text box rather than a one-line field.
LONG_STRINGS = {
    "introduction",
    "consent",
    "data_protection",
    "demographics_help",
    "stereotype_help",
    "deletion_code_help",
    "closed_text",
    "not_open_text",
    "throttled",
}
# Strings the public pages fill in (str.format), and the placeholders each must keep.
PLACEHOLDERS = {"too_long": {"limit"}}

ANSWER_SHAPE_LABELS = {
    "free_text": "Free text: the stereotype in the respondent's words",
    "tuple": "A (group, attribute) tuple",
    "either": "Either: the respondent chooses",
}


def _language_choices() -> list[tuple[str, str]]:
    return [(code, f"{name} ({code})") for code, name in LANGUAGE_NAMES.items()]


def _kasauti_to_validation(call):
    try:
        return call()
    except KasautiError as exc:
        raise forms.ValidationError(str(exc)) from None


class SurveyCreateForm(forms.Form):
    dataset = forms.ModelChoiceField(
        queryset=Dataset.objects.order_by("name"),
        help_text="Concepts coded from the answers are judged by this dataset's inclusion rule.",
    )
    slug = forms.SlugField(
        label="Link name",
        max_length=80,
        help_text="The public link is /s/<link name>/: lowercase letters, digits and hyphens.",
    )
    languages = forms.MultipleChoiceField(
        choices=_language_choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="The survey's own languages: respondents see only these.",
    )
    other_languages = forms.CharField(
        required=False,
        max_length=200,
        label="Other language codes",
        help_text="Comma-separated, e.g. mni, gu. The first language overall is the default.",
    )

    def clean_slug(self) -> str:
        slug = self.cleaned_data["slug"].lower()
        if slug in RESERVED_SLUGS:
            raise forms.ValidationError(f"{slug!r} is used by the editor's own pages")
        if Survey.objects.filter(slug=slug).exists():
            raise forms.ValidationError(f"a survey with the link name {slug!r} already exists")
        return slug

    def clean(self) -> dict:
        data = super().clean()
        typed = [code.strip() for code in (data.get("other_languages") or "").split(",")]
        codes = [*(data.get("languages") or []), *[c for c in typed if c]]
        try:
            data["language_codes"] = survey_languages_check(languages=codes)
        except KasautiError as exc:
            self.add_error("other_languages" if typed != [""] else "languages", str(exc))
        return data


class LanguagesForm(forms.Form):
    languages = forms.CharField(
        max_length=200,
        help_text="Codes in order, comma-separated; the first is the default. A language "
        "added starts from Kasauti's texts where it has them; one removed loses its texts.",
    )

    def clean_languages(self) -> list[str]:
        codes = self.cleaned_data["languages"].split(",")
        return _kasauti_to_validation(lambda: survey_languages_check(languages=codes))


class LocalDateTimeInput(forms.DateTimeInput):
    input_type = "datetime-local"

    def __init__(self) -> None:
        super().__init__(format="%Y-%m-%dT%H:%M")


class SettingsForm(forms.Form):
    opens_at = forms.DateTimeField(
        required=False,
        widget=LocalDateTimeInput(),
        help_text="Blank: as soon as it is opened.",
    )
    closes_at = forms.DateTimeField(
        required=False, widget=LocalDateTimeInput(), help_text="Blank: until it is closed."
    )
    response_cap = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=10_000_000,
        help_text="The most answers it takes; blank for no cap.",
    )

    def clean(self) -> dict:
        data = super().clean()
        opens, closes = data.get("opens_at"), data.get("closes_at")
        if opens and closes and closes <= opens:
            self.add_error("closes_at", "The survey must close after it opens.")
        return data


# --- the questionnaire -----------------------------------------------------------------------


@dataclass
class Parsed:
    """What a questionnaire form posted, in the content's shape, with what was wrong with it
    (field name -> message). Rendered back as posted when there are errors."""

    value: object
    errors: dict[str, str] = field(default_factory=dict)


def _text(post, name: str, limit: int, errors: dict[str, str], what: str) -> str:
    value = nfc(post.get(name, "")).strip()
    if "\x00" in value:
        errors[name] = f"{what}: contains a NUL character"
        return value.replace("\x00", "")
    if len(value) > limit:
        errors[name] = f"{what}: {len(value)} characters; at most {limit}"
    return value


def strings_from_post(post, *, language: str) -> Parsed:
    """One language's strings (STRING_KEYS), as posted in fields named after the keys."""
    errors: dict[str, str] = {}
    texts = {}
    for key in STRING_KEYS:
        value = _text(post, key, STRING_LIMIT, errors, f"{language}: {key}")
        texts[key] = value
        if key not in PLACEHOLDERS or not value:
            # Shown as written: braces in it are plain characters.
            continue
        # Filled in with str.format by the public pages: exactly its placeholders, and any
        # other brace doubled ({{ and }}).
        needed = PLACEHOLDERS[key]
        try:
            found = {name for _, name, _, _ in string.Formatter().parse(value) if name is not None}
        except ValueError:
            errors[key] = f"{language}: {key}: unbalanced {{ or }} (write {{{{ for a brace)"
            continue
        if found != needed:
            keep = ", ".join("{" + name + "}" for name in sorted(needed))
            errors.setdefault(key, f"{language}: {key}: must contain {keep} and no other {{…}}")
    return Parsed(texts, errors)


def _count(post, name: str, errors: dict[str, str]) -> int:
    try:
        count = int(post.get(name, "0"))
    except ValueError:
        count = 0
    if count > ROW_LIMIT:
        errors[name] = f"{name}: {count} rows posted; at most {ROW_LIMIT}"
        count = ROW_LIMIT
    return max(count, 0)


def _labels(post, prefix: str, languages: list[str], errors: dict[str, str], what: str) -> dict:
    return {
        lang: _text(post, f"{prefix}-label-{lang}", LABEL_LIMIT, errors, f"{what}, {lang} label")
        for lang in languages
    }


def _key(post, prefix: str, labels: dict, taken: set[str], fallback: str, errors: dict) -> str:
    """The row's key as typed; a blank key is made from the first label that gives one (in
    Latin letters), else `fallback`. Keys are what answers store: unique within their list."""
    key = nfc(post.get(f"{prefix}-key", "")).strip().lower()
    if not key:
        made = next((slugify(label) for label in labels.values() if slugify(label)), "")
        key = (made.replace("-", "_")[:60] or fallback).strip("_") or fallback
        base, n = key, 2
        while key in taken:
            key, n = f"{base}_{n}", n + 1
    elif not KEY_RE.match(key):
        errors[f"{prefix}-key"] = (
            f"key {key!r}: lowercase letters, digits, _ + - only (at most 80), starting with "
            "a letter or digit"
        )
    elif key in taken:
        errors[f"{prefix}-key"] = f"key {key!r} is used twice in this list"
    taken.add(key)
    return key


def _blank(post, prefix: str, languages: list[str], extra: tuple[str, ...] = ()) -> bool:
    names = [f"{prefix}-key", *(f"{prefix}-label-{lang}" for lang in languages), *extra]
    return not any(post.get(name, "").strip() for name in names)


def categories_from_post(post, *, languages: list[str]) -> Parsed:
    """The categories a respondent picks from, each with its groups."""
    errors: dict[str, str] = {}
    categories: list[dict] = []
    taken: set[str] = set()
    for i in range(_count(post, "categories", errors)):
        prefix = f"c{i}"
        groups_count = _count(post, f"{prefix}-groups", errors)
        groups_blank = all(_blank(post, f"{prefix}-g{j}", languages) for j in range(groups_count))
        if post.get(f"{prefix}-remove") or (
            _blank(post, prefix, languages, (f"{prefix}-category",)) and groups_blank
        ):
            continue
        labels = _labels(post, prefix, languages, errors, f"category {i + 1}")
        key = _key(post, prefix, labels, taken, f"category_{i + 1}", errors)
        category_name = _text(post, f"{prefix}-category", 100, errors, f"category {key}")
        groups: list[dict] = []
        group_keys: set[str] = set()
        for j in range(groups_count):
            gprefix = f"{prefix}-g{j}"
            if post.get(f"{gprefix}-remove") or _blank(post, gprefix, languages):
                continue
            glabels = _labels(post, gprefix, languages, errors, f"{key}: group {j + 1}")
            gkey = _key(post, gprefix, glabels, group_keys, f"group_{j + 1}", errors)
            groups.append({"key": gkey, "labels": glabels})
        categories.append(
            {
                "key": key,
                "category": category_name,
                "labels": labels,
                "allow_other": bool(post.get(f"{prefix}-allow_other")),
                "groups": groups,
            }
        )
    return Parsed(categories, errors)


def demographics_from_post(post, *, languages: list[str]) -> Parsed:
    """The optional demographic questions, each with its options (none: a short free-text
    answer). "Prefer not to say" is always offered; it is not a row here."""
    errors: dict[str, str] = {}
    questions: list[dict] = []
    taken: set[str] = set()
    for i in range(_count(post, "questions", errors)):
        prefix = f"d{i}"
        options_count = _count(post, f"{prefix}-options", errors)
        options_blank = all(_blank(post, f"{prefix}-o{j}", languages) for j in range(options_count))
        if post.get(f"{prefix}-remove") or (_blank(post, prefix, languages) and options_blank):
            continue
        labels = _labels(post, prefix, languages, errors, f"question {i + 1}")
        key = _key(post, prefix, labels, taken, f"question_{i + 1}", errors)
        options: list[dict] = []
        option_keys: set[str] = {"prefer_not"}
        for j in range(options_count):
            oprefix = f"{prefix}-o{j}"
            if post.get(f"{oprefix}-remove") or _blank(post, oprefix, languages):
                continue
            olabels = _labels(post, oprefix, languages, errors, f"{key}: option {j + 1}")
            okey = _key(post, oprefix, olabels, option_keys, f"option_{j + 1}", errors)
            options.append({"key": okey, "labels": olabels})
        questions.append({"key": key, "labels": labels, "options": options})
    return Parsed(questions, errors)


def shape_from_post(post) -> Parsed:
    shape = post.get("answer_shape", "")
    errors = {}
    if shape not in ANSWER_SHAPES:
        errors["answer_shape"] = f"answer shape: choose one of {', '.join(ANSWER_SHAPES)}"
    return Parsed(
        {"answer_shape": shape, "ask_experience": bool(post.get("ask_experience"))}, errors
    )


def gap_page(problem: str) -> str:
    """Which editor page fixes a gap from content_problems: "strings:<lang>", "categories",
    "demographics" or "languages"."""
    match = re.match(r"^(\w[\w-]*): strings\.", problem)
    if match:
        return f"strings:{match.group(1)}"
    if "categories" in problem:
        return "categories"
    if "demographics" in problem:
        return "demographics"
    return "questions"
