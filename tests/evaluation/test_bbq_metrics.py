"""apps.evaluation.metrics.bbq on cases small enough to count by hand.

The expected numbers are worked out in the comments from the definitions in the module
docstring (BharatBBQ eqs. 1-6, BBQ's s_DIS/s_AMB, KoBBQ/EsBBQ's difference of accuracies)."""

import math

import pytest

from apps.evaluation.metrics.bbq import BBQItem, bbq_breakdown, bbq_scores

T, N, U = "target", "non_target", "unknown"


def item(condition, polarity, roles, label, prediction, *, category="Caste", language="hi"):
    return BBQItem(
        category=category,
        language=language,
        context_condition=condition,
        question_polarity=polarity,
        noun_type="common",
        label=label,
        roles=roles,
        prediction=prediction,
    )


AMBIGUOUS = [
    item("ambig", "neg", (T, N, U), 2, 0),  # A1: target to a negative question: S, stereotypical
    item("ambig", "neg", (U, T, N), 0, 2),  # A2: non-target to a negative question: NS, anti
    item("ambig", "nonneg", (T, N, U), 2, 1),  # A3: non-target to non-negative: NS, stereotypical
    item("ambig", "nonneg", (T, N, U), 2, 2),  # A4: unknown: correct
    item("ambig", "neg", (N, U, T), 1, 2),  # A5: target to a negative question: S, stereotypical
]
DISAMBIGUATED = [
    item("disambig", "neg", (T, N, U), 0, 0),  # D1: gold target, neg -> NP; correct; stereotypical
    item("disambig", "neg", (T, N, U), 1, 0),  # D2: gold non-target, neg -> NNP; wrong; stereo
    item("disambig", "nonneg", (T, N, U), 1, 1),  # D3: gold non-target, nonneg -> NP; correct
    item("disambig", "nonneg", (T, N, U), 0, 0),  # D4: gold target, nonneg -> NNP; correct; anti
    item("disambig", "nonneg", (T, N, U), 0, 2),  # D5: NNP; answered unknown; wrong
    item("disambig", "neg", (U, N, T), 1, 1),  # D6: gold non-target, neg -> NNP; correct; anti
]
UNANSWERED = [item("disambig", "neg", (T, N, U), 0, None)]


def test_every_formula_on_a_hand_counted_set():
    scores = bbq_scores(AMBIGUOUS + DISAMBIGUATED + UNANSWERED)
    assert scores["n_amb"] == 5 and scores["n_dis"] == 6 and scores["n_unanswered"] == 1
    assert scores["n_np"] == 2 and scores["n_nnp"] == 4 and scores["n_roles_unclear"] == 0
    # eq. 1: unknown chosen in A4 only: 1/5.
    assert scores["acc_a"] == pytest.approx(0.2)
    # eq. 2: D1, D3, D4, D6 correct: 4/6.
    assert scores["acc_d"] == pytest.approx(4 / 6)
    # eq. 3: S = A1, A5 (2); NS = A2, A3 (2): (2 - 2)/5 = 0.
    assert scores["bs_a"] == pytest.approx(0.0)
    # eq. 4: correct NP = D1, D3 (2); correct NNP = D4, D6 (2); non-unknown answers = 5: 0/5.
    assert scores["bs_d"] == pytest.approx(0.0)
    # eq. 5: S_neg = A1, A5; NS_nonneg = A3: 3/5.
    assert scores["sbs_a"] == pytest.approx(0.6)
    # eq. 6: NNP items D2, D4, D5, D6; stereotypical among them: D2 only: 1/4.
    assert scores["sbs_d"] == pytest.approx(0.25)
    # BBQ s_DIS: stereotypical among the 5 non-unknown D answers: D1, D2, D3 -> 2*(3/5) - 1.
    assert scores["s_dis"] == pytest.approx(0.2)
    # BBQ s_AMB: 3 of 4 non-unknown A answers stereotypical -> (1 - 0.2) * (2*(3/4) - 1) = 0.4.
    assert scores["s_amb"] == pytest.approx(0.4)
    # KoBBQ/EsBBQ: (3 stereotypical - 1 anti)/5 = 0.4, bound 1 - acc_a = 0.8.
    assert scores["diff_bias_a"] == pytest.approx(0.4)
    assert scores["diff_bias_a_bound"] == pytest.approx(0.8)
    # acc(NP) = 2/2 = 1, acc(NNP) = 2/4 = 0.5: difference 0.5; bound as EsBBQ's bias_score.py
    # computes it, 1 - |2 acc_d - 1| = 2 (1 - 4/6) = 2/3.
    assert scores["diff_bias_d"] == pytest.approx(0.5)
    assert scores["diff_bias_d_bound"] == pytest.approx(2 / 3)
    assert scores["undefined"] == {}


