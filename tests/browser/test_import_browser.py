"""The Import page in a real browser: drag and drop, strict rejection, findings by kind."""

from __future__ import annotations

import pytest

from apps.catalog.models import Dataset, Finding
from tests.catalog.test_import_findings import CASA, NAME

from .conftest import login

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def drop_file(page, name: str, text: str) -> None:
    """Drop a file on the drop zone the way a browser delivers one (a DataTransfer)."""
    transfer = page.evaluate_handle(
        """([name, text]) => {
            const transfer = new DataTransfer();
            transfer.items.add(new File([text], name, {type: "text/csv"}));
            return transfer;
        }""",
        [name, text],
    )
    page.dispatch_event("#dropzone", "dragover", {"dataTransfer": transfer})
    page.dispatch_event("#dropzone", "drop", {"dataTransfer": transfer})


def test_researcher_drops_files_and_reads_the_report(live_server, page, demo_users, artifacts_dir):
    base = live_server.url
    login(page, base, "rekha")
    page.click("#import-link")
    page.wait_for_url(f"{base}/import/")

    page.select_option("#id_format", "indicasa")
    page.fill("#id_dataset", "IndiCASA mini")
    drop_file(page, NAME, CASA.decode())
    assert page.text_content("#file-list").startswith(NAME)
    page.check("#id_strict")
    page.click("#import-button")

    # Strict: every finding is a problem, grouped by kind, and nothing was written.
    page.wait_for_selector("#import-rejected")
    assert "6 problems, nothing was written" in page.text_content("#import-rejected h2")
    kinds = page.locator("#problem-kinds td[data-kind]")
    assert {kinds.nth(i).get_attribute("data-kind") for i in range(kinds.count())} == {
        "duplicate-sentence",
        "conflicting-label",
        "score-out-of-range",
        "score-not-a-number",
    }
    assert page.text_content("#problem-kinds td[data-kind='score-out-of-range']") == "3"
    assert not Dataset.objects.filter(name="IndiCASA mini").exists()

    # Faithful: the same file imports, with its findings in tables by kind.
    page.select_option("#id_format", "indicasa")
    page.uncheck("#id_strict")
    page.set_input_files(
        "#id_files", files=[{"name": NAME, "mimeType": "text/csv", "buffer": CASA}]
    )
    page.click("#import-button")
    page.wait_for_selector("#import-report")
    assert page.text_content("#finding-kinds td[data-kind='score-out-of-range']") == "3"
    rows = page.locator("table.findings[data-kind='conflicting-label'] tbody tr")
    assert rows.count() == 1
    assert f"{NAME}:5" in rows.first.text_content()
    assert Finding.objects.filter(dataset__name="IndiCASA mini").count() == 6
    page.screenshot(path=str(artifacts_dir / "import_report.png"), full_page=True)

    # The dataset's findings page lists the same, by kind.
    page.click("text=Review the dataset's findings")
    page.wait_for_selector("#findings-by-kind")
    assert page.text_content("#findings-by-kind td[data-kind='duplicate-sentence']") == "1"


def test_bbq_import_with_a_seed_shows_it_in_the_report(live_server, page, demo_users):
    """The seed of BBQ's name and word draws (what the API and the command take) is a field of
    the page; the report says which seed was used and every template records it."""
    from pathlib import Path

    from apps.catalog.models import TemplateVersion

    data = Path(__file__).resolve().parents[1] / "data" / "import" / "bbq"
    files = [
        {"name": path.name, "mimeType": "text/csv", "buffer": path.read_bytes()}
        for path in (data / "new_templates - Religion.csv", data / "vocabulary.csv")
    ]
    base = live_server.url
    login(page, base, "rekha")
    page.goto(f"{base}/import/")
    assert page.input_value("#id_seed") == "0"
    page.select_option("#id_format", "bbq")
    page.fill("#id_dataset", "BBQ seeded")
    page.fill("#id_seed", "7")
    page.set_input_files("#id_files", files=files)
    page.click("#import-button")
    page.wait_for_selector("#import-report")
    assert "seed of the name and word draws: 7" in page.text_content("#import-report")
    seeds = {
        version.generator_data.get("seed")
        for version in TemplateVersion.objects.filter(template__dataset__name="BBQ seeded")
    }
    assert seeds == {7}
