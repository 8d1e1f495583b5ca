"""The release page's changelog (issue 22): totals, the category x language table, the reasons
with counts and examples linking to the instances' provenance pages, and the first release's
empty state; at 1366 and 390 px, without horizontal scrolling."""

from __future__ import annotations

import pytest

from apps.catalog.models import Template, UnknownExpression
from apps.catalog.services import dataset_instantiate, template_edit
from apps.catalog.versions import template_version_approve, template_version_reject
from apps.releases.services import release_create
from tests.factories import CategoryFactory, DatasetFactory, TemplateVersionFactory

from .support import SCRIPTS, assert_fits, shot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

CATEGORY = {"hi": "Age", "bn": "Religion", "ta": "Caste"}


def _version(dataset, language: str):
    _, _, context, question = SCRIPTS[language]
    UnknownExpression.objects.get_or_create(language=language, text="?")
    return TemplateVersionFactory(
        template__dataset=dataset,
        template__category=CategoryFactory(name=CATEGORY[language]),
        language=language,
        ambiguous_context="{{NAME1}}, {{NAME2}}: " + context,
        disambiguating_context="{{NAME1}} — " + context,
        question_negative=question,
        question_non_negative=question + " (2)",
        placeholders={"NAME1": ["क", "ख"], "NAME2": ["ग", "घ"]},
        status="approved",
    )


def _changed_dataset():
    dataset = DatasetFactory(name="चेंजलॉग डेटासेट")
    versions = {language: _version(dataset, language) for language in CATEGORY}
    dataset_instantiate(dataset=dataset)
    first = release_create(dataset=dataset, notes="पहली")
    # Hindi: a new version with new text; Tamil: a vocabulary change; Bengali: rejected.
    hindi = template_edit(
        template=versions["hi"].template,
        changes={"question_negative": "बस किसने छोड़ी?"},
    )
    tamil = Template.objects.get(pk=versions["ta"].template_id)
    vocabulary = template_edit(
        template=tamil, changes={"placeholders": {"NAME1": ["क", "ஒ"], "NAME2": ["ग", "घ"]}}
    )
    dataset_instantiate(dataset=dataset)
    template_version_approve(version_id=hindi.pk)
    template_version_approve(version_id=vocabulary.pk)
    template_version_reject(version_id=versions["bn"].pk)
    second = release_create(dataset=dataset, notes="दूसरी")
    return first, second


def test_the_release_page_shows_the_changelog_and_the_first_release_says_so(
    open_as, demo_users, live_server, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path
    first, second = _changed_dataset()
    page = open_as("rekha", width=1366, height=900)

    page.goto(f"{live_server.url}/releases/{first.pk}/")
    assert "first release" in page.locator("#changelog-first").text_content()
    assert page.locator("#changelog-reasons").count() == 0
    shot(page, "changelog_first_1366")

    page.goto(f"{live_server.url}/releases/{second.pk}/")
    section = page.locator("#changelog")
    assert section.locator("h2").text_content() == "Changes since the previous release"
    totals = {
        name: int(section.locator(f'[data-total="{name}"]').text_content())
        for name in ("added", "removed", "changed", "unchanged")
    }
    # Hindi: 8 negative-question instances changed, 8 written again unchanged; Tamil: one
    # NAME1 value replaced (8 out, 8 in, 8 written again); Bengali: 16 out by the rejection.
    assert totals == {"added": 8, "removed": 24, "changed": 8, "unchanged": 16}
    cells = section.locator("#changelog-cells tbody tr")
    assert [cells.nth(i).locator("td").all_text_contents() for i in range(cells.count())] == [
        ["Age", "hi", "0", "0", "8"],
        ["Caste", "ta", "8", "8", "0"],
        ["Religion", "bn", "0", "16", "0"],
    ]
    reasons = section.locator("#changelog-reasons tbody.changelog-reason")
    seen = {
        (row.get_attribute("data-change"), row.get_attribute("data-reason")): int(
            row.locator("td.num").text_content()
        )
        for row in reasons.all()
    }
    assert seen == {
        ("added", "vocabulary"): 8,
        ("removed", "vocabulary"): 8,
        ("removed", "review_decision"): 16,
        ("changed", "template_version"): 8,
    }
    changed = section.locator('tbody[data-reason="template_version"]')
    links = changed.locator("a")
    assert links.count() >= 2
    old, new = links.nth(0).get_attribute("href"), links.nth(1).get_attribute("href")
    assert old.startswith("/instances/") and old.endswith("/provenance/") and old != new
    assert "v1 → v2" in changed.text_content()
    assert "NAME1=ஒ" in section.locator('tbody[data-reason="vocabulary"]').first.text_content()
    assert section.locator(".unexplained").count() == 0
    assert_fits(page)
    section.scroll_into_view_if_needed()
    shot(page, "changelog_1366", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    assert_fits(page)
    shot(page, "changelog_390", full_page=True)
