"""EsBBQ / CaBBQ's own generator, reproduced exactly (langtech-bsc/EsBBQ-CaBBQ
`generate_instances.py` and `utils.py`; fully deterministic).

The importer (templates.py) keeps, per template version, everything the
original script reads: the template row with its language suffix stripped (`row`), the filtered
vocabulary (`vocabulary`: rows whose include_name is empty) and the proper names
(`proper_names`). From those this module walks the same loops in the same order:

* every row is expanded into its four NAME1/NAME2 flips (original, ambig, disambig, all);
* NAME1 comes from the `names` column, else the stereotyped groups, else (proper names) the
  proper-name vocabulary; NAME2 from `names`, `non_stereotyped_groups`, or the vocabulary rows
  marked not-stereotyped; SES occupations pair high with low SES; SES names pair with the other
  white names; RaceEthnicity names pair with same-gender names of a not-stereotyped ethnicity
  (the list is not reset between NAME1 values, as upstream: see `name2-accumulates`);
* feminine vocabulary forms when the template states gender f; CaBBQ proper names with their
  article; sentence capitalisation; contractions (de el -> del, a el -> al, ...);
* four instances per filled row; duplicates (same template id, context, question) dropped,
  first kept; answers: stereotyped, non-stereotyped, then the literal "unknown".

A row the original script would fail on raises GenerationError with the script's own reason.
Everything here is pure: no database, no Django.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from .filling import EsbbqInstance, RowContext, row_fill, row_fill_instances
from .text import (
    GenerationError,
    first_row,
    flip_names,
    group_by_specifiers,
    is_set,
    lexical_combinations,
    parse_list,
    parse_mapping,
    unique,
)

LANGUAGES = ("es", "ca")

# Kasauti's text fields and the EsBBQ columns they are imported from (and edited back into).
TEXT_COLUMNS = {
    "ambiguous_context": "ambiguous_context",
    "disambiguating_context": "disambiguating_context",
    "question_negative": "question_negative_stereotype",
    "question_non_negative": "question_non_negative",
    "answer_negative": "answer_negative",
    "answer_non_negative": "answer_non_negative",
}

FLIPS = ("original", "ambig", "disambig", "all")
_FLIPPED_COLUMNS = {
    "original": (),
    "ambig": ("ambiguous_context",),
    "disambig": ("disambiguating_context", "answer_negative", "answer_non_negative"),
    "all": (
        "ambiguous_context",
        "disambiguating_context",
        "answer_negative",
        "answer_non_negative",
    ),
}
_WHITE = ("blanco", "blanc")


def validate_row(row: dict[str, str]) -> None:
    """utils.validate_template."""
    negative, non_negative = row.get("answer_negative", ""), row.get("answer_non_negative", "")
    if not (
        ("NAME1" in negative and "NAME2" in non_negative)
        or ("NAME1" in non_negative and "NAME2" in negative)
    ):
        raise GenerationError("Same NAME variable used in both answers!")
    uses_words = "WORD" in row.get("ambiguous_context", "") + row.get("disambiguating_context", "")
    if uses_words and not row.get("lexical_diversity"):
        raise GenerationError("WORD variable used in context but lexical diversity is empty!")
    if row.get("esbbq_category") != "Gender":
        proper = row.get("proper_nouns_only", "")
        if _equals_one(proper) and not row.get("stated_gender_info", ""):
            raise GenerationError("No gender info stated!")


def _equals_one(text: str) -> bool:
    try:
        return float(text) == 1
    except (TypeError, ValueError):
        return False


def generate(data: dict[str, Any], language: str) -> list[EsbbqInstance]:
    """Every instance of one template row, in the script's order, duplicates dropped."""
    # An import validates, plans (counts) and instantiates the same rows: generate once.
    return list(_generate_cached(json.dumps(data, sort_keys=True, ensure_ascii=False), language))


def generate_cache_clear() -> None:
    """Forget the cached rows (benchmarks time a cold import)."""
    _generate_cached.cache_clear()


@lru_cache(maxsize=2048)
def _generate_cached(data_json: str, language: str) -> tuple[EsbbqInstance, ...]:
    return tuple(_generate(json.loads(data_json), language))


