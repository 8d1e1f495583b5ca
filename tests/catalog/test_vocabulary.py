"""The vocabulary editor (services/vocabulary.py, vocabularies.py, views_vocabulary.py):
entries edited as lines with their group labels and definite forms (a parallel `<name>-def`
vocabulary, aligned), NFC on input, bad lines named, the second of two concurrent saves
refused with what changed, template versions unchanged by an edit, unknown answers per
language, permissions and escaping."""

from __future__ import annotations

import unicodedata

import pytest
from django.test import Client
from django.urls import reverse

from apps.catalog.models import Category, Dataset, UnknownExpression, Vocabulary
from apps.catalog.services import template_create, template_edit
from apps.catalog.services.vocabulary import (
    VocabularyEditConflict,
    VocabularyInputError,
    unknown_expression_create,
    unknown_expression_delete,
    vocabulary_create,
    vocabulary_entries_replace,
)
from apps.catalog.vocabularies import (
    VocabularyLine,
    vocabulary_lines,
    vocabulary_lines_diff,
    vocabulary_text_parse,
    vocabulary_token,
    vocabulary_uses,
)
from apps.core.errors import ConflictError, KasautiError

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def L(value, group="", definite="", line=0):  # noqa: N802 - a short constructor for tables
    return VocabularyLine(value=value, group=group, definite=definite, line=line)


@pytest.fixture
def names():
    vocabulary = vocabulary_create(name="noms", language="ca", definite_forms=True)
    return vocabulary_entries_replace(
        vocabulary=vocabulary,
        lines=[
            L("Josep", "m catalan", "el Josep"),
            L("Montserrat", "f catalan", "la Montserrat"),
            L("Mohamed", "m arab", "el Mohamed"),
        ],
        base_token=vocabulary_token(vocabulary=vocabulary),
    )


# --- services ---------------------------------------------------------------------------------


def test_definite_forms_live_in_an_aligned_def_vocabulary(names):
    partner = Vocabulary.objects.get(name="noms-def", language="ca")
    assert list(names.entries.values_list("value", "group", "position")) == [
        ("Josep", "m catalan", 0),
        ("Montserrat", "f catalan", 1),
        ("Mohamed", "m arab", 2),
    ]
    assert list(partner.entries.values_list("value", "group", "position")) == [
        ("el Josep", "m catalan", 0),
        ("la Montserrat", "f catalan", 1),
        ("el Mohamed", "m arab", 2),
    ]
    assert [line.definite for line in vocabulary_lines(vocabulary=names)] == [
        "el Josep",
        "la Montserrat",
        "el Mohamed",
    ]


def test_a_template_draws_aligned_bare_and_definite_lists(names):
    """NAME1 and NAME1-def reference the pair with the same groups: aligned lists."""
    dataset = Dataset.objects.create(name="cabbq")
    UnknownExpression.objects.get_or_create(language="ca", text="No es pot determinar")
    groups = ["m catalan", "m arab"]
    version = template_create(
        dataset=dataset,
        external_id="N1",
        category=Category.objects.get_or_create(name="Race")[0],
        content={
            "language": "ca",
            "ambiguous_context": "{{NAME1-def}} i {{NAME2}} esperaven.",
            "disambiguating_context": "{{NAME1-def}} va oblidar el bitllet.",
            "question_negative": "Qui va oblidar el bitllet?",
            "question_non_negative": "Qui el tenia?",
            "answer_negative": "{{NAME1-def}}",
            "answer_non_negative": "{{NAME2}}",
            "placeholders": {
                "NAME1": {"vocabulary": "noms", "groups": groups},
                "NAME1-def": {"vocabulary": "noms-def", "groups": groups},
                "NAME2": ["la Júlia"],
            },
        },
    )
    assert version.placeholders["NAME1"] == ["Josep", "Mohamed"]
    assert version.placeholders["NAME1-def"] == ["el Josep", "el Mohamed"]
    assert version.placeholder_sources["NAME1-def"]["vocabulary"] == "noms-def"
    # Editing the vocabulary does not change the saved version; a later edit draws anew.
    vocabulary_entries_replace(
        vocabulary=names,
        lines=[L("Jordi", "m catalan", "el Jordi"), L("Mohamed", "m arab", "el Mohamed")],
        base_token=vocabulary_token(vocabulary=names),
    )
    version.refresh_from_db()
    assert version.placeholders["NAME1"] == ["Josep", "Mohamed"]
    uses = vocabulary_uses(vocabulary=names)
    assert [(u.external_id, u.number, u.placeholders) for u in uses] == [
        ("N1", 1, ["NAME1", "NAME1-def"])
    ]
    later = template_edit(
        template=version.template,
        changes={"placeholders": {**version.placeholder_sources, "NAME2": ["la Júlia"]}},
    )
    assert later.placeholders["NAME1"] == ["Jordi", "Mohamed"]
    assert later.placeholders["NAME1-def"] == ["el Jordi", "el Mohamed"]


