"""Which names and words fill each BBQ instance: BBQ's own pairing rules, step by step.

A port of the sampling loops of nyu-mll/BBQ `generate_from_template_all_categories.py` and
`generate_from_template_intersectional_cats.py` (one function each: this module and
draws_intersectional.py; generator.draws_for picks one), kept in the original's
order of decisions so that a reader can check them side by side. The only intended difference
is the random source: the original uses Python's global `random` (and pandas' `.sample`)
without a seed, so its draws cannot be replayed; here every draw comes from the `random.Random`
the caller passes in, seeded from the seed Kasauti records, so a run is reproducible.

Each draw is one call of the original's `create_templating_dicts`: four instances.

Input is `generator_data` as the BBQ reader writes it (see templates.py):
    category      BBQ's `cat` (the template file's category, e.g. "Race_x_SES")
    row           the template row's cells the loops read (None = the column is absent)
    vocabulary    [[Category, SubCat, Name, Info], ...] of vocabulary.csv (Pilot_include != No)
    proper_names  [[Name, First_last, gender, ethnicity], ...] of vocabulary_proper_names.csv
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass
from typing import Any

# Categories whose NAME2 comes from the groups that are not stereotyped, and whose pairs are
# generated in both orders (the original's `need_stereotyping_subset`).
NEED_STEREOTYPING_SUBSET = ("Race_ethnicity", "Religion", "Nationality", "Sexual_orientation")
INTERSECTIONAL = ("Race_x_gender", "Race_x_SES")


class DrawError(ValueError):
    """The template row makes the original generator fail (it would crash on it too)."""


@dataclass(frozen=True)
class Draw:
    """The arguments of one `do_slotting` + `create_templating_dicts` call."""

    order: str  # "12" as the loop pairs them, "21" for the counterbalancing reversal
    name1: str
    name2: str
    info1: str | None
    info2: str | None
    gs1: str | None = None  # intersectional: the gender/SES word of NAME1 ({{GEN1}}/{{OCC1}})
    gs2: str | None = None
    word1: str = ""
    word2: str = ""
    # Lexical_diversity is given: {{WORDn}} are replaced (by "" when no value was drawn).
    lexical: bool = False
    subcategory: str = "None"
    # Intersectional label templates look both words up in the answers (a list in the original).
    paired_answer_info: bool = False


def return_list_from_string(text: str) -> tuple[list[str], Any]:
    """BBQ utils.return_list_from_string, quirks included: only the WORD1/NAME1 and WORD2/NAME2
    chunks count, and WORD2's list survives only if its chunk is the last one."""
    words1: list[str] | None = None
    words2: Any = ""
    for chunk in text.split(";"):
        if "WORD1" in chunk or "NAME1" in chunk:
            body = (
                chunk.replace("WORD1:", "")
                .replace("{{WORD1}}:", "")
                .replace("NAME1:", "")
                .replace("{{NAME1}}:", "")
            )
            words1 = [w.strip() for w in body.strip().replace("[", "").replace("]", "").split(",")]
        if "WORD2" in chunk or "NAME2" in chunk:
            body = (
                chunk.replace("WORD2:", "")
                .replace("{{WORD2}}:", "")
                .replace("NAME2:", "")
                .replace("{{NAME2}}:", "")
            )
            words2 = [w.strip() for w in body.strip().replace("[", "").replace("]", "").split(",")]
        else:
            words2 = ""
    if words1 is None:
        raise DrawError(f"no WORD1/NAME1 list in {text!r} (the original fails on this row)")
    return words1, words2


def literal_list(text: str, column: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError) as error:
        raise DrawError(f"{column} {text!r} is not a Python literal: {error}") from None


def draw_unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def draw_sample(rng: random.Random, values: list, n: int, what: str) -> list:
    if len(values) < n:
        raise DrawError(f"cannot sample {n} {what} from {len(values)} (the original fails too)")
    return rng.sample(values, n)


def draw_choice(rng: random.Random, values: list, what: str) -> Any:
    if not values:
        raise DrawError(f"no {what} to choose from (the original fails too)")
    return rng.choice(values)


def draw_first(rows: list, match: Any, key: int, value: int, what: str) -> str:
    for row in rows:
        if row[key] == match:
            return row[value]
    raise DrawError(f"{match!r} is not in the {what} (the original fails too)")


def draw_lexical(row: dict, rng: random.Random, word1: str, word2: str) -> tuple[str, str]:
    lex = row.get("lexical_diversity") or ""
    if len(lex) > 1:
        list1, list2 = return_list_from_string(lex)
        word1 = draw_choice(rng, list1, "WORD1 value")
        if len(list2) > 1:  # a WORD2 list of one value is never used: the original's check
            word2 = rng.choice(list2)
    return word1, word2


