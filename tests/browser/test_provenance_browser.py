"""The provenance page of one instance (issue 22), at 1366 and 390 px: the chain from concept
to release reads top to bottom, Devanagari is drawn with the served Noto face in
lang-attributed elements, nothing widens the page, the links lead to the concept, template
and release pages, a step that does not apply says so, and no person is named."""

from __future__ import annotations

import pytest

from tests.releases.test_provenance import provenance_dataset_build

from .support import assert_fits, assert_served_font, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

CHAIN = ["concepts", "template", "vocabulary", "releases"]


def _step_tops(page) -> dict[str, float]:
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll("section.provenance-step")]
            .map(s => [s.dataset.step, s.getBoundingClientRect().top + window.scrollY]))"""
    )


def test_the_provenance_page_at_1366_and_390(open_as, demo_users, live_server, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    chain = provenance_dataset_build(author=demo_users["researcher"])
    instance = chain["instance"]
    page = open_as("anu", width=1366, height=900)

    # From the instance list to the page, as a reader would get there.
    page.goto(f"{live_server.url}/datasets/{chain['dataset'].pk}/instances/")
    with page.expect_navigation():
        page.click(f"#instance-{instance.pk} a.provenance-link")
    assert page.url.endswith(f"/instances/{instance.pk}/provenance/")

    tops = _step_tops(page)
    shown = [name for name in sorted(tops, key=tops.get) if name in CHAIN]
    assert shown == CHAIN
    assert page.get_attribute("#step-releases", "data-applies") == "yes"
    assert "शर्मा" in page.text_content("#instance-texts")
    assert_served_font(page, "#instance-texts", "hi")
    assert_served_font(page, "#step-vocabulary tr[data-placeholder=NAME1] td[lang=hi]", "hi")
    assert page.text_content("#step-vocabulary tr[data-placeholder=NAME1]").count("उपनाम") == 1
    assert "Culturally Transformed" in page.text_content("#adaptation")
    assert "5 survey respondents, 2 of them affected" in page.text_content("#step-concepts")
    # Nobody is named in the chain: the template's author is a pseudonym.
    chain_text = page.text_content("#provenance-chain")
    assert "rekha" not in chain_text and "researcher-" in chain_text
    assert_fits(page)
    shot(page, "provenance_1366", full_page=True)

    page.set_viewport_size({"width": 390, "height": 844})
    assert_fits(page)
    tops = _step_tops(page)
    assert [name for name in sorted(tops, key=tops.get) if name in CHAIN] == CHAIN
    assert_served_font(page, "#instance-texts", "hi")
    shot(page, "provenance_390", full_page=True)

    # The links lead where they say.
    with page.expect_navigation():
        page.click(f"#step-releases a[href='/releases/{chain['release'].pk}/']")
    assert "Release 1" in page.text_content("h1")
    page.go_back()
    with page.expect_navigation():
        page.click(f"#step-concepts a[href='/concepts/{chain['concept'].pk}/']")
    assert page.text_content("h1").strip() == chain["concept"].statement


def test_a_step_that_does_not_apply_is_shown_as_such(
    open_as, demo_users, live_server, settings, tmp_path
):
    """An instance whose template probes no concept: the step is in the chain, greyed, with
    its reason; the page still fits a phone."""
    settings.MEDIA_ROOT = tmp_path
    chain = provenance_dataset_build(author=None)
    from apps.catalog.models import TemplateVersion

    TemplateVersion.objects.filter(pk=chain["version"].pk).update(concept=None)
    page = open_as("anu", width=390, height=844)
    page.goto(f"{live_server.url}/instances/{chain['instance'].pk}/provenance/")
    step = page.locator("#step-concepts")
    assert step.get_attribute("data-applies") == "no"
    assert step.text_content().count("Not applicable to this instance.") == 1
    assert_fits(page)
    shot(page, "provenance_not_applicable_390", full_page=True)