def test_input_is_nfc_and_spaces_collapsed_and_group_defaults_to_value():
    vocabulary = vocabulary_create(name="religions", language="hi")
    decomposed = unicodedata.normalize("NFD", "मुसलमान")
    assert decomposed != "मुसलमान" or unicodedata.normalize("NFD", "é") != "é"
    vocabulary_entries_replace(
        vocabulary=vocabulary,
        lines=[L(f"  {unicodedata.normalize('NFD', 'Café')}   au  lait ", ""), L("हिंदू", "Hindu")],
        base_token=vocabulary_token(vocabulary=vocabulary),
    )
    assert list(vocabulary.entries.values_list("value", "group")) == [
        ("Café au lait", "Café au lait"),
        ("हिंदू", "Hindu"),
    ]


def test_bad_lines_are_named_and_nothing_is_written(names):
    before = vocabulary_lines(vocabulary=names)
    with pytest.raises(VocabularyInputError) as caught:
        vocabulary_entries_replace(
            vocabulary=names,
            lines=[
                L("Josep", "m", "el Josep", line=1),
                L("  ", "m", "el ?", line=2),
                L("Josep", "m", "el Josep", line=4),
                L("Pau", "m", "", line=5),
            ],
            base_token=vocabulary_token(vocabulary=names),
        )
    assert caught.value.problems == [
        (2, "the value is empty"),
        (4, "'Josep' is already on line 1"),
        (5, "the definite form of 'Pau' is empty (this vocabulary keeps one for every value)"),
    ]
    assert str(caught.value).startswith("line 2: the value is empty; line 4:")
    assert vocabulary_lines(vocabulary=names) == before


def test_the_def_vocabulary_is_edited_only_through_its_base(names):
    partner = Vocabulary.objects.get(name="noms-def")
    with pytest.raises(KasautiError, match="edit noms \\(its third column\\) instead"):
        vocabulary_entries_replace(
            vocabulary=partner,
            lines=[L("el Pau")],
            base_token=vocabulary_token(vocabulary=partner),
        )
    assert partner.entries.count() == 3


def test_a_definite_form_needs_a_vocabulary_that_keeps_them():
    vocabulary = vocabulary_create(name="occupations", language="es")
    with pytest.raises(VocabularyInputError, match="line 1: a definite form was given"):
        vocabulary_entries_replace(
            vocabulary=vocabulary,
            lines=[L("médico", "highSES", "el médico", line=1)],
            base_token=vocabulary_token(vocabulary=vocabulary),
        )
    vocabulary_entries_replace(
        vocabulary=vocabulary,
        lines=[L("médico", "highSES", "el médico", line=1)],
        base_token=vocabulary_token(vocabulary=vocabulary),
        definite_forms=True,
    )
    assert Vocabulary.objects.get(name="occupations-def").entries.get().value == "el médico"


def test_the_second_of_two_concurrent_saves_is_refused_with_the_current_list(names):
    token = vocabulary_token(vocabulary=names)  # two researchers open the page
    vocabulary_entries_replace(
        vocabulary=names,
        lines=[*vocabulary_lines(vocabulary=names), L("Fàtima", "f arab", "la Fàtima")],
        base_token=token,
    )
    with pytest.raises(VocabularyEditConflict) as caught:
        vocabulary_entries_replace(
            vocabulary=names, lines=[L("Pau", "m catalan", "el Pau")], base_token=token
        )
    assert [line.value for line in caught.value.current][-1] == "Fàtima"
    assert caught.value.token == vocabulary_token(vocabulary=names)
    assert names.entries.count() == 4  # nothing of the second save was written


def test_the_diff_names_added_removed_changed_and_moved_entries():
    before = [L("a", "g1"), L("b", "g2"), L("c", "g3")]
    after = [L("c", "g3"), L("a", "g9"), L("d", "g4")]
    assert [
        (c.kind, c.value, c.before, c.after)
        for c in vocabulary_lines_diff(before=before, after=after)
    ] == [
        ("removed", "b", "g2", ""),
        ("changed", "a", "g1", "g9"),
        ("added", "d", "", "g4"),
        ("moved", "", "order changed", ""),
    ]


def test_the_text_format_keeps_line_numbers_and_names_extra_columns():
    lines, problems = vocabulary_text_parse(text="Ram | Brahmin\n\nAli\tMuslim\tel Ali\na|b|c|d\n")
    assert lines == [L("Ram", "Brahmin", line=1), L("Ali", "Muslim", "el Ali", line=3)]
    assert problems == [
        (4, "4 columns; a line is value | group | definite form (a value cannot contain '|')")
    ]


