"""Issue 21, "Done when", in a real browser: a researcher adapts three BBQ templates into Hindi
(one Simply-Transferred, one Target-Modified, one Culturally Transformed), removes a fourth
with a reason (Sample-Removed) and writes a new one (Newly-Created), seeing the count, the
preview and the findings change as they type; the adaptation report counts each class; the
templates go to validation from the dataset page, two annotators approve them, a real worker
instantiates them, and a release takes them. Screenshots at 1366 and 390 px wide."""

from __future__ import annotations

import json
import zipfile
from io import StringIO

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from apps.accounts.roles import ANNOTATOR
from apps.accounts.services import user_create_with_role
from apps.annotation import selectors as annotation_selectors
from apps.annotation import services as annotation
from apps.annotation.models import Campaign
from apps.catalog.models import (
    Adaptation,
    Category,
    Dataset,
    Instance,
    Template,
    UnknownExpression,
)
from apps.core.models import Job
from apps.releases.models import Release
from tests.factories import TemplateFactory, TemplateVersionFactory

from .conftest import PASSWORD
from .support import assert_fits, navigates, shot, wait_job_page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.celery_worker,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

# What the researcher types for each adaptation: (class, ambiguous context, disambiguating
# context, negative question, non-negative question, NAME1 values, NAME2 values).
ADAPTATIONS = {
    "Age-1": (
        "ST",
        "एक {{NAME1}} और एक {{NAME2}} बस स्टॉप पर इंतज़ार कर रहे थे।",
        "{{NAME1}} टिकट भूल गया था; {{NAME2}} के पास दो टिकट थे।",
        "टिकट कौन भूल गया?",
        "कौन तैयार था?",
        "दादा | old\nदादी | old",
        "पोता | young\nपोती | young",
    ),
    "Age-2": (
        "TM",
        "एक {{NAME1}} और एक {{NAME2}} नया फ़ोन ख़रीदने आए।",
        "{{NAME1}} को फ़ोन चलाना नहीं आता था; {{NAME2}} ने उसे सब समझाया।",
        "फ़ोन चलाना किसे नहीं आता?",
        "किसने समझाया?",
        "गाँव का बुज़ुर्ग | rural elderly\nगाँव की बुज़ुर्ग | rural elderly",
        "शहर का युवक | urban young\nशहर की युवती | urban young",
    ),
    "Age-3": (
        "CT",
        "होली के मेले में एक {{NAME1}} और एक {{NAME2}} मिले।",
        "{{NAME1}} रास्ता भूल गया था; {{NAME2}} ने रास्ता दिखाया।",
        "रास्ता कौन भूला?",
        "रास्ता किसने दिखाया?",
        "नाना | old\nनानी | old",
        "नाती | young\nनातिन | young",
    ),
}
NEW_TEMPLATE = {
    "ambiguous_context": "एक {{NAME1}} और एक {{NAME2}} ऑनलाइन कक्षा में शामिल हुए।",
    "disambiguating_context": "{{NAME1}} कैमरा चालू नहीं कर पाया; {{NAME2}} ने मदद की।",
    "question_negative": "कैमरा कौन चालू नहीं कर पाया?",
    "question_non_negative": "मदद किसने की?",
}


@pytest.fixture
def studio(transactional_db, demo_users):
    """An English source benchmark "bbq" of four Age templates, an empty Hindi dataset, Hindi
    unknown answers, and two Hindi annotators."""
    bbq = Dataset.objects.create(name="bbq")
    age = Category.objects.get_or_create(name="Age")[0]
    sources = {
        external_id: TemplateVersionFactory(
            template=TemplateFactory(dataset=bbq, external_id=external_id, category=age),
            status="approved",
        ).template
        for external_id in ("Age-1", "Age-2", "Age-3", "Age-4")
    }
    target = Dataset.objects.create(name="bbq-hi")
    for i, text in enumerate(["पता नहीं", "कहा नहीं जा सकता"]):
        UnknownExpression.objects.get_or_create(language="hi", text=text, defaults={"position": i})
    bela = user_create_with_role(username="bela", role=ANNOTATOR, password=PASSWORD)
    for user in (demo_users["annotator"], bela):
        annotation.annotator_update(user=user, languages=["hi"])
    return {"sources": sources, "target": target, "annotators": [demo_users["annotator"], bela]}


@pytest.fixture(autouse=True)
def patient_expect():
    """The preview answers after a 250 ms pause and a request: give each expectation 15 s on
    the shared 2-core machine (the assertion itself is unchanged)."""
    expect.set_options(timeout=15_000)
    yield
    expect.set_options(timeout=5_000)


