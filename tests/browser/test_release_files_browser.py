"""The releases page lists only files with content and says which kinds a release has none of
(it listed 12 files, 9 of them empty)."""

from __future__ import annotations

import pytest

from apps.catalog.models import Dataset, StereotypeTuple
from apps.releases.services import release_create
from tests.factories import CategoryFactory

from .support import assert_fits, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def test_a_release_lists_only_files_with_content(
    open_as, demo_users, live_server, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path
    dataset = Dataset.objects.create(name="tuples only")
    category = CategoryFactory(name="Caste")
    for term, votes in (("brahmin", [1, 1, 0]), ("dalit", [1, 1, 1])):
        StereotypeTuple.objects.create(
            dataset=dataset,
            category=category,
            identity_term=term,
            attribute="पढ़ा-लिखा",
            votes=votes,
        )
    release = release_create(dataset=dataset, notes="पहली रिलीज़")
    page = open_as("anu", width=1366, height=900)
    page.goto(f"{live_server.url}/datasets/{dataset.pk}/releases/")
    card = page.locator(f"#release-{release.pk}")
    rows = card.locator("table.release-files tbody tr")
    assert rows.count() == 3
    assert [rows.nth(i).locator("td").nth(0).text_content() for i in range(3)] == ["tuples"] * 3
    assert [rows.nth(i).locator("td").nth(2).text_content() for i in range(3)] == ["2"] * 3
    assert card.locator(".empty-kinds").text_content().strip() == (
        "No instances, sentence pairs or context sets in this release, so no files for them."
    )
    download = card.locator("a.button").first
    with page.expect_download() as info:
        download.click()
    assert info.value.suggested_filename.endswith((".csv", ".jsonl", ".parquet"))
    assert_fits(page)
    shot(page, "release_files_1366", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    assert_fits(page)
    shot(page, "release_files_390", full_page=True)