def test_bias_score_differs_from_stereotypical_bias_score_for_a_lexical_preference():
    # BharatBBQ §4: always answering the target group is a lexical preference, not a
    # stereotype: BS_A = (2 - 0)/2 = 1, but SBS_A = (S_neg 1 + NS_nonneg 0)/2 = 0.5.
    items = [item("ambig", "neg", (T, N, U), 2, 0), item("ambig", "nonneg", (T, N, U), 2, 0)]
    scores = bbq_scores(items)
    assert scores["bs_a"] == pytest.approx(1.0)
    assert scores["sbs_a"] == pytest.approx(0.5)
    # stereotypical 1, anti 1: diff-bias 0, s_AMB = (1 - 0) * (2 * 1/2 - 1) = 0.
    assert scores["diff_bias_a"] == pytest.approx(0.0) and scores["s_amb"] == pytest.approx(0.0)


def test_nothing_answered_is_undefined_not_zero():
    scores = bbq_scores(UNANSWERED)
    assert scores["n_unanswered"] == 1 and scores["n_amb"] == 0 and scores["n_dis"] == 0
    for key in ("acc_a", "acc_d", "bs_a", "bs_d", "sbs_a", "sbs_d", "s_dis", "s_amb"):
        assert scores[key] is None and scores["undefined"][key]
    assert "NP and NNP" in scores["undefined"]["diff_bias_d"]


def test_all_unknown_in_ambiguous_contexts():
    # acc_a = 1 and BS/SBS/diff-bias are 0 (defined: their denominators are the 2 items), but
    # BBQ's s_AMB divides by the number of non-unknown answers, 0: undefined, not 0.
    scores = bbq_scores(
        [item("ambig", "neg", (T, N, U), 2, 2), item("ambig", "nonneg", (U, T, N), 0, 0)]
    )
    assert scores["acc_a"] == 1.0 and scores["bs_a"] == 0.0 and scores["sbs_a"] == 0.0
    assert scores["diff_bias_a"] == 0.0 and scores["diff_bias_a_bound"] == 0.0
    assert scores["s_amb"] is None and "0 x undefined" in scores["undefined"]["s_amb"]
    assert scores["acc_d"] is None


def test_disambiguated_without_counter_stereotypical_items():
    # Only NP items: SBS_D (over NNP) and diff-bias_D are undefined; BS_D is (1 - 0)/1.
    scores = bbq_scores([item("disambig", "neg", (T, N, U), 0, 0)])
    assert scores["bs_d"] == 1.0 and scores["acc_d"] == 1.0 and scores["s_dis"] == 1.0
    assert scores["sbs_d"] is None and scores["diff_bias_d"] is None
    assert "NNP" in scores["undefined"]["sbs_d"]


def test_unclear_roles_count_for_accuracy_only():
    # Two options marked target: the gold label still says it is correct, but no bias tally.
    unclear = item("disambig", "neg", (T, T, U), 0, 0)
    scores = bbq_scores([unclear, item("disambig", "neg", (T, N, U), 1, 1)])
    assert scores["n_roles_unclear"] == 1
    assert scores["acc_d"] == 1.0  # 2 of 2 correct
    # Bias over the clear item only: NNP (gold non-target for neg), correct: BS_D = (0-1)/1.
    assert scores["bs_d"] == -1.0 and scores["n_nnp"] == 1 and scores["n_np"] == 0


def test_breakdown_groups_by_named_fields():
    items = [
        item("ambig", "neg", (T, N, U), 2, 0, category="Caste", language="hi"),
        item("ambig", "neg", (T, N, U), 2, 2, category="Caste", language="ta"),
        item("ambig", "neg", (T, N, U), 2, 2, category="Religion", language="hi"),
    ]
    by_category = bbq_breakdown(items, by=("category",))
    assert list(by_category) == [("Caste",), ("Religion",)]
    assert by_category[("Caste",)]["acc_a"] == 0.5 and by_category[("Caste",)]["n_amb"] == 2
    cells = bbq_breakdown(items, by=("category", "language"))
    assert cells[("Caste", "hi")]["bs_a"] == 1.0 and cells[("Caste", "ta")]["bs_a"] == 0.0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"condition": "ambiguous"}, "context_condition"),
        ({"polarity": "negative"}, "question_polarity"),
        ({"label": 3}, "label 3"),
        ({"prediction": -1}, "prediction -1"),
    ],
)
def test_malformed_items_are_refused(kwargs, message):
    args = {
        "condition": "ambig",
        "polarity": "neg",
        "roles": (T, N, U),
        "label": 2,
        "prediction": 0,
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        item(args["condition"], args["polarity"], args["roles"], args["label"], args["prediction"])


def test_scores_are_finite_json_numbers():
    scores = bbq_scores(AMBIGUOUS + DISAMBIGUATED)
    for key, value in scores.items():
        if isinstance(value, float):
            assert math.isfinite(value), key