def test_vocabulary_create_refusals():
    vocabulary_create(name="castes", language="hi")
    with pytest.raises(ConflictError, match="already exists"):
        vocabulary_create(name=" castes ", language="hi")
    with pytest.raises(KasautiError, match="hold the definite forms"):
        vocabulary_create(name="castes-def", language="hi")
    with pytest.raises(KasautiError, match="not a language code"):
        vocabulary_create(name="x", language="Hindi")
    with pytest.raises(KasautiError, match="needs a name"):
        vocabulary_create(name="  ", language="hi")


def test_unknown_expressions_are_nfc_checked_and_removable():
    text = unicodedata.normalize("NFD", "ठीक से नहीं कहा जा सकता")
    expression = unknown_expression_create(language="hi", text=f" {text} ")
    assert expression.text == unicodedata.normalize("NFC", text.strip())
    with pytest.raises(ConflictError, match="already an unknown expression"):
        unknown_expression_create(language="hi", text=text)
    with pytest.raises(KasautiError, match="the expression is empty"):
        unknown_expression_create(language="hi", text="   ")
    unknown_expression_delete(expression=expression)
    assert not UnknownExpression.objects.filter(pk=expression.pk).exists()


# --- pages ------------------------------------------------------------------------------------


def _edit(client, vocabulary, text, **extra):
    page = client.get(reverse("web:vocabulary", args=[vocabulary.pk]))
    form = page.context["form"]
    data = {
        "text": text,
        "description": form["description"].value() or "",
        "base_token": form["base_token"].value(),
        "base_text": form["base_text"].value(),
        **extra,
    }
    return data


def test_the_page_edits_entries_and_says_versions_keep_their_values(names, researcher):
    client = client_for(researcher)
    url = reverse("web:vocabulary", args=[names.pk])
    page = client.get(url)
    html = page.content.decode()
    assert page.status_code == 200 and 'id="copy-notice"' in html
    assert "does <strong>not</strong> change existing template versions" in html
    assert "Josep | m catalan | el Josep\nMontserrat | f catalan | la Montserrat" in html
    assert '<ul id="uses">' in html
    data = _edit(client, names, "Josep | m catalan | el Josep\nPau | m catalan | el Pau\n")
    saved = client.post(url, data)
    assert saved.status_code == 302 and saved["Location"] == url
    assert [line.value for line in vocabulary_lines(vocabulary=names)] == ["Josep", "Pau"]
    # The -def vocabulary's page is the same editor.
    partner = Vocabulary.objects.get(name="noms-def")
    assert client.get(reverse("web:vocabulary", args=[partner.pk]))["Location"] == url


def test_bad_lines_are_shown_with_their_numbers_and_the_text_kept(names, researcher):
    client = client_for(researcher)
    url = reverse("web:vocabulary", args=[names.pk])
    text = "Josep | m | el Josep\n | m | el ?\nJosep | m | el Josep"
    page = client.post(url, _edit(client, names, text))
    html = page.content.decode()
    assert page.status_code == 400
    assert "Line 2: the value is empty" in html
    assert "Line 3: &#x27;Josep&#x27; is already on line 1" in html
    assert "Josep | m | el Josep\n | m | el ?" in html
    assert len(vocabulary_lines(vocabulary=names)) == 3


def test_a_conflicting_save_shows_what_changed_and_keeps_the_text(names, researcher, admin_user):
    first, second = client_for(researcher), client_for(admin_user)
    url = reverse("web:vocabulary", args=[names.pk])
    mine = _edit(first, names, "Josep | m catalan | el Josep\nJordi | m catalan | el Jordi")
    theirs = _edit(
        second,
        names,
        "Josep | m catalan | el Josep\nMohamed | m arab | el Mohamed\nFàtima | f arab | la Fàtima",
    )
    assert second.post(url, theirs).status_code == 302
    refused = first.post(url, mine)
    html = refused.content.decode()
    assert refused.status_code == 409
    assert "changed while you edited it" in html
    assert '<span class="badge ok">added</span> Fàtima' in html
    assert '<span class="badge status-rejected">removed</span> Montserrat' in html
    assert "Jordi | m catalan | el Jordi" in html  # my text is kept
    assert [line.value for line in vocabulary_lines(vocabulary=names)] == [
        "Josep",
        "Mohamed",
        "Fàtima",
    ]
    # Saving again from the refusal page is based on the current list: accepted.
    form = refused.context["form"]
    again = first.post(
        url,
        {
            "text": form["text"].value(),
            "description": "",
            "base_token": form["base_token"].value(),
            "base_text": form["base_text"].value(),
        },
    )
    assert again.status_code == 302
    assert [line.value for line in vocabulary_lines(vocabulary=names)] == ["Josep", "Jordi"]


