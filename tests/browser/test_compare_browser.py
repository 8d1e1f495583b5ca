"""The reproduction report page in a real browser: upload a published file, read the table."""

from __future__ import annotations

from pathlib import Path

import pytest

from apps.catalog.importers.instances import instances_import
from apps.catalog.importers.tables import ImportFile

from .conftest import login

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

MINI = Path(__file__).resolve().parent.parent / "data" / "import" / "published"


def test_annotator_compares_a_dataset_with_its_published_file(
    live_server, page, demo_users, artifacts_dir, tmp_path
):
    data = (MINI / "Caste_examples.csv").read_bytes()
    instances_import(
        dataset_name="BharatBBQ examples",
        fmt="bharatbbq-instances",
        files=[ImportFile("Caste_examples.csv", data)],
    )
    # The published file as a researcher might have it: one question with a doubled space.
    edited = tmp_path / "Caste_examples.csv"
    edited.write_bytes(data.replace(b"Who stole?", b"Who  stole?"))

    base = live_server.url
    login(page, base, "anu")
    page.goto(f"{base}/")  # an annotator lands on their campaigns
    page.click("text=BharatBBQ examples")
    page.click("#compare-published-link")
    page.set_input_files("#compare-files", str(edited))
    page.click("#compare-button")
    page.wait_for_selector("#compare-report")

    assert page.text_content("#published-total").strip() == "4"
    assert page.text_content("#kasauti-total").strip() == "4"
    assert page.text_content("#all-matched").strip() == "3"
    row = page.locator("#compare-by-category tr[data-category='Caste'] td")
    assert row.all_text_contents() == ["Caste", "4", "4", "4", "3", "4", "4", "4", "3"]
    group = page.locator("details[data-reason='whitespace'][data-field='question']")
    assert group.locator(".count").text_content() == "1"
    assert "Caste_examples.csv:5" in group.text_content()
    page.screenshot(path=str(artifacts_dir / "compare_published.png"), full_page=True)


def test_the_summary_and_the_difference_groups_agree(live_server, open_as, demo_users, tmp_path):
    """A gold that is the unknown option on both sides, worded differently, counts as matched;
    the page lists it apart ("counted as matched, worded differently"), not as a difference
    group that contradicts the matched count."""
    from .support import assert_fits, shot

    data = (MINI / "Caste_examples.csv").read_bytes()
    instances_import(
        dataset_name="BharatBBQ examples",
        fmt="bharatbbq-instances",
        files=[ImportFile("Caste_examples.csv", data)],
    )
    lines = data.split(b"\n")
    lines[1] = lines[1].replace(b"can't answer", b"cannot be determined")  # row 1's unknown
    edited = tmp_path / "Caste_examples.csv"
    edited.write_bytes(b"\n".join(lines))

    page = open_as("anu", width=1366, height=900)
    page.goto(f"{live_server.url}/")  # an annotator lands on their campaigns
    page.click("text=BharatBBQ examples")
    page.click("#compare-published-link")
    page.set_input_files("#compare-files", str(edited))
    page.click("#compare-button")
    page.wait_for_selector("#compare-report")
    cells = page.locator("#compare-by-category tr[data-category='Caste'] td").all_text_contents()
    paired = 4
    matched = dict(
        zip(
            ["context", "question", "group_answers", "gold_answer", "options"],
            cells[3:8],
            strict=True,
        )
    )
    assert matched["gold_answer"] == "4", cells
    groups = page.locator("details:not(.reworded)")
    by_field: dict[str, int] = {}
    for index in range(groups.count()):
        group = groups.nth(index)
        field = group.get_attribute("data-field")
        by_field[field] = by_field.get(field, 0) + int(group.locator(".count").text_content())
    assert "gold_answer" not in by_field, by_field
    # Every field: matched + listed differences = pairs.
    for name, count in matched.items():
        assert int(count) + by_field.get(name, 0) == paired, (name, cells, by_field)
    assert page.text_content("#difference-total") == str(sum(by_field.values()))
    reworded = page.locator("details.reworded[data-field='gold_answer']")
    assert reworded.locator(".count").text_content() == "1"
    reworded.locator("summary").click()
    assert "cannot be determined" in reworded.text_content()
    assert_fits(page)
    shot(page, "compare_reworded_1366", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    assert_fits(page)
    shot(page, "compare_reworded_390", full_page=True)
