"""The adaptation record in a real browser: a researcher imports EsBBQ-style workbooks on the
Import page with "Adapted from" a BBQ import, then the researcher and an annotator read the
adaptation report (1366 and 390 px wide; a target category in Devanagari)."""

from __future__ import annotations

import pytest

from apps.catalog.importers import benchmark_import
from apps.catalog.models import Dataset

from ..catalog.test_adaptation_import import bbq_files, esbbq_file, esbbq_row
from .support import assert_fits, navigates, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

HINDI = "आयु"  # "age": the target category's name


def workbooks(tmp_path) -> list[str]:
    age = [
        esbbq_row(1, "a", "t", "Age", 1.0),
        esbbq_row(1, "b", "t", "Age", "1"),
        esbbq_row(2, None, "m", "age", 2),
        esbbq_row(5, None, "t", "Age", 99),  # no such BBQ template: a missing-source finding
        dict(esbbq_row(7, None, "n", None, None), esbbq_category=HINDI),
        dict(esbbq_row(8, None, "n", None, None), esbbq_category=HINDI),
        dict(esbbq_row(8, "p", "n", None, None), esbbq_category=HINDI),  # 8 and 8p: one
    ]
    race = [dict(esbbq_row(1, None, "m", "RaceEthnicity", 1.0), esbbq_category="RaceEthnicity")]
    paths = []
    for upload in (esbbq_file(age), esbbq_file(race, "RaceEthnicity.xlsx")):
        path = tmp_path / upload.name
        path.write_bytes(upload.data)
        paths.append(str(path))
    return paths


def test_import_adapted_from_then_read_the_report(open_as, demo_users, tmp_path) -> None:
    benchmark_import(dataset_name="BBQ", fmt="bbq", files=bbq_files())
    page = open_as("rekha", width=1366, height=900)
    base = page.url.split("/", 3)[:3]
    base = "/".join(base)
    page.goto(f"{base}/import/")
    page.select_option("#id_format", "esbbq")
    page.fill("#id_dataset", "EsBBQ")
    page.fill("#id_adapted_from", "BBQ")
    page.set_input_files("#id_files", workbooks(tmp_path))
    with navigates(page):
        page.click("#import-button")
    summary = page.text_content("#import-summary")
    assert "adapted from 'BBQ': 6 link(s) to source templates, 2 source template(s) " in summary
    assert page.text_content("td[data-kind='missing-source']").strip() == "1"
    shot(page, "adaptation_import_1366", full_page=True)

    dataset = Dataset.objects.get(name="EsBBQ")
    url = f"{base}/datasets/{dataset.pk}/adaptation-report/"
    page.goto(url)
    row = page.locator("#by-category tr[data-category='Age'] > *")
    assert row.all_text_contents() == ["Age", "3", "1", "1", "0", "1"]
    total = page.locator("#by-category-total > *").all_text_contents()
    assert total == ["Total", "5", "1", "2", "0", "2"]
    assert page.text_content(f"#newly-created tr[data-category='{HINDI}'] td").strip() == "2"
    assert page.text_content("#newly-created-total").strip() == "2"
    feeds = page.locator("#reconstruction tr[data-category='Race_ethnicity'] .feed")
    assert feeds.all_text_contents() == ["→ RaceEthnicity 1"]
    assert HINDI in page.text_content("#reconstruction-new")
    assert_fits(page)
    shot(page, "adaptation_report_researcher_1366", full_page=True)
    page.click("#unlinked a")
    page.wait_for_url(lambda u: "/findings/" in u and "kind=missing-source" in u)

    phone = open_as("anu", width=390, height=844, touch=True)
    phone.goto(url)
    assert phone.text_content("#source-total").strip() == "5"
    assert_fits(phone)
    shot(phone, "adaptation_report_annotator_390", full_page=True)
    phone.locator("#reconstruction").scroll_into_view_if_needed()
    assert_fits(phone)
    shot(phone, "adaptation_report_annotator_390_reconstruction")
