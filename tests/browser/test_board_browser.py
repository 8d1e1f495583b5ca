"""The adaptation board in a real browser: a researcher chooses the source benchmark, starts an
adaptation (by keyboard), removes a source template with a reason (a blank reason refused on
the row), and sees the progress of the category change; the adapted texts in Devanagari and
Tamil are drawn with the served Noto faces; an annotator reads the board without its forms.
Screenshots at 1366 and 390 px, as researcher and annotator."""

from __future__ import annotations

import pytest

from apps.catalog.models import (
    Adaptation,
    Category,
    Dataset,
    EvidenceReference,
    StereotypeConcept,
    UnknownExpression,
)
from apps.catalog.services import adaptation_start, template_edit
from tests.factories import TemplateFactory, TemplateVersionFactory

from .support import SCRIPTS, assert_fits, assert_served_font, navigates, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def _source() -> dict:
    source = Dataset.objects.create(name="bbq-src")
    age, religion = (Category.objects.get_or_create(name=n)[0] for n in ("Age", "Religion"))
    made = {}
    for external_id, category in [("A1", age), ("A2", age), ("A3", age), ("R1", religion)]:
        made[external_id] = TemplateVersionFactory(
            template=TemplateFactory(dataset=source, external_id=external_id, category=category),
            status="approved",
        ).template
    return made


def _to_script(version, language):
    _, _, context, question = SCRIPTS[language]
    return template_edit(
        template=version.template,
        changes={
            "ambiguous_context": context + " {{NAME1}} {{NAME2}}",
            "question_negative": question,
        },
    )


def _progress(page, status: str) -> str:
    return page.text_content(f"#category-progress [data-status={status}] strong").strip()


def test_researcher_adapts_removes_and_sees_progress(open_as, demo_users, live_server):
    sources = _source()
    target = Dataset.objects.create(name="bbq-hi")
    for language in ("hi", "ta"):
        UnknownExpression.objects.get_or_create(language=language, text=f"unknown-{language}")
    base = f"{live_server.url}/datasets/{target.pk}/adaptation/"
    page = open_as("rekha", width=1366, height=900)
    page.goto(base)

    # No source yet: choose one, by keyboard.
    page.focus("#id_source")
    page.select_option("#id_source", label="bbq-src")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "source-submit"
    with navigates(page):
        page.keyboard.press("Enter")
    assert "bbq-hi adapts bbq-src" in page.text_content(".messages")
    assert page.text_content("#board-source") == "bbq-src"
    assert _progress(page, "to_do") == "3"
    assert page.locator(".board-tab.current").get_attribute("data-category") == "Age"

    # Start an adaptation of A1 by keyboard: open the row's form, fill it, submit with Enter.
    a1 = sources["A1"].pk
    page.focus(f"#source-{a1} details:has(#start-form-{a1}) summary")
    page.keyboard.press("Enter")
    page.select_option(f"#start-class-{a1}", "TM")
    page.fill(f"#start-language-{a1}", "hi")
    page.fill(f"#start-reason-{a1}", "लक्ष्य समूह बदले")
    with navigates(page):
        page.press(f"#start-reason-{a1}", "Enter")
    link = Adaptation.objects.get(dataset=target, source=sources["A1"])
    assert f"/templates/{link.template_id}/" in page.url
    version = link.template.versions.get()
    assert (version.status, version.language, version.transformation_type) == ("draft", "hi", "TM")
    _to_script(version, "hi")  # the researcher translates it (the template editor's job)

    # Remove A2: a blank reason is refused beside the row; then with a reason.
    page.goto(base)
    a2 = sources["A2"].pk
    page.click(f"#source-{a2} summary:has-text('Remove')")
    page.fill(f"#remove-reason-{a2}", "   ")
    with navigates(page):
        page.press(f"#remove-reason-{a2}", "Enter")
    assert "Say why the template is removed." in page.text_content(f"#error-{a2}")
    assert page.locator(f"#remove-form-{a2}").is_visible()  # the form is open again
    page.fill(f"#remove-reason-{a2}", "No reference attests it in India")
    with navigates(page):
        page.click(f"#remove-{a2}")
    assert "A2 is Sample-Removed" in page.text_content(".messages")
    assert page.text_content(f"#source-{a2} .reason") == "No reference attests it in India"
    assert page.text_content("[data-testid=status-A2]") == "Removed"
    assert page.text_content("[data-testid=status-A1]") == "Drafted"
    assert (_progress(page, "to_do"), _progress(page, "drafted"), _progress(page, "removed")) == (
        "1",
        "1",
        "1",
    )
    assert page.text_content(".board-tab.current .tab-done") == "1"

    # The adapted Hindi text is drawn with the served Devanagari face.
    target_body = (
        f"[data-target='{link.template.external_id}'] .board-text:nth-of-type(3) .board-body"
    )
    assert page.text_content(target_body) == SCRIPTS["hi"][3]
    assert_served_font(page, target_body, "hi")
    assert_fits(page)
    shot(page, "board_researcher_1366", full_page=True)

    # A Tamil adaptation on the Religion tab.
    target.refresh_from_db()
    tamil = adaptation_start(
        dataset=target, source_template=sources["R1"], transformation_type="ST", language="ta"
    )
    _to_script(tamil, "ta")
    with navigates(page):
        page.click(".board-tab[data-category=Religion]")
    tamil_body = (
        f"[data-target='{tamil.template.external_id}'] .board-text:nth-of-type(3) .board-body"
    )
    assert_served_font(page, tamil_body, "ta")
    assert page.text_content("[data-testid=status-R1]") == "Drafted"
    assert_fits(page)

    phone = open_as("rekha", width=390, height=844)
    phone.goto(base)
    assert_fits(phone)
    phone.click(f"#source-{sources['A3'].pk} summary:has-text('Start adaptation')")
    assert_fits(phone)
    shot(phone, "board_researcher_390", full_page=True)


