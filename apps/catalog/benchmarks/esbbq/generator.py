"""EsBBQ / CaBBQ's own generator, reproduced exactly (langtech-bsc/EsBBQ-CaBBQ
`generate_instances.py` and `utils.py`; fully deterministic).

The importer (apps/catalog/importers/esbbq.py) keeps, per template version, everything the
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
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from apps.catalog.instantiation import (
    ANTI_STEREOTYPICAL,
    NON_STEREOTYPED,
    STEREOTYPED,
    STEREOTYPICAL,
    UNKNOWN,
    Combination,
    Problem,
    TemplateSpec,
)

from .esbbq_text import (
    GenerationError,
    finish_text,
    first_row,
    flip_names,
    group_by_specifiers,
    is_set,
    lexical_combinations,
    parse_list,
    parse_mapping,
    split_and_strip,
    unique,
    word_in_str,
)

GENERATOR = "esbbq"
LANGUAGES = ("es", "ca")

# The columns fill_template processes, in its order (the order decides which NAME variable
# is met first, and so which form the answer_info reports).
FILLED_COLUMNS = (
    "ambiguous_context",
    "disambiguating_context",
    "lexical_diversity",
    "question_negative_stereotype",
    "question_non_negative",
    "answer_negative",
    "answer_non_negative",
)
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
_VARIABLE_RE = re.compile(r"\{\{([^\}]+)\}\}")


@dataclass(frozen=True)
class EsbbqInstance:
    """One instance as the original script writes it (before its sequential instance_id)."""

    flipped: str
    question_polarity: str  # "neg" | "nonneg"
    context_condition: str  # "ambig" | "disambig"
    context: str
    question: str
    ans0: str  # the stereotyped group's answer
    ans1: str  # the non-stereotyped group's answer
    ans2: str  # always "unknown"
    label: int
    question_type: str  # "n/a" | "pro-stereo" | "anti-stereo"
    answer_info: dict[str, list[str]]
    values: dict[str, str]  # every variable used and the text that replaced it
    # Whether the stereotyped group answers the negative question as written (then the
    # disambiguated instances are pro-stereotypical).
    negative_is_stereotyped: bool
    combination: int  # index of the filled row the instance comes from


# --- the generator -----------------------------------------------------------------------------


@dataclass
class _Context:
    """What one template row's loops share (the script's local variables)."""

    language: str
    row: dict[str, str]
    category: str
    subcategory: str | None
    stated_gender: str
    proper_names_only: bool
    bias_targets: list[str]
    vocabulary: list[dict[str, str]]  # the whole filtered vocabulary
    vocabulary_category: list[dict[str, str]]  # of this category (and subcategory)
    proper_names: list[dict[str, str]]


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
    ctx = _Context(
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
                filled, values = _fill(
                    ctx, name1, name2, grouped_names, grouped_lexical, assignment,
                    names + other_names,
                )  # fmt: skip
                yield _instances(ctx, filled, values, name1_info, name2_info)


def _fill(
    ctx: _Context,
    name1: str,
    name2: str,
    names_dict: dict[str, dict[str | None, list[str]]],
    lexical_dict: dict[str, dict[str | None, list[str]]],
    assignment: dict[str, int] | None,
    all_names: list[dict[str, str]],
) -> tuple[dict[str, str], dict[str, str]]:
    """utils.fill_template."""
    filled = dict(ctx.row)
    values: dict[str, str] = {}
    vocabulary_names = [v.get("name") for v in ctx.vocabulary_category]
    for column in FILLED_COLUMNS:
        text = ctx.row.get(column, "")
        new_text = text.strip()
        for variable in _VARIABLE_RE.findall(text):
            if variable.startswith(("NAME1", "NAME2")):
                selected = name1 if variable.startswith("NAME1") else name2
                substitute = selected
                if ctx.language == "ca" and ctx.proper_names_only:
                    person = next((p for p in all_names if p.get("proper_name") == selected), None)
                    if person is None:
                        raise GenerationError(
                            f"proper name {selected!r} has no row to take its article from"
                        )
                    substitute = person.get("proper_name_def", "")
                if selected in vocabulary_names and ctx.stated_gender == "f":
                    entry = first_row(ctx.vocabulary_category, name=selected)
                    substitute = entry.get("f") or selected
                if "-" in variable:
                    parts = variable.split("-")
                    if len(parts) != 2:
                        raise GenerationError(f"cannot read the variable {variable!r}")
                    label, specifier = parts
                    if (
                        ctx.language == "ca"
                        and ctx.category == "SES"
                        and ctx.row.get("subcategory") == "Occupation"
                    ):
                        entry = first_row(ctx.vocabulary_category, name=selected)
                        key = "f_def" if ctx.stated_gender == "f" else "name_def"
                        substitute = entry.get(key, "")
                    else:
                        if not names_dict:
                            raise GenerationError(
                                f"Variables with specifiers like '{variable}' can only be used "
                                "with Names but the names column is empty."
                            )
                        try:
                            index = names_dict[label][None].index(selected)
                            substitute = names_dict[label][specifier][index]
                        except (KeyError, ValueError, IndexError):
                            raise GenerationError(
                                f"no {variable} value for {selected!r} in the names column"
                            ) from None
            elif variable.startswith("WORD"):
                if not lexical_dict or assignment is None:
                    raise GenerationError(
                        f"Text contains '{variable}' but no lexical diversity was found."
                    )
                label, specifier = variable.split("-", 1) if "-" in variable else (variable, None)
                try:
                    substitute = lexical_dict[label][specifier][assignment[label]]
                except (KeyError, IndexError):
                    raise GenerationError(
                        f"no value for {variable} in the lexical diversity column"
                    ) from None
            else:
                raise GenerationError(
                    f"Unrecognized variable in template with "
                    f"template_id={ctx.row.get('esbbq_template_id')} column '{column}': "
                    f"'{variable}'"
                )
            new_text = new_text.replace("{{" + variable + "}}", substitute).strip()
            values[variable] = substitute
        filled[column] = finish_text(new_text, ctx.language)
    return filled, values


def _bare_value(label: str, values: dict[str, str], ctx: _Context) -> str:
    """generate_instances.retrieve_value_without_specifiers."""
    keys = [key for key in values if key.startswith(label)]
    if not keys:
        raise GenerationError(f"{label} is used in no text")
    first = keys[0]
    raw = values[first]
    if first.endswith("-def") or first.endswith("-indef"):
        match = re.search(r"[ ']", raw)
        if match is None:
            raise GenerationError(f"{first} value {raw!r} has no article")
        return raw[match.end() :]
    if ctx.language == "ca" and ctx.proper_names_only:
        match = re.search(r"(el |la |al |l')", raw)
        if match is None:
            # Upstream returns None here and then fails on it.
            raise GenerationError(f"proper name {raw!r} has no article")
        return raw[match.end() :]
    return raw


def _instances(
    ctx: _Context,
    filled: dict[str, str],
    values: dict[str, str],
    name1_info: str,
    name2_info: str,
) -> list[EsbbqInstance]:
    """utils.generate_instances: the four instances of one filled row."""
    name1 = _bare_value("NAME1", values, ctx)
    name2 = _bare_value("NAME2", values, ctx)
    targets = ctx.bias_targets
    if any(info in targets for info in split_and_strip(name1_info, ",")):
        stereotyped = name1
    elif any(info in targets for info in split_and_strip(name2_info, ",")):
        stereotyped = name2
    else:
        raise GenerationError("Failed to identify stereotyped group in either NAME1 or NAME2.")
    negative, non_negative = filled["answer_negative"], filled["answer_non_negative"]
    if word_in_str(stereotyped, negative):
        answers = (negative, non_negative)
        negative_position, non_negative_position = 0, 1
    else:
        answers = (non_negative, negative)
        negative_position, non_negative_position = 1, 0
    info = {"ans0": ["", ""], "ans1": ["", ""], "ans2": ["", ""]}
    if word_in_str(name1, negative):
        info[f"ans{negative_position}"] = [name1, name1_info]
        info[f"ans{non_negative_position}"] = [name2, name2_info]
    if word_in_str(name1, non_negative):
        info[f"ans{non_negative_position}"] = [name1, name1_info]
        info[f"ans{negative_position}"] = [name2, name2_info]
    info["ans2"] = ["unknown", "unknown"]
    if info["ans0"] == ["", ""] or info["ans1"] == ["", ""]:
        raise GenerationError("the answers name neither NAME1 nor NAME2 (answer_info is empty)")
    ambiguous = filled.get("ambiguous_context", "")
    disambiguated = ambiguous + " " + filled.get("disambiguating_context", "")
    negative_question = filled.get("question_negative_stereotype", "")
    non_negative_question = filled.get("question_non_negative", "")
    negative_type = "pro-stereo" if word_in_str(stereotyped, negative) else "anti-stereo"
    non_negative_type = "anti-stereo" if word_in_str(stereotyped, non_negative) else "pro-stereo"
    common = {
        "flipped": filled["flipped"],
        "ans0": answers[0],
        "ans1": answers[1],
        "ans2": "unknown",
        "answer_info": info,
        "values": values,
        "negative_is_stereotyped": negative_position == 0,
        "combination": 0,
    }
    return [
        EsbbqInstance(
            question_polarity="neg", context_condition="ambig", context=ambiguous,
            question=negative_question, question_type="n/a", label=2, **common,
        ),
        EsbbqInstance(
            question_polarity="neg", context_condition="disambig", context=disambiguated,
            question=negative_question, question_type=negative_type, label=negative_position,
            **common,
        ),
        EsbbqInstance(
            question_polarity="nonneg", context_condition="ambig", context=ambiguous,
            question=non_negative_question, question_type="n/a", label=2, **common,
        ),
        EsbbqInstance(
            question_polarity="nonneg", context_condition="disambig", context=disambiguated,
            question=non_negative_question, question_type=non_negative_type,
            label=non_negative_position, **common,
        ),
    ]  # fmt: skip


# --- the published row -------------------------------------------------------------------------

PUBLISHED_COLUMNS = (
    "instance_id",
    "template_id",
    "version",
    "template_label",
    "flipped",
    "question_polarity",
    "context_condition",
    "category",
    "subcategory",
    "relevant_social_value",
    "stereotyped_groups",
    "answer_info.ans0",
    "answer_info.ans1",
    "answer_info.ans2",
    "stated_gender_info",
    "proper_nouns_only",
    "context",
    "question",
    "ans0",
    "ans1",
    "ans2",
    "question_type",
    "label",
    "source",
)


def template_fields(row: dict[str, str]) -> dict[str, Any]:
    """What every instance of a template row repeats (generate_instances' base dict), with the
    script's defaults for absent columns."""
    return {
        "template_id": row.get("esbbq_template_id"),
        "version": row.get("version", "None"),
        "template_label": row.get("label"),
        "category": row.get("esbbq_category"),
        "subcategory": row.get("subcategory", ""),
        "relevant_social_value": row.get("relevant_social_values"),
        "stereotyped_groups": parse_list(row.get("stereotyped_groups", "")),
        "stated_gender_info": row.get("stated_gender_info", ""),
        "proper_nouns_only": is_set(row.get("proper_nouns_only", "")),
        "source": parse_list(row.get("esbbq_source", "")),
    }


def _csv_cell(value: Any) -> str:
    """pandas.DataFrame.to_csv's rendering of one cell."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple, dict, bool)):
        return repr(value) if not isinstance(value, bool) else str(value)
    return str(value)


def published_row(instance_id: int, template: dict[str, Any], instance: EsbbqInstance) -> list[str]:
    """The instance as one row of the published `<Category>.full.csv`, cell by cell."""
    values: dict[str, Any] = {
        **template,
        "instance_id": instance_id,
        "flipped": instance.flipped,
        "question_polarity": instance.question_polarity,
        "context_condition": instance.context_condition,
        "answer_info.ans0": instance.answer_info["ans0"],
        "answer_info.ans1": instance.answer_info["ans1"],
        "answer_info.ans2": instance.answer_info["ans2"],
        "context": instance.context,
        "question": instance.question,
        "ans0": instance.ans0,
        "ans1": instance.ans1,
        "ans2": instance.ans2,
        "question_type": instance.question_type,
        "label": instance.label,
    }
    return [_csv_cell(values[column]) for column in PUBLISHED_COLUMNS]


# --- the Kasauti generator interface -----------------------------------------------------------

# Kasauti's name_order is the order of the groups in the ambiguous context.
_NAME_ORDER = {"original": "12", "ambig": "21", "disambig": "12", "all": "21"}
_ROLES = (STEREOTYPED, NON_STEREOTYPED, UNKNOWN)


def _pairing(instance: EsbbqInstance) -> str:
    """Kasauti's pairing: a disambiguated instance's question type; an ambiguous instance gets
    the pairing of the texts as written."""
    if instance.question_type == "n/a":
        stereotypical = instance.negative_is_stereotyped
    else:
        stereotypical = instance.question_type == "pro-stereo"
    return STEREOTYPICAL if stereotypical else ANTI_STEREOTYPICAL


# Kasauti's text fields and the EsBBQ columns they were imported from.
TEXT_COLUMNS = {
    "ambiguous_context": "ambiguous_context",
    "disambiguating_context": "disambiguating_context",
    "question_negative": "question_negative_stereotype",
    "question_non_negative": "question_non_negative",
    "answer_negative": "answer_negative",
    "answer_non_negative": "answer_non_negative",
}


def edited_data(spec: TemplateSpec) -> dict[str, Any]:
    """The generator data with the version's texts where a reviewer edited them: the importer
    records the texts as imported (`texts`), so an unchanged text keeps the published cell
    byte for byte and an edited one is what gets generated."""
    data = spec.generator_data
    imported = data.get("texts") or {}
    row = dict(data.get("row") or {})
    changed = False
    for name, column in TEXT_COLUMNS.items():
        text = getattr(spec, name)
        if name in imported and text != imported[name]:
            row[column] = text
            changed = True
    return {**data, "row": row} if changed else data


class EsBbqGenerator:
    """The registry entry (apps/catalog/generators): EsBBQ's own script, exactly."""

    def validate(self, spec: TemplateSpec) -> list[Problem]:
        try:
            instances = generate(edited_data(spec), spec.language)
        except GenerationError as error:
            return [Problem("generator_data", str(error))]
        if not instances:
            return [Problem("generator_data", "the template generates no instance")]
        return []

    def count(self, spec: TemplateSpec, *, permutations: bool) -> int:
        # The four flips are part of EsBBQ's own generator: permutations change nothing.
        return len(generate(edited_data(spec), spec.language))

    def combinations(
        self, spec: TemplateSpec, unknown_expressions: Sequence[str], *, permutations: bool
    ) -> Iterator[Combination]:
        # EsBBQ writes the literal "unknown" as the third option (resolved at evaluation time),
        # so the language's unknown expressions are not drawn here.
        groups: dict[int, list[EsbbqInstance]] = {}
        for instance in generate(edited_data(spec), spec.language):
            groups.setdefault(instance.combination, []).append(instance)
        for index, group in groups.items():
            first = group[0]
            yield Combination(
                index,
                dict(first.values),
                (first.ans0, first.ans1, first.ans2),
                _ROLES,
                first.answer_info,
                [
                    (
                        _NAME_ORDER[i.flipped],
                        i.context_condition,
                        i.question_polarity,
                        _pairing(i),
                        i.context,
                        i.question,
                        i.label,
                    )
                    for i in group
                ],
                {"flipped": first.flipped},
            )