def _generate(data: dict[str, Any], language: str) -> list[EsbbqInstance]:
    if language not in LANGUAGES:
        raise GenerationError(f"language must be one of {', '.join(LANGUAGES)}, not {language!r}")
    row: dict[str, str] = dict(data.get("row") or {})
    for column in (
        "esbbq_category",
        "ambiguous_context",
        "disambiguating_context",
        "answer_negative",
        "answer_non_negative",
        "stereotyped_groups",
    ):
        if column not in row:
            raise GenerationError(f"the template has no {column} column")
    vocabulary = list(data.get("vocabulary") or [])
    proper_names = list(data.get("proper_names") or [])
    instances: list[EsbbqInstance] = []
    seen: set[tuple[str, str]] = set()
    combination = 0
    for flip in FLIPS:
        flipped = dict(row, flipped=flip)
        for column in _FLIPPED_COLUMNS[flip]:
            flipped[column] = flip_names(row[column])
        for group in _row_instances(flipped, language, vocabulary, proper_names):
            kept = False
            for instance in group:
                key = (instance.context, instance.question)
                if key in seen:
                    continue
                seen.add(key)
                kept = True
                instances.append(_with_combination(instance, combination))
            combination += kept
    return instances


def _with_combination(instance: EsbbqInstance, combination: int) -> EsbbqInstance:
    return EsbbqInstance(**{**instance.__dict__, "combination": combination})