def single_category_draws(data: dict, rng: random.Random) -> list[Draw]:
    """generate_from_template_all_categories.py, for one template row."""
    cat = data["category"]
    row = data["row"]
    vocab = [tuple(v) for v in data.get("vocabulary", [])]
    names_vocab = [tuple(v) for v in data.get("proper_names", [])]
    words = [v for v in vocab if v[0] == cat]
    possible = draw_unique([v[2] for v in words])
    raw_targets = row.get("known_stereotyped_groups") or ""
    if len(raw_targets) > 1 and cat in NEED_STEREOTYPING_SUBSET:
        bias_targets = literal_list(raw_targets, "Known_stereotyped_groups")
        targeted = [x for x in possible if x in bias_targets]
    else:
        targeted = possible
        bias_targets = literal_list(raw_targets, "Known_stereotyped_groups")
    if len(targeted) > 4:
        word_list = rng.sample(targeted, 5)
    elif len(possible) < 2:
        word_list = []
    else:
        word_list = list(targeted)

    has_proper = row.get("proper_nouns_only") == "TRUE"
    subcat = row.get("subcategory")
    this_subcat = "None"
    if subcat is not None and len(subcat) > 1:
        this_subcat = subcat
        words = [v for v in words if v[1] == subcat]
        word_list = draw_unique([v[2] for v in words])
        if len(word_list) > 5:
            word_list = rng.sample(word_list, 5)

    critical = row.get("names") or ""
    new_word_list: list[str] = []
    if len(critical) > 1:
        word_list, new_word_list = return_list_from_string(critical)

    first_rows = [v for v in names_vocab if v[1] == "first"]
    first_only = [v for v in names_vocab if v[1] == "first_only"]
    first_names: list = []
    if has_proper:
        if cat == "Race_ethnicity":
            first_names = (
                [v for v in first_rows if v[3] in bias_targets] if len(bias_targets) >= 1
                else first_rows
            )  # fmt: skip
            word_list = draw_sample(rng, [v[0] for v in first_names], 5, "first names")
        elif cat == "Gender_identity":
            first_names = first_only
            female = [v[0] for v in first_names if v[2] == "F"]
            word_list = draw_sample(rng, female, 5, "female first names")
        else:
            first_names = first_only
            word_list = draw_sample(rng, [v[0] for v in first_names], 6, "first names")

    draws: list[Draw] = []
    for this_word in word_list:
        info1: str | None = None
        info2: str | None = None
        word1 = word2 = ""
        info2_by_name: dict[str, str] = {}
        if len(critical) < 2:
            if len(bias_targets) > 0 and cat in NEED_STEREOTYPING_SUBSET:
                new_word_list = [n for n in possible if n not in bias_targets]
                if len(new_word_list) > 4:
                    new_word_list = rng.sample(new_word_list, 5)
            else:
                new_word_list = [n for n in word_list if n != this_word]
            if cat == "SES" and not has_proper:
                word_cat = draw_first(words, this_word, 2, 3, "SES vocabulary")
                info1 = word_cat
                new_word_list = draw_unique([v[2] for v in words if v[3] != word_cat])
            if cat == "Gender_identity" and has_proper:
                gender = draw_first(first_names, this_word, 0, 2, "first names")
                info1 = gender
                others = draw_unique([v[0] for v in first_names if v[2] != gender])
                new_word_list = draw_sample(rng, others, 5, "first names of another gender")
            if cat == "Race_ethnicity" and has_proper:
                gender = draw_first(first_names, this_word, 0, 2, "first names")
                ethnicity = draw_first(first_names, this_word, 0, 3, "first names")
                info1 = f"{gender}-{ethnicity}"
                last = draw_unique(
                    [v[0] for v in names_vocab if v[1] == "last" and v[3] == ethnicity]
                )
                this_word = f"{this_word} {draw_choice(rng, last, 'last names')}"
                others = [v for v in first_rows if v[3] not in bias_targets and v[2] == gender]
                others = draw_sample(rng, others, 5, "first names of other ethnicities")
                other_last = [v for v in names_vocab if v[1] == "last" and v[3] not in bias_targets]
                new_word_list = []
                for first, _, other_gender, other_ethnicity in others:
                    candidates = draw_unique([v[0] for v in other_last if v[3] == other_ethnicity])
                    full = f"{first} {draw_choice(rng, candidates, 'last names')}"
                    new_word_list.append(full)
                    info2_by_name[full] = f"{other_gender}-{other_ethnicity}"

        for k, this_word_2 in enumerate(new_word_list):
            word1, word2 = draw_lexical(row, rng, word1, word2)
            if info1 is not None and cat == "Race_ethnicity" and has_proper:
                info2 = info2_by_name[this_word_2]
            elif cat == "Gender_identity" and has_proper:
                try:
                    info2 = draw_first(first_names, this_word_2, 0, 2, "first names")
                except DrawError:
                    info2 = this_word_2
                if (row.get("name1_info") or "") != "":
                    if k == 0:
                        info1 = f"{row['name1_info']}_{info1}"
                    info2 = f"{row.get('name2_info') or ''}_{info2}"
            elif cat == "Nationality" or (cat == "SES" and this_subcat == "Occupation"):
                info1 = draw_first(vocab, this_word, 2, 3, "vocabulary")
                info2 = draw_first(vocab, this_word_2, 2, 3, "vocabulary")
            elif row.get("name1_info") is not None:
                if row["name1_info"] != "":
                    info1, info2 = row["name1_info"], row.get("name2_info") or ""
                else:
                    info1, info2 = this_word, this_word_2
            else:
                info1, info2 = this_word, this_word_2
            common = {
                "word1": word1,
                "word2": word2,
                "lexical": len(row.get("lexical_diversity") or "") > 1,
                "subcategory": this_subcat,
            }
            draws.append(Draw("12", this_word, this_word_2, info1, info2, **common))
            if (
                cat in NEED_STEREOTYPING_SUBSET
                or has_proper
                or (cat == "SES" and this_subcat == "Occupation")
            ):
                draws.append(Draw("21", this_word_2, this_word, info2, info1, **common))
    return draws
