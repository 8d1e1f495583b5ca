"""Agreement statistics on cases computed by hand (the arithmetic is in each docstring)."""

import json

import pytest

from apps.annotation import agreement

YN = ("yes", "no")
SCALE = (1, 2, 3, 4, 5)


def test_cohen_kappa_by_hand():
    """Agreement 4/6; both say yes half the time, so chance is 0.5: (2/3 - 1/2) / (1/2) = 1/3."""
    a = ["yes", "yes", "no", "no", "yes", "no"]
    b = ["yes", "no", "no", "no", "yes", "yes"]
    result = agreement.cohen_kappa(a, b, labels=YN)
    assert result.value == pytest.approx(1 / 3)
    assert result.n_items == 4 + 2


def test_quadratic_kappa_follows_the_full_scale():
    """a=[1,2,5,5], b=[2,1,5,2] on 1..5: mean squared distance observed 11/4, expected 6
    (from the marginals), kappa = 1 - 2.75/6 = 0.541667. Without the full label set the
    distance 2->5 would count as 1 step and kappa would be 0.4."""
    a, b = [1, 2, 5, 5], [2, 1, 5, 2]
    full = agreement.cohen_kappa(a, b, labels=SCALE, weights="quadratic")
    assert full.value == pytest.approx(1 - 2.75 / 6)
    squeezed = agreement.cohen_kappa(a, b, labels=(1, 2, 5), weights="quadratic")
    assert squeezed.value == pytest.approx(0.4)


def test_fleiss_by_hand():
    """Items yyy, yyn, nnn, ynn: P_i = 1, 1/3, 1, 1/3 -> mean 2/3; p(yes)=p(no)=1/2 so
    Pe = 1/2; kappa = (2/3 - 1/2)/(1/2) = 1/3."""
    ratings = [["yes"] * 3, ["yes", "yes", "no"], ["no"] * 3, ["yes", "no", "no"]]
    assert agreement.fleiss(ratings, labels=YN).value == pytest.approx(1 / 3)


def test_krippendorff_nominal_by_hand():
    """Same items. Coincidences o_yy=4, o_nn=4, o_yn=o_ny=2 (n=12, n_y=n_n=6).
    Do = 4/12, De = 2*6*6/(12*11) = 72/132, alpha = 1 - (4/12)/(72/132) = 0.388889."""
    units = [
        {"a": "yes", "b": "yes", "c": "yes"},
        {"a": "yes", "b": "yes", "c": "no"},
        {"a": "no", "b": "no", "c": "no"},
        {"a": "yes", "b": "no", "c": "no"},
    ]
    result = agreement.krippendorff_alpha(units, labels=YN)
    assert result.value == pytest.approx(1 - (4 / 12) / (72 / 132))


def test_krippendorff_allows_missing_judgements():
    units = [{"a": "yes", "b": "yes"}, {"b": "no", "c": "no"}, {"a": "yes", "c": "no"}]
    result = agreement.krippendorff_alpha(units, labels=YN)
    assert result.defined


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        ([], [], "no item was judged by both annotators"),
        (["yes"], ["no"], "fewer than 2 items"),
        (["yes", "yes", "yes"], ["yes", "yes", "yes"], "one label only"),
    ],
)
def test_cohen_degenerate_cases_are_undefined_with_a_reason(a, b, reason):
    result = agreement.cohen_kappa(a, b, labels=YN)
    assert result.value is None
    assert reason in result.reason
    payload = result.as_dict()
    # Valid JSON: no NaN sneaks through.
    assert json.loads(json.dumps(payload, allow_nan=False))["undefined"] is True


def test_fleiss_and_alpha_degenerate():
    assert "one label only" in agreement.fleiss([["yes"] * 3] * 4, labels=YN).reason
    assert "fewer than 2" in agreement.fleiss([["yes", "no", "no"]], labels=YN).reason
    assert "same number" in agreement.fleiss([["yes", "no"], ["yes"]], labels=YN).reason
    assert not agreement.krippendorff_alpha([{"a": "yes"}, {"b": "no"}], labels=YN).defined


def test_labels_outside_the_scale_are_an_error():
    with pytest.raises(ValueError, match="outside the scale"):
        agreement.cohen_kappa([1, 6], [1, 2], labels=SCALE)


def test_pairwise_uses_only_items_both_judged():
    units = [
        {"anu": "yes", "bela": "yes"},
        {"anu": "no", "bela": "no", "chand": "no"},
        {"bela": "yes", "chand": "no"},
    ]
    pairs = agreement.pairwise_cohen(units, labels=YN)
    assert pairs[("anu", "bela")].value == pytest.approx(1.0)
    assert pairs[("anu", "chand")].n_items == 1
    assert pairs[("anu", "chand")].value is None


def test_overall_picks_the_statistic():
    two = [{0: 1, 1: 2}, {0: 2, 1: 1}, {0: 5, 1: 5}, {0: 5, 1: 2}]
    assert agreement.overall(two, labels=SCALE, ordinal=True).statistic == "cohen_kappa_quadratic"
    three = [{0: "yes", 1: "yes", 2: "no"}, {0: "no", 1: "no", 2: "no"}]
    assert agreement.overall(three, labels=YN).statistic == "fleiss_kappa"
    mixed = [{0: 1, 1: 2, 2: 2}, {0: 2, 1: 1}, {0: 4, 1: 4}]
    assert agreement.overall(mixed, labels=SCALE, ordinal=True).statistic.startswith("krippendorff")


def test_raw_agreement_and_why_kappa_is_low_by_hand():
    """Issue 18 2.7: 5 of 6 items agree (raw 0.833), but b says yes to all and a to 5 of 6:
    chance agreement = (5/6)(6/6) + (1/6)(0/6) = 5/6, so kappa = (5/6 - 5/6)/(1 - 5/6) = 0."""
    a = ["yes"] * 5 + ["no"]
    b = ["yes"] * 6
    result = agreement.cohen_kappa(a, b, labels=YN)
    assert result.value == pytest.approx(0.0)
    assert result.observed == pytest.approx(5 / 6)
    assert result.expected == pytest.approx(5 / 6)
    out = result.as_dict()
    assert out["label"] == "Cohen's κ" and out["statistic"] == "cohen_kappa"
    assert out["observed_agreement"] == pytest.approx(0.8333)
    # 11 of 12 judgements are "yes": the prevalence explanation names the label and figures.
    assert "“yes” is 92% of the judgements" in out["note"]
    assert "chance agreement is already 83%" in out["note"]


def test_no_prevalence_note_when_kappa_is_not_low():
    """Agreement 4/6 with balanced labels: kappa 1/3, observed 2/3, chance 1/2; no note about
    prevalence (labels are balanced)."""
    a = ["yes", "yes", "no", "no", "yes", "no"]
    b = ["yes", "no", "no", "no", "yes", "yes"]
    result = agreement.cohen_kappa(a, b, labels=YN)
    assert result.observed == pytest.approx(4 / 6) and result.expected == pytest.approx(0.5)
    assert result.as_dict()["note"] == ""


def test_overall_fleiss_reports_mean_pairwise_raw_agreement():
    """Items yyy, yyn: pairwise agreement 3/3 and 1/3 -> mean 2/3."""
    result = agreement.overall(
        [{0: "yes", 1: "yes", 2: "yes"}, {0: "yes", 1: "yes", 2: "no"}], labels=YN
    )
    assert result.statistic == "fleiss_kappa" and result.as_dict()["label"] == "Fleiss' κ"
    assert result.observed == pytest.approx(2 / 3)