def test_annotator_reads_the_board_without_forms(open_as, demo_users, live_server):
    sources = _source()
    target = Dataset.objects.create(name="bbq-ta")
    UnknownExpression.objects.get_or_create(language="ta", text="unknown-ta")
    from apps.catalog.services import adaptation_remove, dataset_source_set

    target = dataset_source_set(dataset=target, source=Dataset.objects.get(name="bbq-src"))
    version = _to_script(
        adaptation_start(
            dataset=target, source_template=sources["A1"], transformation_type="ST", language="ta"
        ),
        "ta",
    )
    concept = StereotypeConcept.objects.create(
        category=Category.objects.get(name="Age"),
        dataset=target,
        statement="முதியவர்கள் மறதியானவர்கள்",
        source="survey",
        mentions=3,
        validation_status="validated",
    )
    EvidenceReference.objects.create(
        concept=concept, url="https://example.org/study", quote="older people forget things"
    )
    template_edit(
        template=version.template, changes={"concept_id": concept.pk, "status": "approved"}
    )
    adaptation_remove(dataset=target, source_template=sources["A2"], reason="<b>not here</b>")
    for width, height in ((1366, 900), (390, 844)):
        page = open_as("anu", width=width, height=height)
        page.goto(f"{live_server.url}/datasets/{target.pk}/adaptation/")
        assert (
            page.locator("summary").count() == 0
            and page.locator("main form[method=post]").count() == 0
        )
        assert page.text_content(f"#source-{sources['A2'].pk} .reason") == "<b>not here</b>"
        assert page.text_content("[data-testid=status-A1]") == "Approved"
        assert "older people forget things" in page.text_content("[data-target=A1] .evidence")
        assert page.text_content(f"[data-testid=approved-{concept.pk}]") == "1"
        assert page.locator(f"#coverage tr[data-concept='{concept.pk}'].below").count() == 1
        assert_fits(page)
        shot(page, f"board_annotator_{width}", full_page=True)
        # The concept's own page says the same coverage, in its script.
        page.goto(f"{live_server.url}/concepts/{concept.pk}/")
        assert "1 approved" in page.text_content("#concept-coverage [data-dataset=bbq-ta]")
        assert_fits(page)
        shot(page, f"concept_coverage_annotator_{width}", full_page=True)