def _adapt(page, base: str, target: Dataset, source: Template) -> Template:
    """Start an adaptation on the board, then translate the draft in the template editor,
    watching the count and the preview follow the typing."""
    kind, ambiguous, disambiguating, negative, non_negative, names1, names2 = ADAPTATIONS[
        source.external_id
    ]
    page.goto(f"{base}/datasets/{target.pk}/adaptation/")
    pk = source.pk
    page.click(f"#source-{pk} summary:has-text('Start adaptation')")
    page.select_option(f"#start-class-{pk}", kind)
    page.fill(f"#start-language-{pk}", "hi")
    with navigates(page):
        page.click(f"#start-{pk}")
    template = Adaptation.objects.get(dataset=target, source=source).template
    assert page.url.endswith(f"/templates/{template.pk}/edit/")
    # The copy still has the English lists: 2 x 2 values -> 16 instances.
    expect(page.locator("#preview-count")).to_have_text("16")
    page.fill("#id_ambiguous_context", ambiguous)
    page.fill("#id_disambiguating_context", disambiguating)
    page.fill("#id_question_negative", negative)
    page.fill("#id_question_non_negative", non_negative)
    page.fill("#id_ph-NAME1-values", names1)
    page.fill("#id_ph-NAME2-values", names2 + "\nतीसरा | young")
    expect(page.locator("#preview-count")).to_have_text("24")  # a third NAME2 value
    page.fill("#id_ph-NAME2-values", names2)
    expect(page.locator("#preview-count")).to_have_text("16")
    first = page.locator("#preview-instances li.instance").first
    expect(first.locator(".context")).to_contain_text(names1.split(" |")[0])
    expect(page.locator("#preview-errors")).to_have_text("0")
    with navigates(page):
        page.click("#save-template")
    assert page.url.endswith("?saved=2"), page.url
    return template


