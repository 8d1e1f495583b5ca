"""BBQ's own generator (nyu-mll/BBQ), reproduced from the data the BBQ reader keeps.

`bbq_draws` decides which names and words fill each group of four instances (the pairing
rules); this module fills the template texts as BBQ's `utils.do_slotting` does (plain string
replacement plus its a/an and wording fixes), orders the answers and picks the unknown phrase
as `utils.create_templating_dicts` does, and builds BBQ's `answer_info`. All randomness comes
from one `random.Random(f"{seed}:{template_id}")`: the seed is recorded in `generator_data`,
so a run is reproducible and a re-import with the same seed is not a change.

Instances per draw, in BBQ's order: (neg, ambig), (neg, disambig), (nonneg, ambig),
(nonneg, disambig). Kasauti's option roles (stereotyped / non-stereotyped / unknown) come from
the answer_info group codes matched against the template's stereotyped groups, normalised as
the authors' results script does (BBQ_results_metadata.R: man/boy -> M, "low SES" -> lowSES).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence

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

from .draws import INTERSECTIONAL, Draw, DrawError, single_category_draws
from .draws_intersectional import intersectional_draws

# BBQ's `unknown_options`, used when generator_data does not carry its own list.
UNKNOWN_OPTIONS = (
    "Unknown",
    "Cannot be determined",
    "Can't be determined",
    "Not answerable",
    "Not known",
    "Not enough info",
    "Not enough information",
    "Cannot answer",
    "Can't answer",
    "Undetermined",
)
_A_BEFORE_VOWEL = re.compile(r"(\s[aA])(\s[aAeEiIoOuU])")
_VOWEL_START = re.compile(r"^[aeiou]")


def draws_for(data: dict, rng: random.Random) -> list[Draw]:
    """The draws of one template row: BBQ's intersectional loops or its single-category ones."""
    if data.get("category") in INTERSECTIONAL:
        return intersectional_draws(data, rng)
    return single_category_draws(data, rng)


def rng_for(spec: TemplateSpec) -> random.Random:
    seed = spec.generator_data.get("seed", 0)
    return random.Random(f"{seed}:{spec.template_id}")


def slot(text: str, draw: Draw) -> str:
    """utils.do_slotting for one cell."""
    text = text.replace("{{NAME1}}", draw.name1).replace("{{NAME2}}", draw.name2)
    if draw.gs1 is not None:
        text = text.replace("{{GEN1}}", draw.gs1).replace("{{GEN2}}", str(draw.gs2))
        text = text.replace("{{OCC1}}", draw.gs1).replace("{{OCC2}}", str(draw.gs2))
    if draw.lexical:
        text = text.replace("{{WORD1}}", draw.word1).replace("{{WORD2}}", draw.word2)
    # The original's own wording fixes, kept so that the output is BBQ's.
    if "lesbian man" in text:
        text = text.replace("lesbian man", "lesbian woman")
    if "Latino woman" in text:
        text = text.replace("Latino woman", "Latina woman")
    if any(
        _VOWEL_START.search(str(word).lower())
        for word in (draw.name1, draw.name2, draw.gs1, draw.gs2)
    ):
        text = _A_BEFORE_VOWEL.sub(r"\1n\2", text)
        text = text.replace(" an European", " a European")
    return text


def answer_info(
    draw: Draw, ans_neg: str, ans_non_neg: str, answers: list[str], unknown: str
) -> dict[str, list[str]]:
    """create_templating_dicts' answer_info: a NAME's text and group code go to the answer
    whose text contains the name (later matches overwrite earlier ones, as published)."""
    info = {"ans0": ["", ""], "ans1": ["", ""], "ans2": ["", ""]}
    neg_key = f"ans{answers.index(ans_neg)}"
    non_neg_key = f"ans{answers.index(ans_non_neg)}"
    if draw.paired_answer_info:
        names = [
            ([draw.name1, " man" if draw.gs1 == "man" else str(draw.gs1)], draw.info1),
            ([draw.name2, " man" if draw.gs2 == "man" else str(draw.gs2)], draw.info2),
        ]
        for (race, word), group in names:
            text = f"{race} {word.lstrip()}"
            if race in ans_neg and word in ans_neg:
                info[neg_key] = [text, group]
            if race in ans_non_neg and word in ans_non_neg:
                info[non_neg_key] = [text, group]
    else:
        for name, group in ((draw.name1, draw.info1), (draw.name2, draw.info2)):
            name = " man" if name == "man" else name
            if name in ans_neg:
                info[neg_key] = [name.lstrip(), group]
            if name in ans_non_neg:
                info[non_neg_key] = [name.lstrip(), group]
    info[f"ans{answers.index(unknown)}"] = [unknown, "unknown"]
    return info


# --- option roles: which answer is the stereotyped group -----------------------------------

_GENDER_CODES = {"man": "m", "boy": "m", "men": "m", "woman": "f", "girl": "f", "women": "f",
                 "girls": "f"}  # fmt: skip


def normalise_group(code: object) -> str:
    """A group code as BBQ_results_metadata.R compares it: lower case, man/boy -> m,
    woman/girl -> f, an M-/F- prefix dropped, "low SES" -> lowses."""
    text = str(code or "").strip().lower()
    text = _GENDER_CODES.get(text, text)
    if text.startswith(("m-", "f-")):
        text = text[2:]
    return text.replace("low ses", "lowses").replace("high ses", "highses")


def _is_target(spec: TemplateSpec, group: object, text: str) -> bool:
    data = spec.generator_data
    if data.get("category") in INTERSECTIONAL:
        return _is_intersectional_target(data, str(group or ""))
    known = [normalise_group(g) for g in spec.generator_data.get("stereotyped_groups", [])]
    code = normalise_group(group)
    if not code:
        return False
    if data.get("category") == "Age":  # 'old' is inside 'nonold': the script's own fix
        return code in known
    if data.get("category") == "Nationality" and text.strip().lower() in ", ".join(known):
        return True
    return (
        code in known
        or any(code in k for k in known)
        or ("trans" in known and code.startswith("trans"))
    )


