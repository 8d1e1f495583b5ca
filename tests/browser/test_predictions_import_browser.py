"""Journey 2.3: a researcher drops a predictions file on the benchmark Import page, is told it
is a predictions file and where it goes, follows the link, imports it on the predictions import
page and lands on the run page with its figures; a bad file lists its problems by line."""

from __future__ import annotations

import json

import pytest

from apps.catalog.importers.instances import instances_import
from apps.catalog.importers.tables import ImportFile
from apps.catalog.models import Dataset
from apps.evaluation.models import EvaluationRun
from tests.catalog.test_import_predictions_file import AGE, predictions_jsonl

from .conftest import login

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

SHOTS = "/tmp/evalj-shots"


def test_a_predictions_file_is_sent_to_its_page_and_scored(live_server, page, demo_users):
    instances_import(
        dataset_name="bbq-age",
        fmt="bbq-instances",
        files=[ImportFile(name="Age.jsonl", data=AGE.read_bytes())],
    )
    dataset = Dataset.objects.get(name="bbq-age")
    base = live_server.url
    login(page, base, "rekha")
    data = predictions_jsonl()

    # On the benchmark Import page the file is refused with where it goes.
    page.goto(f"{base}/import/")
    page.select_option("#id_format", "bbq-instances")
    page.fill("#id_dataset", "bbq-age predictions?")
    page.set_input_files(
        "#id_files", files=[{"name": "age-preds.jsonl", "mimeType": "text/plain", "buffer": data}]
    )
    page.click("#import-button")
    page.wait_for_selector("#import-rejected")
    assert "predictions file" in page.text_content("#import-rejected")
    assert not Dataset.objects.filter(name="bbq-age predictions?").exists()
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.locator("#import-rejected").screenshot(
            path=f"{SHOTS}/catalog-import-predictions-file-{width}.png"
        )
    page.set_viewport_size({"width": 1280, "height": 900})
    page.click("#predictions-import-link")
    page.wait_for_url(f"{base}/evaluation/import/")

    # A file whose answers column is misnamed: refused, the line and column named.
    page.select_option("#id_dataset", str(dataset.pk))
    page.fill("#id_model", "gpt-x (published outputs)")
    bad = b'{"example_id": 0, "answer": 1}\n'
    page.set_input_files(
        "#id_file", files=[{"name": "bad.jsonl", "mimeType": "text/plain", "buffer": bad}]
    )
    page.click("#import-predictions")
    page.wait_for_selector("#import-problems")
    assert "bad.jsonl:1" in page.text_content("#import-problems")
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=f"{SHOTS}/predictions-import-problems-{width}.png", full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.set_viewport_size({"width": 1280, "height": 900})

    # The right file: scored, and the run page shows its figures and import report.
    page.set_input_files(
        "#id_file", files=[{"name": "age-preds.jsonl", "mimeType": "text/plain", "buffer": data}]
    )
    page.fill("#id_model", "gpt-x (published outputs)")
    page.click("#import-predictions")
    page.wait_for_url(f"{base}/evaluation/runs/*/")
    run = EvaluationRun.objects.get()
    assert run.status == "complete" and run.report["matched"] == 5
    assert run.results["overall"]["acc_a"] == 1.0  # every answer is the label
    page.wait_for_selector("#overall-metrics")
    assert "gpt-x (published outputs)" in page.text_content("h1")
    rows = [json.loads(line) for line in data.decode().splitlines()]
    assert len(rows) == 5
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base}/evaluation/import/")
        page.screenshot(path=f"{SHOTS}/predictions-import-{width}.png", full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
