"""EsBBQ's utils.fill_template and utils.generate_instances, reproduced: one template row filled
with one NAME1/NAME2 pair and one lexical assignment, and the four instances of the filled row.
The loops that call them are in script.py. Pure: no database, no Django."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .text import (
    GenerationError,
    finish_text,
    first_row,
    split_and_strip,
    word_in_str,
)

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
VARIABLE_RE = re.compile(r"\{\{([^\}]+)\}\}")


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
class RowContext:
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


def row_fill(
    ctx: RowContext,
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
        for variable in VARIABLE_RE.findall(text):
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


def _bare_value(label: str, values: dict[str, str], ctx: RowContext) -> str:
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


def row_fill_instances(
    ctx: RowContext,
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
