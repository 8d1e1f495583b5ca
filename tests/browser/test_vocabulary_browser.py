"""The vocabulary editor in a real browser: a researcher creates a vocabulary with definite
forms by keyboard, types its entries (a repeated value refused, naming its line), adds an
unknown answer for Tamil; two researchers editing one vocabulary: the second save is refused
with what changed and the typed text kept; the history lists every saved list with what it
changed, and an earlier list is restored by keyboard as a new revision. Devanagari entries are
drawn with the served Noto face. Screenshots at 1366 and 390 px, as researcher and annotator
(who reads the history, without restore buttons)."""

from __future__ import annotations

import pytest

from apps.accounts.roles import RESEARCHER
from apps.accounts.services import user_create_with_role
from apps.catalog.models import UnknownExpression, Vocabulary
from apps.catalog.vocabularies import vocabulary_lines

from .conftest import PASSWORD
from .support import (
    assert_fits,
    assert_served_font,
    assert_text_boxes_show_everything,
    navigates,
    shot,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]

NAMES = "राम | ब्राह्मण\nसीता | ब्राह्मण\nअली | मुसलमान"


def test_researcher_writes_a_vocabulary_and_a_conflict_is_refused(open_as, demo_users, live_server):
    user_create_with_role(username="ravi", role=RESEARCHER, password=PASSWORD)
    UnknownExpression.objects.filter(language="ta").delete()
    base = live_server.url
    page = open_as("rekha", width=1366, height=900)
    page.goto(f"{base}/vocabularies/")

    # Create by keyboard: open the form, fill it, tick "definite forms", submit with Enter.
    page.focus("#new-vocabulary summary")
    page.keyboard.press("Enter")
    page.fill("#id_name", "names-caste")
    page.fill("#id_language", "hi")
    page.focus("#id_definite_forms")
    page.keyboard.press("Space")
    assert page.is_checked("#id_definite_forms")
    with navigates(page):
        page.press("#id_language", "Enter")
    vocabulary = Vocabulary.objects.get(name="names-caste", language="hi")
    assert Vocabulary.objects.filter(name="names-caste-def").exists()
    assert page.url.endswith(f"/vocabularies/{vocabulary.pk}/")

    # A repeated value is refused, naming its line; the typed text stays.
    text = "राम | ब्राह्मण | श्री राम\nअली | मुसलमान | जनाब अली\nराम | ब्राह्मण | श्री राम"
    page.fill("#id_text", text)
    with navigates(page):
        page.click("#save-vocabulary")
    assert "Line 3: 'राम' is already on line 1" in page.text_content("#line-problems")
    assert page.input_value("#id_text") == text
    page.fill("#id_text", text.rsplit("\n", 1)[0])
    with navigates(page):
        page.click("#save-vocabulary")
    assert "names-caste saved: 2 entries" in page.text_content(".messages")
    assert [(x.value, x.definite) for x in vocabulary_lines(vocabulary=vocabulary)] == [
        ("राम", "श्री राम"),
        ("अली", "जनाब अली"),
    ]
    assert page.text_content("#entry-count") == "2"
    assert_text_boxes_show_everything(page)

    # Two researchers open the page; the second save is refused with what changed.
    other = open_as("ravi", width=1366, height=900)
    other.goto(page.url)
    other.fill(
        "#id_text", "राम | ब्राह्मण | श्री राम\nअली | मुसलमान | जनाब अली\nसीता | ब्राह्मण | श्री सीता"
    )
    with navigates(other):
        other.click("#save-vocabulary")
    mine = "राम | ब्राह्मण | श्री राम\nगीता | ब्राह्मण | श्री गीता"
    page.fill("#id_text", mine)
    with navigates(page):
        page.click("#save-vocabulary")
    changes = page.text_content("#conflict-changes")
    assert "added सीता" in " ".join(changes.split())
    assert page.input_value("#id_text") == mine
    assert [x.value for x in vocabulary_lines(vocabulary=vocabulary)] == ["राम", "अली", "सीता"]
    assert_fits(page)
    shot(page, "vocabulary_conflict_1366", full_page=True)
    # Saving again, having seen the changes, is accepted.
    with navigates(page):
        page.click("#save-vocabulary")
    assert [x.value for x in vocabulary_lines(vocabulary=vocabulary)] == ["राम", "गीता"]

    # History: revisions 3 (mine), 2 (ravi's), 1 (the first list), newest first; restore 2.
    numbers = page.locator("#revisions li.revision").evaluate_all(
        "items => items.map(li => li.dataset.number)"
    )
    assert numbers == ["3", "2", "1"]
    assert page.locator("#revision-3 .badge.ok", has_text="current").count() == 1
    assert page.locator("#restore-3").count() == 0
    assert "removed सीता" in " ".join(page.text_content("#revision-3").split())
    assert "ravi" in page.text_content("#revision-2 .revision-head")
    assert_served_font(page, "#revision-2 .revision-changes bdi.value", "hi")
    page.fill("#id_text", "typed, then restored over")
    page.focus("#restore-2")
    with navigates(page):
        page.keyboard.press("Enter")
    assert "revision 2 restored as revision 4" in page.text_content(".messages")
    assert [(x.value, x.definite) for x in vocabulary_lines(vocabulary=vocabulary)] == [
        ("राम", "श्री राम"),
        ("अली", "जनाब अली"),
        ("सीता", "श्री सीता"),
    ]
    assert vocabulary.revisions.count() == 4
    assert page.locator("#revision-4 .badge.ok", has_text="current").count() == 1
    assert page.text_content("#revision-4 .same-as") == "the list of revision 2 again"
    assert "सीता" in page.input_value("#id_text")
    page.click("#revision-1 details summary")
    assert page.text_content("#revision-1 pre") == "राम | ब्राह्मण | श्री राम\nअली | मुसलमान | जनाब अली"
    assert_fits(page)
    shot(page, "vocabulary_history_researcher_1366", full_page=True)

    # Unknown answers: Tamil has none; add one by keyboard.
    page.goto(f"{base}/vocabularies/")
    page.fill("#unknown-text-ta", "தெரியவில்லை")
    with navigates(page):
        page.press("#unknown-text-ta", "Enter")
    assert UnknownExpression.objects.filter(language="ta", text="தெரியவில்லை").exists()
    assert "தெரியவில்லை" in page.text_content("#unknown-ta .unknown-list")
    assert_fits(page)
    shot(page, "vocabulary_list_researcher_1366", full_page=True)

    phone = open_as("rekha", width=390, height=844)
    phone.goto(f"{base}/vocabularies/{vocabulary.pk}/")
    phone.click("#revision-1 details summary")
    assert_fits(phone)
    assert_text_boxes_show_everything(phone)
    shot(phone, "vocabulary_researcher_390", full_page=True)
    phone.goto(f"{base}/vocabularies/")
    assert_fits(phone)
    shot(phone, "vocabulary_list_researcher_390", full_page=True)


