"""The questionnaire a SurveyVersion holds (`content`, JSON), in one place: its shape, a
starting questionnaire, what is missing before it can open, and how to read it.

    {
      "languages": ["hi", "en"],              # the survey's own languages, first is default
      "answer_shape": "free_text" | "tuple" | "either",
      "ask_experience": true,                 # the optional experience description
      "strings": {"hi": {"title": ..., "submit": ..., ...}},   # strings.STRING_KEYS, per language
      "categories": [                          # what a respondent may pick
        {"key": "religion", "category": "Religion",           # catalog Category name, or ""
         "labels": {"hi": "धर्म"}, "allow_other": true,          # allow a typed-in group
         "groups": [{"key": "muslim", "labels": {"hi": "मुसलमान"}}]}
      ],
      "demographics": [                        # optional questions, asked once
        {"key": "age", "labels": {...}, "options": [{"key": "18-24", "labels": {...}}]}
      ]                                        # no options: a short free-text answer
    }

Every question also offers "prefer not to say" (PREFER_NOT, labelled by the
`prefer_not_to_say` string).
"""

from __future__ import annotations

import copy
import re
from typing import Any

from apps.core.text import nfc_deep

from .strings import DEFAULT_DEMOGRAPHICS, DEFAULT_STRINGS, STRING_KEYS

ANSWER_SHAPES = ("free_text", "tuple", "either")
PREFER_NOT = "prefer_not"
KEY_RE = re.compile(r"^[a-z0-9][a-z0-9_+\-]{0,79}$")


def default_content(*, languages: list[str], categories: list[dict] | None = None) -> dict:
    """A questionnaire to start from: the default strings and EsBBQ's demographic questions in
    every language Kasauti has texts for (others start empty), and the given categories."""
    strings = {lang: dict(DEFAULT_STRINGS.get(lang, {})) for lang in languages}
    demographics = copy.deepcopy(DEFAULT_DEMOGRAPHICS)
    for question in demographics:
        question["labels"] = {lang: question["labels"].get(lang, "") for lang in languages}
        for option in question["options"]:
            option["labels"] = {lang: option["labels"].get(lang, "") for lang in languages}
    return {
        "languages": list(languages),
        "answer_shape": "either",
        "ask_experience": True,
        "strings": strings,
        "categories": copy.deepcopy(categories or []),
        "demographics": demographics,
    }


def content_normalise(content: dict) -> dict:
    """NFC everywhere, surrounding blanks stripped from every text."""

    def strip(value: Any) -> Any:
        if isinstance(value, str):
            return value.strip()
        if isinstance(value, list):
            return [strip(item) for item in value]
        if isinstance(value, dict):
            return {key: strip(item) for key, item in value.items()}
        return value

    return strip(nfc_deep(content))


def content_problems(content: dict) -> list[str]:
    """Everything that stops this questionnaire from being shown, each saying where
    ("hi: strings.submit is empty"). An empty list means it can open."""
    problems: list[str] = []
    languages = content.get("languages") or []
    if not languages:
        return ["languages: the survey needs at least one language"]
    if content.get("answer_shape") not in ANSWER_SHAPES:
        problems.append(f"answer_shape: must be one of {', '.join(ANSWER_SHAPES)}")
    strings = content.get("strings") or {}
    for lang in languages:
        texts = strings.get(lang) or {}
        for key in STRING_KEYS:
            if not (texts.get(key) or "").strip():
                problems.append(f"{lang}: strings.{key} is empty")

    def labelled(where: str, labels: dict) -> None:
        for lang in languages:
            if not ((labels or {}).get(lang) or "").strip():
                problems.append(f"{lang}: {where} has no label")

    def keyed(where: str, items: list[dict]) -> None:
        seen: set[str] = set()
        for item in items:
            key = item.get("key", "")
            if not KEY_RE.match(key):
                problems.append(f"{where}: key {key!r} must be lowercase letters, digits, _ + -")
            elif key in seen:
                problems.append(f"{where}: key {key!r} appears twice")
            seen.add(key)

    categories = content.get("categories") or []
    keyed("categories", categories)
    for category in categories:
        where = f"categories[{category.get('key')}]"
        labelled(where, category.get("labels"))
        keyed(f"{where}.groups", category.get("groups") or [])
        for group in category.get("groups") or []:
            labelled(f"{where}.groups[{group.get('key')}]", group.get("labels"))
    demographics = content.get("demographics") or []
    keyed("demographics", demographics)
    for question in demographics:
        where = f"demographics[{question.get('key')}]"
        labelled(where, question.get("labels"))
        keyed(f"{where}.options", question.get("options") or [])
        for option in question.get("options") or []:
            labelled(f"{where}.options[{option.get('key')}]", option.get("labels"))
    return problems


class Questionnaire:
    """Read access to a version's content in one language."""

    def __init__(self, content: dict, language: str | None = None) -> None:
        self.content = content
        self.languages: list[str] = content["languages"]
        self.language = language if language in self.languages else self.languages[0]

    def text(self, key: str, **values: Any) -> str:
        text = self.content["strings"].get(self.language, {}).get(key, "")
        return text.format(**values) if values else text

    @property
    def strings(self) -> dict[str, str]:
        return self.content["strings"].get(self.language, {})

    @property
    def answer_shape(self) -> str:
        return self.content["answer_shape"]

    @property
    def ask_experience(self) -> bool:
        return bool(self.content.get("ask_experience", True))

    @property
    def categories(self) -> list[dict]:
        return self.content.get("categories") or []

    @property
    def demographics(self) -> list[dict]:
        return self.content.get("demographics") or []

    def category(self, key: str) -> dict | None:
        return next((c for c in self.categories if c["key"] == key), None)

    def label(self, item: dict) -> str:
        return (item.get("labels") or {}).get(self.language, "")

    def category_label(self, key: str) -> str:
        category = self.category(key)
        return self.label(category) if category else key

    def group_label(self, category_key: str, group_key: str) -> str:
        category = self.category(category_key) or {}
        group = next((g for g in category.get("groups") or [] if g["key"] == group_key), None)
        return self.label(group) if group else group_key

    def demographic_option_label(self, question_key: str, value: str) -> str:
        if value == PREFER_NOT:
            return self.text("prefer_not_to_say")
        question = next((q for q in self.demographics if q["key"] == question_key), None)
        option = next((o for o in (question or {}).get("options") or [] if o["key"] == value), None)
        return self.label(option) if option else value