def test_annotators_read_but_cannot_write(names, annotator):
    client = client_for(annotator)
    url = reverse("web:vocabulary", args=[names.pk])
    page = client.get(url)
    assert page.status_code == 200 and b'id="vocabulary-form"' not in page.content
    assert b"la Montserrat" in page.content
    token = vocabulary_token(vocabulary=names)
    assert client.post(url, {"text": "x", "base_token": token}).status_code == 403
    assert (
        client.post(reverse("web:vocabulary-create"), {"name": "n", "language": "hi"}).status_code
        == 403
    )
    assert (
        client.post(
            reverse("web:unknown-expression-add"), {"language": "hi", "text": "पता नहीं"}
        ).status_code
        == 403
    )
    expression = UnknownExpression.objects.first()
    assert (
        client.post(reverse("web:unknown-expression-delete", args=[expression.pk])).status_code
        == 403
    )
    assert len(vocabulary_lines(vocabulary=names)) == 3
    listing = client.get(reverse("web:vocabularies"))
    assert listing.status_code == 200 and b'id="create-form"' not in listing.content


def test_create_from_the_list_page_and_refusals_beside_the_field(researcher):
    client = client_for(researcher)
    created = client.post(
        reverse("web:vocabulary-create"),
        {"name": "nombres", "language": "es", "definite_forms": "on"},
    )
    vocabulary = Vocabulary.objects.get(name="nombres")
    assert created["Location"] == reverse("web:vocabulary", args=[vocabulary.pk])
    assert Vocabulary.objects.filter(name="nombres-def", language="es").exists()
    listing = client.get(reverse("web:vocabularies")).content.decode()
    assert 'data-vocabulary="nombres"' in listing and 'data-vocabulary="nombres-def"' not in listing
    refused = client.post(reverse("web:vocabulary-create"), {"name": "nombres", "language": "es"})
    assert refused.status_code == 400
    assert (
        "a vocabulary &#x27;nombres&#x27; in &#x27;es&#x27; already exists"
        in refused.content.decode()
    )


def test_unknown_answers_per_language_flag_blocked_languages(researcher):
    UnknownExpression.objects.filter(language="ta").delete()
    dataset = Dataset.objects.create(name="ta-set")
    template_create(
        dataset=dataset,
        external_id="T1",
        category=Category.objects.get_or_create(name="Caste")[0],
        content={
            "language": "ta",
            "ambiguous_context": "{{NAME1}} மற்றும் {{NAME2}} காத்திருந்தனர்.",
            "disambiguating_context": "{{NAME1}} டிக்கெட்டை மறந்தார்.",
            "question_negative": "டிக்கெட்டை மறந்தது யார்?",
            "question_non_negative": "யார் தயாராக இருந்தார்?",
            "answer_negative": "{{NAME1}}",
            "answer_non_negative": "{{NAME2}}",
            "placeholders": {"NAME1": ["அ"], "NAME2": ["ஆ"]},
            "status": "draft",
        },
        allow_problems=True,
    )
    client = client_for(researcher)
    html = client.get(reverse("web:vocabularies")).content.decode()
    assert (
        'data-testid="blocked-ta">No unknown answer: 1 template in Tamil cannot be instantiated'
        in html
    )
    added = client.post(
        reverse("web:unknown-expression-add"), {"language": "ta", "text": "தெரியவில்லை"}
    )
    assert added.status_code == 302 and added["Location"].endswith("#unknown-ta")
    assert (
        'data-testid="blocked-ta"' not in client.get(reverse("web:vocabularies")).content.decode()
    )
    refused = client.post(
        reverse("web:unknown-expression-add"), {"language": "ta", "text": "தெரியவில்லை"}
    )
    assert (
        refused.status_code == 400 and "already an unknown expression" in refused.content.decode()
    )
    bad = client.post(reverse("web:unknown-expression-add"), {"language": "Tamil", "text": "x"})
    assert bad.status_code == 400 and "not a language code" in bad.content.decode()
    expression = UnknownExpression.objects.get(language="ta")
    removed = client.post(reverse("web:unknown-expression-delete", args=[expression.pk]))
    assert (
        removed.status_code == 302 and not UnknownExpression.objects.filter(language="ta").exists()
    )


def test_html_in_values_is_escaped(researcher):
    vocabulary = vocabulary_create(name="<b>v</b>", language="en", description="<script>x</script>")
    vocabulary_entries_replace(
        vocabulary=vocabulary,
        lines=[L("<script>alert(1)</script>", "<i>g</i>")],
        base_token=vocabulary_token(vocabulary=vocabulary),
    )
    client = client_for(researcher)
    for url in (reverse("web:vocabularies"), reverse("web:vocabulary", args=[vocabulary.pk])):
        html = client.get(url).content.decode()
        assert "<script>alert" not in html and "<b>v</b>" not in html and "<i>g</i>" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html or "&lt;i&gt;g&lt;/i&gt;" in html