def test_annotator_reads_a_vocabulary_in_its_script(open_as, demo_users, live_server):
    from apps.catalog.services.vocabulary import vocabulary_create, vocabulary_entries_replace
    from apps.catalog.vocabularies import vocabulary_text_parse, vocabulary_token

    vocabulary = vocabulary_create(name="names-religion", language="hi")
    lines, _ = vocabulary_text_parse(text=NAMES)
    vocabulary_entries_replace(
        vocabulary=vocabulary, lines=lines[:2], base_token=vocabulary_token(vocabulary=vocabulary)
    )
    vocabulary_entries_replace(
        vocabulary=vocabulary, lines=lines, base_token=vocabulary_token(vocabulary=vocabulary)
    )
    for width, height in ((1366, 900), (390, 844)):
        page = open_as("anu", width=width, height=height)
        page.goto(f"{live_server.url}/vocabularies/{vocabulary.pk}/")
        assert page.locator("#vocabulary-form").count() == 0
        assert page.locator("#entries tbody tr").count() == 3
        # The history, read-only: what each revision changed, no restore button.
        assert page.locator("#revisions li.revision").count() == 2
        assert "added अली" in " ".join(page.text_content("#revision-2").split())
        assert page.locator("button.restore").count() == 0
        assert_served_font(page, "#entries tbody tr:nth-child(2) td.value", "hi")
        assert_served_font(page, "#entries tbody tr:nth-child(3) td.group", "hi")
        assert_fits(page)
        shot(page, f"vocabulary_annotator_{width}", full_page=True)
        page.goto(f"{live_server.url}/vocabularies/")
        assert page.locator("main form[method=post]").count() == 0
        assert_fits(page)
        shot(page, f"vocabulary_list_annotator_{width}", full_page=True)