def _is_intersectional_target(data: dict, group: str) -> bool:
    target_var2 = str(data.get("row", {}).get("known_stereotyped_var2") or "")
    known_race = {r.casefold() for r in data.get("stereotyped_groups", [])}
    parts = group.split("-")
    if len(parts) < 2 or parts[0] != target_var2:
        return False
    race = parts[-1]
    return race.casefold() in known_race


def option_roles(
    spec: TemplateSpec, draw: Draw, info: dict[str, list[str]]
) -> tuple[str, str, str]:
    roles = []
    targets = []
    for key in ("ans0", "ans1", "ans2"):
        text, group = info[key]
        if group == "unknown":
            roles.append(UNKNOWN)
            targets.append(False)
        else:
            roles.append("")
            targets.append(_is_target(spec, group, text))
    if sum(targets) == 1:
        return tuple(STEREOTYPED if t else (r or NON_STEREOTYPED) for r, t in zip(
            roles, targets, strict=True))  # type: ignore[return-value]  # fmt: skip
    return ()  # type: ignore[return-value]  # undecided: the caller falls back on the texts


# --- the generator ---------------------------------------------------------------------------


class BbqGenerator:
    """Generator protocol (apps/catalog/generators) for BBQ templates."""

    def validate(self, spec: TemplateSpec) -> list[Problem]:
        problems = []
        data = spec.generator_data
        if not isinstance(data, dict) or "category" not in data or "row" not in data:
            return [Problem("generator_data", "BBQ templates need category and row data")]
        for name in ("ambiguous_context", "question_negative", "question_non_negative"):
            if not getattr(spec, name).strip():
                problems.append(Problem(name, "is empty"))
        try:
            draws_for(data, rng_for(spec))
        except DrawError as error:
            problems.append(Problem("generator_data", str(error)))
        return problems

    def count(self, spec: TemplateSpec, *, permutations: bool) -> int:
        # BBQ fixes its own orders (the reversal is part of its pairing rules): no permutations.
        return 4 * len(draws_for(spec.generator_data, rng_for(spec)))

    def combinations(
        self, spec: TemplateSpec, unknown_expressions: Sequence[str], *, permutations: bool
    ) -> Iterator[Combination]:
        for _, combination in self.drawn_combinations(spec):
            yield combination

    def drawn_combinations(self, spec: TemplateSpec) -> Iterator[tuple[Draw, Combination]]:
        """Each combination with the draw it renders (the importer checks the draws)."""
        rng = rng_for(spec)
        draws = draws_for(spec.generator_data, rng)
        unknowns = spec.generator_data.get("unknown_options") or list(UNKNOWN_OPTIONS)
        for index, draw in enumerate(draws):
            yield draw, self._combination(spec, index, draw, unknowns, rng)

    def _combination(
        self,
        spec: TemplateSpec,
        index: int,
        draw: Draw,
        unknowns: Sequence[str],
        rng: random.Random,
    ) -> Combination:
        ambiguous = slot(spec.ambiguous_context, draw)
        disambiguating = slot(spec.disambiguating_context, draw)
        q_neg = slot(spec.question_negative, draw).strip()
        q_non_neg = slot(spec.question_non_negative, draw).strip()
        ans_neg = slot(spec.answer_negative, draw)
        ans_non_neg = slot(spec.answer_non_negative, draw)
        unknown = rng.choice(list(unknowns))
        answers = [ans_neg, ans_non_neg, unknown]
        rng.shuffle(answers)
        neg_place = answers.index(ans_neg)
        non_neg_place = answers.index(ans_non_neg)
        unknown_place = answers.index(unknown)
        info = answer_info(draw, ans_neg, ans_non_neg, answers, unknown)
        roles = option_roles(spec, draw, info)
        if not roles:
            # No single answer carries a stereotyped group code (a defect the import reports):
            # fall back on the template as written, where Answer_negative names the target iff
            # the template is stereotypical, reversed for the counterbalanced order.
            neg_is_target = (spec.pairing == STEREOTYPICAL) != (draw.order == "21")
            fallback = [NON_STEREOTYPED] * 3
            fallback[neg_place if neg_is_target else non_neg_place] = STEREOTYPED
            fallback[unknown_place] = UNKNOWN
            roles = tuple(fallback)  # type: ignore[assignment]
        pairing = STEREOTYPICAL if roles[neg_place] == STEREOTYPED else ANTI_STEREOTYPICAL
        ambiguous_text = ambiguous.strip()
        disambiguated = f"{ambiguous.strip()} {disambiguating}".strip()
        variants = [
            (draw.order, "ambig", "neg", pairing, ambiguous_text, q_neg, unknown_place),
            (draw.order, "disambig", "neg", pairing, disambiguated, q_neg, neg_place),
            (draw.order, "ambig", "nonneg", pairing, ambiguous_text, q_non_neg, unknown_place),
            (draw.order, "disambig", "nonneg", pairing, disambiguated, q_non_neg, non_neg_place),
        ]
        values = {"NAME1": draw.name1, "NAME2": draw.name2}
        if draw.gs1 is not None:
            values.update({"GS1": str(draw.gs1), "GS2": str(draw.gs2)})
        if draw.word1:
            values["WORD1"] = draw.word1
        if draw.word2:
            values["WORD2"] = draw.word2
        if draw.subcategory != "None":
            values["subcategory"] = draw.subcategory
        return Combination(index, values, tuple(answers), roles, info, variants)  # type: ignore[arg-type]
