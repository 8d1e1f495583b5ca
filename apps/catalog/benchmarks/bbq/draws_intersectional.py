"""BBQ's intersectional loops (`generate_from_template_intersectional_cats.py`: Race_x_gender,
Race_x_SES), ported step by step like the single-category ones in draws.py (see its docstring)."""

from __future__ import annotations

import random
from typing import Any

from .draws import (
    Draw,
    DrawError,
    draw_choice,
    draw_first,
    draw_lexical,
    draw_sample,
    draw_unique,
    literal_list,
)


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
    possible = draw_unique([v[2] for v in vocab if v[0] == "Race_ethnicity"])
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
        return draw_unique(
            [v[2] for v in vocab if v[0] == "SES" and (v[3] == target_var2) == matching]
        )

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
        word_list = draw_sample(rng, [v[0] for v in first_names], 5, "first names")
    all_last = [v for v in names_vocab if v[1] == "last"]

    def full_name(first: tuple, info_by_name: dict[str, str]) -> str:
        candidates = draw_unique([v[0] for v in all_last if v[3] == first[3]])
        name = f"{first[0]} {draw_choice(rng, candidates, 'last names')}"
        info_by_name[name] = f"{first[2]}-{first[3]}"
        return name

    draws: list[Draw] = []
    for j, first_word in enumerate(word_list):
        info1: str | None = None
        info2_by_name: dict[str, str] = {}
        word1 = word2 = ""
        t_word = first_word
        new_word_list: list[Any] = draw_sample(
            rng, [n for n in possible if n not in word_list], 5, "other race words"
        )
        if has_proper:
            gender = draw_first(first_names, t_word, 0, 2, "first names")
            ethnicity = draw_first(first_names, t_word, 0, 3, "first names")
            info1 = f"{gender}-{ethnicity}"
            last = draw_unique([v[0] for v in all_last if v[3] == ethnicity])
            t_word = f"{t_word} {draw_choice(rng, last, 'last names')}"
            if cat == "Race_x_SES":
                diff_race = draw_sample(
                    rng,
                    [v for v in first_full if v[3] not in bias_targets and v[2] == gender],
                    5,
                    "first names of another race",
                )
                same_race = draw_sample(
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
                    draw_sample(rng, [v for v in same_race if v[2] != gender], 5, "names (a)"),
                    draw_sample(rng, [v for v in other_race if v[2] == gender], 5, "names (b)"),
                    draw_sample(rng, [v for v in other_race if v[2] != gender], 5, "names (c)"),
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
                t_word_gs = draw_choice(rng, t_word_gs, "target SES words")
                non_t_word_gs = draw_choice(rng, non_t_word_gs, "other SES words")
            word1, word2 = draw_lexical(row, rng, word1, word2)
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