def test_adapt_three_write_one_validate_and_release(
    live_server, open_as, studio, celery_worker_process
):
    base = live_server.url
    target, sources = studio["target"], studio["sources"]
    page = open_as("rekha", width=1366, height=900)

    # The dataset page leads to the board; the board asks for the source first.
    page.goto(f"{base}/datasets/{target.pk}/")
    with navigates(page):
        page.click("#adaptation-board-link")
    page.select_option("#id_source", label="bbq")
    with navigates(page):
        page.click("#source-submit")
    assert page.text_content("#board-source") == "bbq"

    adapted = {
        name: _adapt(page, base, target, sources[name]) for name in ("Age-1", "Age-2", "Age-3")
    }
    shot(page, "studio_journey_adapted_1366", full_page=True)

    # Age-4 is not relevant in India: Sample-Removed, with the reason.
    page.goto(f"{base}/datasets/{target.pk}/adaptation/")
    four = sources["Age-4"].pk
    page.click(f"#source-{four} summary:has-text('Remove')")
    page.fill(f"#remove-reason-{four}", "कोई भारतीय स्रोत इसकी पुष्टि नहीं करता")
    with navigates(page):
        page.click(f"#remove-{four}")
    assert page.text_content("[data-testid=status-Age-4]") == "Removed"
    assert page.text_content("[data-testid=status-Age-1]") == "Drafted"
    assert_fits(page)
    shot(page, "studio_journey_board_1366", full_page=True)

    # A Newly-Created template, written from the dataset page: the finding shows while the
    # disambiguating context names nobody, and goes once it does.
    page.goto(f"{base}/datasets/{target.pk}/")
    with navigates(page):
        page.click("#new-template-link")
    page.fill("#id_external_id", "Age-new-1")
    page.select_option("#id_category", label="Age")
    page.fill("#id_language", "hi")
    page.fill("#id_ambiguous_context", NEW_TEMPLATE["ambiguous_context"])
    page.fill("#id_disambiguating_context", "किसी का कैमरा नहीं चला।")
    page.fill("#id_question_negative", NEW_TEMPLATE["question_negative"])
    page.fill("#id_question_non_negative", NEW_TEMPLATE["question_non_negative"])
    page.fill("#id_ph-NAME1-values", "दादी | old\nदादा | old\nनानी | old")
    page.fill("#id_ph-NAME2-values", "पोती | young\nपोता | young")
    page.select_option("#id_transformation_type", "NC")
    expect(page.locator("#preview-count")).to_have_text("24")
    finding = page.locator("#findings-disambiguating_context li")
    expect(finding).to_contain_text("cannot disambiguate")
    shot(page, "studio_journey_new_finding_1366", full_page=True)
    page.fill("#id_disambiguating_context", NEW_TEMPLATE["disambiguating_context"])
    expect(finding).to_have_count(0)
    expect(page.locator("#preview-errors")).to_have_text("0")
    page.set_viewport_size({"width": 390, "height": 844})
    assert_fits(page)
    shot(page, "studio_journey_new_390")
    page.set_viewport_size({"width": 1366, "height": 900})
    with navigates(page):
        page.click("#save-template")
    assert page.url.endswith("?saved=1")
    new = Template.objects.get(dataset=target, external_id="Age-new-1")

    # The adaptation report: one of each class, the removal, the new template.
    out = StringIO()
    call_command("adaptation_report", dataset="bbq-hi", json=True, stdout=out)
    report = json.loads(out.getvalue())
    assert report["source"] == "bbq"
    assert report["by_category"]["Age"] == {
        "simply_transferred": 1,
        "target_modified": 1,
        "culturally_transformed": 1,
        "sample_removed": 1,
    }
    assert report["newly_created"] == {"Age": 1}
    page.goto(f"{base}/datasets/{target.pk}/")
    with navigates(page):
        page.click("#adaptation-report-link")
    assert page.text_content("#new-total").strip() == "1"
    assert page.text_content("#removed-total").strip() == "1"
    shot(page, "studio_journey_report_1366", full_page=True)

    # "Send to validation" on a template's page chooses that version only; the form names it
    # and offers to take every draft instead.
    page.goto(f"{base}/templates/{new.pk}/")
    with navigates(page):
        page.click("#send-to-validation")
    assert "Age-new-1 v1" in page.text_content("#only-items")
    shot(page, "studio_journey_send_one_1366", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    assert_fits(page)
    shot(page, "studio_journey_send_one_390", full_page=True)
    page.set_viewport_size({"width": 1366, "height": 900})
    with navigates(page):
        page.click("#take-all")
    assert page.locator("#only-items").count() == 0

    # Send to validation from the dataset page: the campaign form comes preselected.
    page.goto(f"{base}/datasets/{target.pk}/")
    with navigates(page):
        page.click("#send-to-validation-link")
    assert page.locator("select[name=kind]").input_value() == "template_validation"
    assert page.locator("select[name=dataset]").input_value() == str(target.pk)
    for user in studio["annotators"]:
        page.check(f"input[name=annotators][value='{user.pk}']")
    with navigates(page):
        page.click("#campaign-form button[type=submit]")
    campaign = Campaign.objects.get(dataset=target)
    assert campaign.items.count() == 4
    for user in studio["annotators"]:
        while (
            a := annotation_selectors.assignment_next(campaign_id=campaign.pk, annotator=user)
        ) is not None:
            annotation.judgement_submit(
                assignment_id=a.pk,
                annotator=user,
                answers={"a": "yes", "b": "yes", "c": "yes"},
                idempotency_key=annotation.new_idempotency_key(),
            )
    versions = [t.versions.order_by("-number").first() for t in [*adapted.values(), new]]
    assert [v.status for v in versions] == ["approved"] * 4

    # Approval queued the instantiation; the real worker runs it.
    from tests.core.test_worker_jobs import wait_for_job

    for queued in Job.objects.filter(kind="instantiate"):
        job = wait_for_job(queued.pk, timeout=90)
        assert job.status == "succeeded", job.error
    assert Instance.objects.filter(dataset=target, retired_at__isnull=True).count() == 16 * 3 + 24
    contexts = set(
        Instance.objects.filter(template_version=versions[0]).values_list("context", flat=True)
    )
    assert "एक दादा और एक पोती बस स्टॉप पर इंतज़ार कर रहे थे।" in contexts

    # A reviewed release takes the four approved templates.
    page.goto(f"{base}/datasets/{target.pk}/releases/")
    with navigates(page):
        page.click("#release-button")
    assert wait_job_page(page) == "succeeded"
    release = Release.objects.get(dataset=target)
    assert release.counts["total"] == 72
    assert release.memberships.filter(instance__template_version=versions[3]).count() == 24

    # The templates written here download in BharatBBQ's own layout, from the dataset page.
    page.goto(f"{base}/datasets/{target.pk}/")
    with page.expect_download() as download:
        page.click("#export-templates li[data-layout=bharatbbq] a >> nth=0")
    with zipfile.ZipFile(download.value.path()) as archive:
        sheets = {name: archive.read(name).decode("utf-8") for name in archive.namelist()}
    (sheet,) = [text for name, text in sheets.items() if name.endswith("Age.csv")]
    for name in ("Age-1", "Age-2", "Age-3", "Age-new-1"):
        assert name in sheet
    assert NEW_TEMPLATE["question_negative"] in sheet

    phone = open_as("rekha", width=390, height=844, touch=True)
    phone.goto(f"{base}/datasets/{target.pk}/")
    assert_fits(phone)
    shot(phone, "studio_journey_dataset_390", full_page=True)
    page.goto(f"{base}/datasets/{target.pk}/")
    shot(page, "studio_journey_dataset_1366", full_page=True)