def _row_instances(
    row: dict[str, str],
    language: str,
    vocabulary: list[dict[str, str]],
    proper_names: list[dict[str, str]],
) -> Iterator[list[EsbbqInstance]]:
    """The body of generate_instances.py's row loop, for one (flipped) row."""
    validate_row(row)
    stated_gender = row.get("stated_gender_info", "").lower()
    if "fake-" in stated_gender:
        stated_gender = stated_gender.split("-")[1]
    if stated_gender not in ("m", "f", ""):
        raise GenerationError(f"Invalid value for stated_gender_info: `{stated_gender}`")
    category = row["esbbq_category"]
    subcategory = row.get("subcategory") or None
    vocabulary_category = [v for v in vocabulary if v.get("category") == category]
    if subcategory:
        vocabulary_category = [
            v for v in vocabulary_category if v.get("subcategory") == subcategory
        ]
    ctx = RowContext(
        language=language,
        row=row,
        category=category,
        subcategory=subcategory,
        stated_gender=stated_gender,
        proper_names_only=is_set(row.get("proper_nouns_only", "")),
        bias_targets=parse_list(row["stereotyped_groups"]),
        vocabulary=vocabulary,
        vocabulary_category=vocabulary_category,
        proper_names=proper_names,
    )

    names: list[dict[str, str]] = []  # df_names
    other_names: list[dict[str, str]] = []  # df_other_names
    name1_list: list[str] = []
    name2_list: list[str] = []
    name1_info_of: dict[str, str] = {}
    name2_info_of: dict[str, str] = {}
    grouped_names: dict[str, dict[str | None, list[str]]] = {}

    if ctx.proper_names_only:
        if category == "RaceEthnicity":
            if not ctx.bias_targets:
                raise GenerationError(
                    "Category is RaceEthnicity but the template doesn't have any specified "
                    "stereotyped groups!"
                )
            names = [p for p in proper_names if p.get("ethnicity") in ctx.bias_targets]
            if stated_gender:
                names = [p for p in names if p.get("gender", "") in (stated_gender, "")]
            for person in names:
                name1_list.append(person["proper_name"])
                name1_info_of[person["proper_name"]] = f"{person['gender']}, {person['ethnicity']}"
        elif category == "Gender":
            names = [p for p in proper_names if p.get("ethnicity") in _WHITE]
            if not names:
                raise GenerationError("no white proper names in the vocabulary")
            name1_list = unique([p["proper_name"] for p in names if p.get("gender") == "f"])
            name1_info_of.update(dict.fromkeys(name1_list, "f"))
            name2_list = unique([p["proper_name"] for p in names if p.get("gender") == "m"])
            name2_info_of.update(dict.fromkeys(name2_list, "m"))
        else:
            names = [p for p in proper_names if p.get("ethnicity") in _WHITE]
            names = [p for p in names if p.get("gender", "") in (stated_gender, "")]
            name1_list = [p["proper_name"] for p in names]
    else:
        if category == "SES" and subcategory == "Occupation":
            name1_list = unique([v["name"] for v in vocabulary_category])
        elif category != "Gender":
            name1_list = list(ctx.bias_targets)
        if not name2_list:
            non_stereotyped = row.get("non_stereotyped_groups")
            if non_stereotyped:
                name2_list = parse_list(non_stereotyped)
            else:
                name2_list = unique(
                    [
                        v["name"]
                        for v in vocabulary_category
                        if v.get("information") == "not-stereotyped"
                    ]
                )
        names_text = row.get("names", "")
        if names_text:
            grouped_names = group_by_specifiers(parse_mapping(names_text))
            try:
                name1_list = grouped_names["NAME1"][None]
                name2_list = grouped_names["NAME2"][None]
            except KeyError as error:
                raise GenerationError(f"the names column gives no bare list {error}") from None

    if not name1_list:
        raise GenerationError("No names in the list of options for NAME1!")

    lexical_text = row.get("lexical_diversity", "")
    grouped_lexical: dict[str, dict[str | None, list[str]]] = {}
    lexical: list[dict[str, int] | None] = [None]
    if lexical_text:
        grouped_lexical = group_by_specifiers(parse_mapping(lexical_text))
        lexical = list(lexical_combinations(grouped_lexical))

    name1_info: str | None = ""
    for name1 in name1_list:
        if name1 in name1_info_of:
            name1_info = name1_info_of[name1]
        else:
            name1_info = row.get("name1_info") or None
        if category == "SES":
            if ctx.proper_names_only:
                other_names = [
                    p
                    for p in proper_names
                    if p.get("ethnicity") in _WHITE and p.get("proper_name") != name1
                ]
                if stated_gender:
                    other_names = [
                        p for p in other_names if p.get("gender", "") in (stated_gender, "")
                    ]
                name2_list = [p["proper_name"] for p in other_names]
            elif subcategory == "Occupation":
                name1_info = first_row(vocabulary_category, name=name1).get("information", "")
                name2_list = unique(
                    [v["name"] for v in vocabulary_category if v.get("information") != name1_info]
                )
        elif category == "RaceEthnicity" and ctx.proper_names_only:
            not_stereotyped = {
                v["name"] for v in vocabulary if v.get("information") == "not-stereotyped"
            }
            gender = (name1_info or "").split(",")[0]
            other_names = [
                p
                for p in proper_names
                if p.get("ethnicity") in not_stereotyped and p.get("gender") == gender
            ]
            # As upstream: name2_list is not reset for the next NAME1, so it accumulates.
            for person in other_names:
                name2_list.append(person["proper_name"])
                name2_info_of[person["proper_name"]] = person["ethnicity"]

        if not name2_list:
            raise GenerationError("No names in the list of options for NAME2!")

        for name2 in list(name2_list):
            if name2 in name2_info_of:
                name2_info = name2_info_of[name2]
            else:
                name2_info = row.get("name2_info") or None
            if category == "RaceEthnicity" and ctx.proper_names_only:
                name2_info = name2_info_of[name2]
            elif category == "Gender" and ctx.proper_names_only:
                row_info1, row_info2 = row.get("name1_info"), row.get("name2_info")
                if row_info1 and row_info1 != name1_info:
                    name1_info = f"{name1_info}, {row_info1}"
                if row_info2 and row_info2 != name2_info:
                    name2_info = f"{name2_info}, {row_info2}"
            elif category == "SES" and subcategory == "Occupation":
                name1_info = first_row(vocabulary, name=name1).get("information", "")
                name2_info = first_row(vocabulary, name=name2).get("information", "")
            if not name1_info:
                name1_info = name1
            if not name2_info:
                name2_info = name2
            for assignment in lexical:
                filled, values = row_fill(
                    ctx, name1, name2, grouped_names, grouped_lexical, assignment,
                    names + other_names,
                )  # fmt: skip
                yield row_fill_instances(ctx, filled, values, name1_info, name2_info)
