"""Which names and words fill each BBQ instance: BBQ's own pairing rules, step by step.

A port of the sampling loops of nyu-mll/BBQ `generate_from_template_all_categories.py` and
`generate_from_template_intersectional_cats.py` (one function each), kept in the original's
order of decisions so that a reader can check them side by side. The only intended difference
is the random source: the original uses Python's global `random` (and pandas' `.sample`)
without a seed, so its draws cannot be replayed; here every draw comes from the `random.Random`
the caller passes in, seeded from the seed Kasauti records, so a run is reproducible.

Each draw is one call of the original's `create_templating_dicts`: four instances.

Input is `generator_data` as the BBQ reader writes it (see apps/catalog/importers/bbq.py):
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


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _sample(rng: random.Random, values: list, n: int, what: str) -> list:
    if len(values) < n:
        raise DrawError(f"cannot sample {n} {what} from {len(values)} (the original fails too)")
    return rng.sample(values, n)


def _choice(rng: random.Random, values: list, what: str) -> Any:
    if not values:
        raise DrawError(f"no {what} to choose from (the original fails too)")
    return rng.choice(values)


def _first(rows: list, match: Any, key: int, value: int, what: str) -> str:
    for row in rows:
        if row[key] == match:
            return row[value]
    raise DrawError(f"{match!r} is not in the {what} (the original fails too)")


def _lexical(row: dict, rng: random.Random, word1: str, word2: str) -> tuple[str, str]:
    lex = row.get("lexical_diversity") or ""
    if len(lex) > 1:
        list1, list2 = return_list_from_string(lex)
        word1 = _choice(rng, list1, "WORD1 value")
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
    possible = _unique([v[2] for v in words])
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
        word_list = _unique([v[2] for v in words])
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
            word_list = _sample(rng, [v[0] for v in first_names], 5, "first names")
        elif cat == "Gender_identity":
            first_names = first_only
            female = [v[0] for v in first_names if v[2] == "F"]
            word_list = _sample(rng, female, 5, "female first names")
        else:
            first_names = first_only
            word_list = _sample(rng, [v[0] for v in first_names], 6, "first names")

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
                word_cat = _first(words, this_word, 2, 3, "SES vocabulary")
                info1 = word_cat
                new_word_list = _unique([v[2] for v in words if v[3] != word_cat])
            if cat == "Gender_identity" and has_proper:
                gender = _first(first_names, this_word, 0, 2, "first names")
                info1 = gender
                others = _unique([v[0] for v in first_names if v[2] != gender])
                new_word_list = _sample(rng, others, 5, "first names of another gender")
            if cat == "Race_ethnicity" and has_proper:
                gender = _first(first_names, this_word, 0, 2, "first names")
                ethnicity = _first(first_names, this_word, 0, 3, "first names")
                info1 = f"{gender}-{ethnicity}"
                last = _unique([v[0] for v in names_vocab if v[1] == "last" and v[3] == ethnicity])
                this_word = f"{this_word} {_choice(rng, last, 'last names')}"
                others = [v for v in first_rows if v[3] not in bias_targets and v[2] == gender]
                others = _sample(rng, others, 5, "first names of other ethnicities")
                other_last = [v for v in names_vocab if v[1] == "last" and v[3] not in bias_targets]
                new_word_list = []
                for first, _, other_gender, other_ethnicity in others:
                    candidates = _unique([v[0] for v in other_last if v[3] == other_ethnicity])
                    full = f"{first} {_choice(rng, candidates, 'last names')}"
                    new_word_list.append(full)
                    info2_by_name[full] = f"{other_gender}-{other_ethnicity}"

        for k, this_word_2 in enumerate(new_word_list):
            word1, word2 = _lexical(row, rng, word1, word2)
            if info1 is not None and cat == "Race_ethnicity" and has_proper:
                info2 = info2_by_name[this_word_2]
            elif cat == "Gender_identity" and has_proper:
                try:
                    info2 = _first(first_names, this_word_2, 0, 2, "first names")
                except DrawError:
                    info2 = this_word_2
                if (row.get("name1_info") or "") != "":
                    if k == 0:
                        info1 = f"{row['name1_info']}_{info1}"
                    info2 = f"{row.get('name2_info') or ''}_{info2}"
            elif cat == "Nationality" or (cat == "SES" and this_subcat == "Occupation"):
                info1 = _first(vocab, this_word, 2, 3, "vocabulary")
                info2 = _first(vocab, this_word_2, 2, 3, "vocabulary")
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


def _other_var2(target: str) -> str | None:
    return {"M": "F", "F": "M", "lowSES": "highSES", "highSES": "lowSES"}.get(target)


def intersectional_draws(data: dict, rng: random.Random) -> list[Draw]:
    """generate_from_template_intersectional_cats.py, for one template row: per pair of race
    words, three contrasts (a: same race, other gender/SES; b: other race, same gender/SES;
    c: both differ), each generated in both orders."""
    cat = data["category"]
    row = data["row"]
    vocab = [tuple(v) for v in data.get("vocabulary", [])]
    names_vocab = [tuple(v) for v in data.get("proper_names", [])]
    possible = _unique([v[2] for v in vocab if v[0] == "Race_ethnicity"])
    raw_targets = row.get("known_stereotyped_race") or ""
    if len(raw_targets) > 0:
        bias_targets = literal_list(raw_targets, "Known_stereotyped_race")
        targeted = [x for x in possible if x in bias_targets]
    else:
        targeted = possible
        bias_targets = []
    word_list = rng.sample(targeted, 5) if len(targeted) > 4 else list(targeted)
    has_proper = row.get("proper_nouns_only") == "TRUE"
    names_cell = row.get("names") or ""
    critical: Any = literal_list(names_cell, "Names") if len(names_cell) > 1 else names_cell
    info_cell = row.get("var2_info") or ""
    critical_info: Any = literal_list(info_cell, "Var2_info") if len(info_cell) > 1 else info_cell
    target_var2 = row.get("known_stereotyped_var2") or ""
    nontarget_var2 = _other_var2(target_var2)

    def ses_words(matching: bool) -> list[str]:
        return _unique([v[2] for v in vocab if v[0] == "SES" and (v[3] == target_var2) == matching])

    if (cat == "Race_x_gender" and not has_proper) or names_cell != "":
        try:
            t_loc = critical_info.index(target_var2)
            t_word_gs: Any = critical[t_loc]
            non_t_word_gs: Any = critical[1 - t_loc]
        except (ValueError, IndexError, AttributeError, TypeError):
            raise DrawError(
                f"Known_stereotyped_var2 {target_var2!r} is not one of Var2_info "
                f"{info_cell!r} with Names {names_cell!r} (the original fails too)"
            ) from None
    else:
        t_word_gs, non_t_word_gs = ses_words(True), ses_words(False)

    first_full = [v for v in names_vocab if v[1] == "first"]
    first_names: list = []
    if has_proper:
        first_names = [v for v in first_full if v[3] in bias_targets]
        if cat == "Race_x_gender":
            first_names = [v for v in first_names if v[2] == target_var2]
        stated_gender = row.get("stated_gender_info") or ""
        if cat == "Race_x_SES" and stated_gender != "":
            first_names = [v for v in first_names if v[2] == stated_gender]
        word_list = _sample(rng, [v[0] for v in first_names], 5, "first names")
    all_last = [v for v in names_vocab if v[1] == "last"]

    def full_name(first: tuple, info_by_name: dict[str, str]) -> str:
        candidates = _unique([v[0] for v in all_last if v[3] == first[3]])
        name = f"{first[0]} {_choice(rng, candidates, 'last names')}"
        info_by_name[name] = f"{first[2]}-{first[3]}"
        return name

    draws: list[Draw] = []
    for j, first_word in enumerate(word_list):
        info1: str | None = None
        info2_by_name: dict[str, str] = {}
        word1 = word2 = ""
        t_word = first_word
        new_word_list: list[Any] = _sample(
            rng, [n for n in possible if n not in word_list], 5, "other race words"
        )
        if has_proper:
            gender = _first(first_names, t_word, 0, 2, "first names")
            ethnicity = _first(first_names, t_word, 0, 3, "first names")
            info1 = f"{gender}-{ethnicity}"
            last = _unique([v[0] for v in all_last if v[3] == ethnicity])
            t_word = f"{t_word} {_choice(rng, last, 'last names')}"
            if cat == "Race_x_SES":
                diff_race = _sample(
                    rng,
                    [v for v in first_full if v[3] not in bias_targets and v[2] == gender],
                    5,
                    "first names of another race",
                )
                same_race = _sample(
                    rng,
                    [
                        v
                        for v in first_full
                        if v[3] == ethnicity and v[2] == gender and v[0] != word_list[j]
                    ],
                    5,
                    "first names of the same race",
                )
                new_word_list = [
                    [full_name(same, info2_by_name), full_name(diff, info2_by_name)]
                    for same, diff in zip(same_race, diff_race, strict=True)
                ]
            else:
                # a: same race, other gender; b: other race, same gender; c: both differ.
                same_race = [v for v in first_full if v[3] == ethnicity]
                other_race = [v for v in first_full if v[3] != ethnicity]
                groups = [
                    _sample(rng, [v for v in same_race if v[2] != gender], 5, "names (a)"),
                    _sample(rng, [v for v in other_race if v[2] == gender], 5, "names (b)"),
                    _sample(rng, [v for v in other_race if v[2] != gender], 5, "names (c)"),
                ]
                new_word_list = [
                    [full_name(a, info2_by_name), full_name(b, info2_by_name),
                     full_name(c, info2_by_name)]
                    for a, b, c in zip(*groups, strict=True)
                ]  # fmt: skip
        name1_info_static = info1
        for word2_race in new_word_list:
            if names_cell == "" and cat == "Race_x_SES":
                t_word_gs, non_t_word_gs = ses_words(True), ses_words(False)
            if isinstance(t_word_gs, list) and len(t_word_gs) > 0:
                t_word_gs = _choice(rng, t_word_gs, "target SES words")
                non_t_word_gs = _choice(rng, non_t_word_gs, "other SES words")
            word1, word2 = _lexical(row, rng, word1, word2)
            infos = _intersectional_infos(
                cat, row, has_proper, info1, name1_info_static, info2_by_name,
                target_var2, nontarget_var2, t_word, word2_race,
            )  # fmt: skip
            if infos[0] is not None:
                info1 = infos[0]
            info_a, info_b, info_c = infos[1:]
            common = {
                "word1": word1,
                "word2": word2,
                "lexical": len(row.get("lexical_diversity") or "") > 1,
            }
            if not has_proper:
                pairs = (
                    ("intersectional_a", t_word_gs, t_word, non_t_word_gs, info_a),
                    ("intersectional_b", t_word_gs, word2_race, t_word_gs, info_b),
                    ("intersectional_c", t_word_gs, word2_race, non_t_word_gs, info_c),
                )
                for order in ("12", "21"):
                    for sub, gs1, race2, gs2, info2 in pairs:
                        first = (t_word, gs1, info1)
                        second = (race2, gs2, info2)
                        if order == "21":
                            first, second = second, first
                        draws.append(
                            Draw(order, first[0], second[0], first[2], second[2], first[1],
                                 second[1], subcategory=sub, paired_answer_info=True, **common)
                        )  # fmt: skip
            elif cat == "Race_x_gender":
                subs = ("intersectional_a", "intersectional_b", "intersectional_c")
                others = list(zip(subs, word2_race, (info_a, info_b, info_c), strict=True))
                for order in ("12", "21"):
                    for sub, name2, info2 in others:
                        if order == "12":
                            draws.append(Draw(order, t_word, name2, info1, info2,
                                              subcategory=sub, **common))  # fmt: skip
                        else:
                            draws.append(Draw(order, name2, t_word, info2, info1,
                                              subcategory=sub, **common))  # fmt: skip
            else:
                # Race_x_SES proper names: b and c both use the different-race name (as
                # published: word2_race[1] twice), with the target's / the other SES word.
                others = (
                    ("intersectional_a", word2_race[0], non_t_word_gs, info_a),
                    ("intersectional_b", word2_race[1], t_word_gs, info_b),
                    ("intersectional_c", word2_race[1], non_t_word_gs, info_c),
                )
                for order in ("12", "21"):
                    for sub, name2, gs2, info2 in others:
                        first = (t_word, t_word_gs, info1)
                        second = (name2, gs2, info2)
                        if order == "21":
                            first, second = second, first
                        draws.append(
                            Draw(order, first[0], second[0], first[2], second[2], first[1],
                                 second[1], subcategory=sub, paired_answer_info=True, **common)
                        )  # fmt: skip
    return draws


def _intersectional_infos(
    cat: str,
    row: dict,
    has_proper: bool,
    info1: str | None,
    name1_info_static: str | None,
    info2_by_name: dict[str, str],
    target: str,
    nontarget: str | None,
    t_word: str,
    word2_race: Any,
) -> tuple[str | None, str | None, str | None, str | None]:
    """The answer_info labels of NAME1 and of the a/b/c second names, as the original sets
    them (NAME1's is None when the original leaves it unchanged)."""
    var2_info = row.get("var2_info") or ""
    if cat == "Race_x_gender":
        if info1 is not None and has_proper:
            return (
                None,
                info2_by_name[word2_race[0]],
                info2_by_name[word2_race[1]],
                info2_by_name[word2_race[2]],
            )
        if var2_info != "":
            return (
                f"{target}-{t_word}",
                f"{nontarget}-{t_word}",
                f"{target}-{word2_race}",
                f"{nontarget}-{word2_race}",
            )
        return None, None, None, None
    if info1 is not None and has_proper:
        return (
            f"{target}-{name1_info_static}",
            f"{nontarget}-{info2_by_name[word2_race[0]]}",
            f"{target}-{info2_by_name[word2_race[1]]}",
            f"{nontarget}-{info2_by_name[word2_race[1]]}",
        )
    return (
        f"{target}-{t_word}",
        f"{nontarget}-{t_word}",
        f"{target}-{word2_race}",
        f"{nontarget}-{word2_race}",
    )


def draws_for(data: dict, rng: random.Random) -> list[Draw]:
    if data.get("category") in INTERSECTIONAL:
        return intersectional_draws(data, rng)
    return single_category_draws(data, rng)
