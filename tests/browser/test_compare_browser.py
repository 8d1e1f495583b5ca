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
