from collections import Counter

import pytest

from apps.annotation.sampling import AssignmentImpossible, balanced_assignment, stratified_sample


def test_exactly_n_distinct_annotators_per_item_and_balanced():
    annotators = {name: {"en"} for name in "abcde"}
    items = [(i, "en") for i in range(101)]
    plan = balanced_assignment(items, annotators=annotators, per_item=2, seed=3)
    assert all(len(chosen) == 2 == len(set(chosen)) for chosen in plan)
    load = Counter(a for chosen in plan for a in chosen)
    assert sum(load.values()) == 202
    assert max(load.values()) - min(load.values()) <= 1


def test_languages_are_respected():
    annotators = {"hi1": {"hi"}, "hi2": {"hi", "en"}, "ta1": {"ta"}, "ta2": {"ta"}, "en1": {"en"}}
    items = [(0, "hi"), (1, "ta"), (2, "hi"), (3, "en")]
    plan = balanced_assignment(items, annotators=annotators, per_item=2)
    assert set(plan[0]) == {"hi1", "hi2"}
    assert set(plan[1]) == {"ta1", "ta2"}
    assert set(plan[3]) == {"hi2", "en1"}


def test_not_enough_annotators_for_a_language_names_the_item():
    with pytest.raises(AssignmentImpossible, match="item 1: language 'ta' needs 2"):
        balanced_assignment(
            [(0, "hi"), (1, "ta")], annotators={"x": {"hi", "ta"}, "y": {"hi"}}, per_item=2
        )


def test_stratified_sample_is_proportional_and_seeded():
    rows = (
        [("Caste", i) for i in range(60)]
        + [("Religion", i) for i in range(30)]
        + [("Gender", i) for i in range(10)]
    )
    sample = stratified_sample(rows, n=20, seed=7)
    assert Counter(s for s, _ in sample) == {"Caste": 12, "Religion": 6, "Gender": 2}
    assert sample == stratified_sample(rows, n=20, seed=7)
    assert sample != stratified_sample(rows, n=20, seed=8)
    assert len(stratified_sample(rows, n=500, seed=1)) == 100


def test_range_sample_gives_each_part_of_the_range_an_equal_share():
    """ISSUE18 4.2, by hand: 80 rows at 0.0 and 20 at 1.0, 20 wanted. Proportional sampling
    would take 16 and 4; spread across the range, the two occupied bins get 10 each."""
    from apps.annotation.sampling import range_sample

    rows = [(0.0, i) for i in range(80)] + [(1.0, i) for i in range(20)]
    sample = range_sample(rows, key=lambda row: row[0], n=20, seed=3)
    assert Counter(value for value, _ in sample) == {0.0: 10, 1.0: 10}
    assert sample == range_sample(rows, key=lambda row: row[0], n=20, seed=3)
    # A bin with fewer rows than its share gives the rest to the others: 3 + 17.
    rows = [(0.0, i) for i in range(80)] + [(1.0, i) for i in range(3)]
    sample = range_sample(rows, key=lambda row: row[0], n=20, seed=3)
    assert Counter(value for value, _ in sample) == {0.0: 17, 1.0: 3}
    # The range is the data's own: 0.03..0.16 cut in ten, not tenths of 0..1.
    rows = [(0.03 + 0.0001 * i, i) for i in range(40)] + [(0.15 + 0.0001 * i, i) for i in range(10)]
    sample = range_sample(rows, key=lambda row: row[0], n=10, seed=1)
    assert sum(1 for value, _ in sample if value >= 0.15) == 5
