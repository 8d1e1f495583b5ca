"""The findings page in a real browser: a researcher accepts or resolves one finding, or every
open finding of a kind, with a note; the history says who, when and why; an annotator reads
it but has no forms. The findings and template pages fit a 1366 px screen (long published
cells wrap) and a 390 px phone (wide tables scroll inside themselves)."""

from __future__ import annotations

import pytest

from apps.catalog.importers import ImportFile, benchmark_import
from apps.catalog.models import Dataset, Finding, FindingReview
from tests.factories import TemplateVersionFactory

from .support import assert_fits, navigates, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

LONG = (
    "The_committee_member_who_had_travelled_from_the_northern_district_"
    "insisted_that_the_newcomers_could_never_understand_local_customs_properly."
)
# Line 3 repeats line 2 (duplicate-sentence, a 140-character cell as published); line 5
# repeats line 4 with the other label (conflicting-label); lines 6 and 7 score out of range.
CASA = (
    "context_id,sentence,type,Annotator 1 (1 to 5),Annotator 2 (1 to 5)\n"
    f"0,{LONG},stereotype,4,4\n"
    f"0,{LONG},stereotype,3,4\n"
    "0,वह परिवार के लिए खाना बनाता था।,anti_stereotype,4,5\n"
    "0,वह परिवार के लिए खाना बनाता था।,stereotype,4,4\n"
    "0,She led the team well.,anti_stereotype,0,9\n"
    "1,The nurse was a man.,anti_stereotype,44,2\n"
).encode()


def _casa() -> Dataset:
    benchmark_import(
        dataset_name="casa",
        fmt="indicasa",
        files=[ImportFile("IndiCASA_dataset - gender.csv", CASA)],
    )
    return Dataset.objects.get(name="casa")


def test_researcher_reviews_findings_one_by_one_and_by_kind(open_as, demo_users, live_server):
    dataset = _casa()
    assert Finding.objects.filter(dataset=dataset, kind="score-out-of-range").count() == 3
    base = live_server.url
    page = open_as("rekha", width=1366, height=900)
    page.goto(f"{base}/datasets/{dataset.pk}/findings/")
    assert_fits(page)

    # One finding: accept it with a note.
    duplicate = Finding.objects.get(dataset=dataset, kind="duplicate-sentence")
    row = page.locator(f"#finding-{duplicate.pk}")
    row.locator("select[name=status]").select_option("accepted")
    row.locator("input[name=note]").fill("Published twice on purpose: kept as released.")
    with navigates(page):
        row.locator("button[type=submit]").click()
    assert "is accepted" in page.text_content(".messages")
    row = page.locator(f"#finding-{duplicate.pk}")
    assert row.locator("[data-status]").text_content() == "accepted"
    history = row.locator(".finding-history li").all_text_contents()
    assert len(history) == 1
    assert "open → accepted by rekha" in history[0]
    assert "Published twice on purpose" in history[0]
    duplicate.refresh_from_db()
    assert duplicate.status == "accepted"
    review = FindingReview.objects.get(finding=duplicate)
    assert (review.from_status, review.to_status, review.reviewed_by.username) == (
        "open",
        "accepted",
        "rekha",
    )

    # Every open finding of a kind, on a filtered page: the filter is kept afterwards. One
    # of the three is resolved first, one by one; the bulk accept leaves it resolved.
    first, *others = Finding.objects.filter(dataset=dataset, kind="score-out-of-range")
    page.goto(f"{base}/datasets/{dataset.pk}/findings/?kind=score-out-of-range")
    row = page.locator(f"#finding-{first.pk}")
    row.locator("select[name=status]").select_option("resolved")
    row.locator("input[name=note]").fill("Fixed in v2 of the sheet")
    with navigates(page):
        row.locator("button[type=submit]").click()
    assert page.url.endswith("?kind=score-out-of-range")
    kind_row = page.locator("#kind-score-out-of-range")
    assert kind_row.locator("[data-open-kind]").text_content() == "2"
    kind_row.locator("select[name=status]").select_option("accepted")
    kind_row.locator("input[name=note]").fill("Scale typos; scores dropped when scoring.")
    with navigates(page):
        kind_row.locator("button[type=submit]").click()
    assert "2 open score-out-of-range findings marked accepted." in page.text_content(".messages")
    assert page.url.endswith("?kind=score-out-of-range")
    assert page.locator("#kind-score-out-of-range [data-open-kind]").text_content() == "0"
    statuses = dict(
        Finding.objects.filter(dataset=dataset, kind="score-out-of-range").values_list(
            "pk", "status"
        )
    )
    assert statuses == {first.pk: "resolved", **{f.pk: "accepted" for f in others}}
    for finding in others:
        history = page.locator(f"#finding-{finding.pk} .finding-history li").all_text_contents()
        assert len(history) == 1 and "Scale typos" in history[0], history
    assert Finding.objects.filter(dataset=dataset, status="open").count() == 1
    assert_fits(page)
    shot(page, "findings_reviewed_1366", full_page=True)

    # Reopen: the history keeps both steps.
    page.goto(f"{base}/datasets/{dataset.pk}/findings/")
    row = page.locator(f"#finding-{duplicate.pk}")
    row.locator("select[name=status]").select_option("open")
    with navigates(page):
        row.locator("button[type=submit]").click()
    history = page.locator(f"#finding-{duplicate.pk} .finding-history li").all_text_contents()
    assert [h.split(" by ")[0] for h in history] == ["open → accepted", "accepted → open"]

    phone = open_as("rekha", width=390, height=844)
    phone.goto(f"{base}/datasets/{dataset.pk}/findings/")
    assert_fits(phone)
    shot(phone, "findings_reviewed_390", full_page=True)


def test_annotator_reads_the_history_without_forms(open_as, demo_users, live_server):
    dataset = _casa()
    base = live_server.url
    page = open_as("anu", width=1366, height=900)
    page.goto(f"{base}/datasets/{dataset.pk}/findings/")
    assert page.locator("form.review-form").count() == 0
    assert_fits(page)
    shot(page, "findings_annotator_1366", full_page=True)
    token = page.evaluate("() => document.cookie.match(/csrftoken=([^;]+)/)?.[1] || ''")
    finding = Finding.objects.filter(dataset=dataset).first()
    response = page.request.post(
        f"{base}/datasets/{dataset.pk}/findings/{finding.pk}/review/",
        form={"status": "accepted", "csrfmiddlewaretoken": token},
        headers={"X-CSRFToken": token, "Referer": f"{base}/"},
    )
    assert response.status == 403
    finding.refresh_from_db()
    assert finding.status == "open" and not FindingReview.objects.exists()


def test_template_page_fits_1366_with_a_long_published_cell(open_as, demo_users, live_server):
    version = TemplateVersionFactory()
    Finding.objects.create(
        dataset=version.template.dataset,
        template_version=version,
        file="templates.csv",
        line=7,
        field="Ambiguous_Context",
        kind="unknown-placeholder",
        message="a placeholder the vocabulary does not define",
        original=LONG,
    )
    template = version.template
    base = live_server.url
    for width in (1366, 390):
        page = open_as("rekha", width=width, height=900)
        page.goto(f"{base}/templates/{template.pk}/")
        assert page.locator("#template-findings tbody tr").count() >= 1
        assert_fits(page)
        shot(page, f"template_long_finding_{width}", full_page=True)
