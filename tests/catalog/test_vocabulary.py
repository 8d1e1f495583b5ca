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

from apps.catalog.models import (
    Category,
    Dataset,
    UnknownExpression,
    Vocabulary,
    VocabularyEntry,
)
from apps.catalog.services import template_create, template_edit
from apps.catalog.services.vocabulary import (
    VocabularyEditConflict,
    VocabularyInputError,
    unknown_expression_create,
    unknown_expression_delete,
    vocabulary_create,
    vocabulary_entries_replace,
    vocabulary_revision_restore,
)
from apps.catalog.vocabularies import (
    VocabularyLine,
    vocabulary_history,
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
    assert '<span class="badge ok">added</span> <bdi class="value" lang="ca">Fàtima</bdi>' in html
    assert (
        '<span class="badge status-rejected">removed</span> '
        '<bdi class="value" lang="ca">Montserrat</bdi>' in html
    )
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


# --- history ----------------------------------------------------------------------------------


def _revisions(vocabulary):
    return [
        (r.number, [(e["value"], e["group"], e["definite"]) for e in r.entries], r.saved_by)
        for r in vocabulary.revisions.order_by("number")
    ]


def _replace(vocabulary, lines, **extra):
    return vocabulary_entries_replace(
        vocabulary=vocabulary,
        lines=lines,
        base_token=vocabulary_token(vocabulary=vocabulary),
        **extra,
    )


def test_every_save_that_changes_the_entries_adds_a_revision_with_the_definite_forms(
    names, researcher
):
    # The fixture's first save of an empty vocabulary: revision 1, nothing before it to keep.
    assert _revisions(names) == [
        (
            1,
            [
                ("Josep", "m catalan", "el Josep"),
                ("Montserrat", "f catalan", "la Montserrat"),
                ("Mohamed", "m arab", "el Mohamed"),
            ],
            None,
        )
    ]
    _replace(names, [L("Jordi", "m catalan", "el Jordi")], saved_by=researcher)
    _replace(names, [L("Jordi", "m catalan", "l'en Jordi")], saved_by=researcher)
    assert _revisions(names)[1:] == [
        (2, [("Jordi", "m catalan", "el Jordi")], researcher),
        (3, [("Jordi", "m catalan", "l'en Jordi")], researcher),
    ]
    # The -def partner keeps no history of its own: its forms are in the base's revisions.
    assert not Vocabulary.objects.get(name="noms-def").revisions.exists()


def test_a_list_without_a_revision_is_recorded_first_so_it_is_never_lost(researcher):
    vocabulary = vocabulary_create(name="castes", language="hi")
    for i, (value, group) in enumerate([("शर्मा", "ब्राह्मण"), ("अली", "मुसलमान")]):
        VocabularyEntry.objects.create(vocabulary=vocabulary, value=value, group=group, position=i)
    _replace(vocabulary, [L("शर्मा", "ब्राह्मण")], saved_by=researcher)
    assert _revisions(vocabulary) == [
        (1, [("शर्मा", "ब्राह्मण", ""), ("अली", "मुसलमान", "")], None),
        (2, [("शर्मा", "ब्राह्मण", "")], researcher),
    ]
    # Changed outside the editor since (an import, a script): that list is recorded too.
    VocabularyEntry.objects.create(vocabulary=vocabulary, value="मित्तल", group="बनिया", position=5)
    _replace(vocabulary, [L("अली", "मुसलमान")], saved_by=researcher)
    assert [(n, [e[0] for e in entries], by) for n, entries, by in _revisions(vocabulary)[2:]] == [
        (3, ["शर्मा", "मित्तल"], None),
        (4, ["अली"], researcher),
    ]


def test_a_save_that_changes_no_entry_writes_no_revision(names):
    lines = vocabulary_lines(vocabulary=names)
    _replace(names, lines)
    _replace(names, lines, description="Noms")
    names.refresh_from_db()
    assert names.description == "Noms"  # the description is saved, the entries kept
    assert names.revisions.count() == 1
    assert [x.value for x in vocabulary_lines(vocabulary=names)] == [x.value for x in lines]


def test_restoring_a_revision_saves_its_list_as_a_new_revision(names, researcher, admin_user):
    _replace(names, [L("Jordi", "m catalan", "el Jordi")], saved_by=researcher)
    first = names.revisions.get(number=1)
    restored = vocabulary_revision_restore(
        revision=first, base_token=vocabulary_token(vocabulary=names), saved_by=admin_user
    )
    assert (restored.number, restored.saved_by, restored.entries) == (3, admin_user, first.entries)
    assert [x.key() for x in vocabulary_lines(vocabulary=names)] == [
        ("Josep", "m catalan", "el Josep"),
        ("Montserrat", "f catalan", "la Montserrat"),
        ("Mohamed", "m arab", "el Mohamed"),
    ]
    assert list(
        Vocabulary.objects.get(name="noms-def").entries.values_list("value", flat=True)
    ) == ["el Josep", "la Montserrat", "el Mohamed"]
    # History is not rewritten: revision 2 is still there, as saved.
    assert _revisions(names)[1] == (2, [("Jordi", "m catalan", "el Jordi")], researcher)
    # Restoring the list the vocabulary already has writes nothing.
    assert (
        vocabulary_revision_restore(revision=first, base_token=vocabulary_token(vocabulary=names))
        is None
    )
    assert names.revisions.count() == 3
    assert [
        (r.revision.number, r.same_as, r.current) for r in vocabulary_history(vocabulary=names)
    ] == [
        (3, 1, True),
        (2, None, False),
        (1, None, False),
    ]


def test_a_stale_save_or_restore_is_refused_and_writes_no_revision(names):
    token = vocabulary_token(vocabulary=names)
    _replace(names, [L("Jordi", "m catalan", "el Jordi")])
    with pytest.raises(VocabularyEditConflict):
        vocabulary_entries_replace(
            vocabulary=names, lines=[L("Pau", "m catalan", "el Pau")], base_token=token
        )
    with pytest.raises(VocabularyEditConflict) as caught:
        vocabulary_revision_restore(revision=names.revisions.get(number=1), base_token=token)
    assert [x.value for x in caught.value.current] == ["Jordi"]
    assert names.revisions.count() == 2
    assert [x.value for x in vocabulary_lines(vocabulary=names)] == ["Jordi"]


def test_a_list_saved_before_definite_forms_were_kept_is_not_restored_half(researcher):
    vocabulary = vocabulary_create(name="noms", language="ca")
    _replace(vocabulary, [L("Josep", "m"), L("Pau", "m")])
    _replace(vocabulary, [L("Josep", "m", "el Josep")], definite_forms=True)
    with pytest.raises(VocabularyInputError) as caught:
        vocabulary_revision_restore(
            revision=vocabulary.revisions.get(number=1),
            base_token=vocabulary_token(vocabulary=vocabulary),
        )
    assert [line for line, _ in caught.value.problems] == [1, 2]
    assert "the definite form of 'Josep' is empty" in caught.value.problems[0][1]
    assert vocabulary.revisions.count() == 2


def test_the_history_is_newest_first_with_what_each_revision_changed(names, researcher):
    _replace(
        names,
        [
            L("Mohamed", "m arab", "el Mohamed"),
            L("Josep", "m catalan", "en Josep"),
            L("Fàtima", "f arab", "la Fàtima"),
        ],
        saved_by=researcher,
    )
    history = vocabulary_history(vocabulary=names)
    assert [(r.revision.number, r.current) for r in history] == [(2, True), (1, False)]
    assert history[1].changes is None  # the first recorded list
    assert [(c.kind, c.value, c.before, c.after) for c in history[0].changes] == [
        ("removed", "Montserrat", "f catalan | la Montserrat", ""),
        ("changed", "Josep", "m catalan | el Josep", "m catalan | en Josep"),
        ("added", "Fàtima", "", "f arab | la Fàtima"),
        ("moved", "", "order changed", ""),
    ]
    assert history[0].text.splitlines()[0] == "Mohamed | m arab | el Mohamed"


# --- history: the page --------------------------------------------------------------------------


def _restore(client, vocabulary, number, **extra):
    data = _edit(client, vocabulary, "typed, not saved")
    return client.post(
        reverse("web:vocabulary-restore", args=[vocabulary.pk, number]), {**data, **extra}
    )


def test_the_page_lists_the_history_and_restores_a_list(names, researcher):
    client = client_for(researcher)
    url = reverse("web:vocabulary", args=[names.pk])
    assert client.post(url, _edit(client, names, "Pau | m catalan | el Pau")).status_code == 302
    html = client.get(url).content.decode()
    assert html.count('id="revisions"') == 1 and html.count('id="revision-1"') == 1
    assert "<title>noms · Vocabularies · Kasauti</title>" in html
    assert html.index('id="revision-2"') < html.index('id="revision-1"')  # newest first
    assert f"· {researcher.get_username()} ·" in html  # revision 2's author
    assert "· no one recorded ·" in html  # revision 1: the fixture saved it without a user
    assert '<span class="badge ok">added</span> <bdi class="value" lang="ca">Pau</bdi>' in html
    assert (
        '<span class="badge status-rejected">removed</span> '
        '<bdi class="value" lang="ca">Montserrat</bdi>' in html
    )
    assert 'id="restore-1"' in html and 'id="restore-2"' not in html  # 2 is the current list
    restore_url = reverse("web:vocabulary-restore", args=[names.pk, 1])
    assert f'form="vocabulary-form" formaction="{restore_url}"' in html
    restored = _restore(client, names, 1)
    assert restored.status_code == 302 and restored["Location"] == url + "#history"
    assert [x.value for x in vocabulary_lines(vocabulary=names)] == [
        "Josep",
        "Montserrat",
        "Mohamed",
    ]
    assert _revisions(names)[2][0::2] == (3, researcher)
    page = client.get(url)
    assert "revision 1 restored as revision 3" in page.content.decode()
    # Saving the list as it is records nothing, and says so.
    same = client.post(url, _edit(client, names, client.get(url).context["form"]["text"].value()))
    assert same.status_code == 302 and names.revisions.count() == 3
    assert "no entry changed, so no revision was recorded" in client.get(url).content.decode()
    # A restore that does not name the list the page showed restores nothing.
    assert client.post(restore_url, {}).status_code == 302 and names.revisions.count() == 3
    assert "nothing was restored" in client.get(url).content.decode()
    assert client.get(restore_url).status_code == 405
    assert client.post(reverse("web:vocabulary-restore", args=[names.pk, 9])).status_code == 404


def test_a_stale_restore_is_refused_with_what_changed(names, researcher, admin_user):
    first, second = client_for(researcher), client_for(admin_user)
    url = reverse("web:vocabulary", args=[names.pk])
    stale = _edit(first, names, "my own text")
    assert second.post(url, _edit(second, names, "Pau | m catalan | el Pau")).status_code == 302
    refused = first.post(reverse("web:vocabulary-restore", args=[names.pk, 1]), stale)
    html = refused.content.decode()
    assert refused.status_code == 409
    assert "Revision 1 was not restored." in html and "changed while you edited it" in html
    assert '<span class="badge ok">added</span> <bdi class="value" lang="ca">Pau</bdi>' in html
    assert "my own text" in html  # the typed text is kept in the box
    assert names.revisions.count() == 2
    # The page now carries the current token: restoring again, having seen it, is accepted.
    form = refused.context["form"]
    again = first.post(
        reverse("web:vocabulary-restore", args=[names.pk, 1]),
        {"base_token": form["base_token"].value(), "base_text": form["base_text"].value()},
    )
    assert again.status_code == 302 and names.revisions.count() == 3


def test_a_restore_that_no_longer_fits_puts_the_list_in_the_box(researcher):
    vocabulary = vocabulary_create(name="noms", language="ca")
    _replace(vocabulary, [L("Josep", "m")])
    _replace(vocabulary, [L("Pau", "m", "el Pau")], definite_forms=True)
    client = client_for(researcher)
    refused = _restore(client, vocabulary, 1)
    html = refused.content.decode()
    assert refused.status_code == 400
    assert "Revision 1 was not restored: its list does not fit" in html
    assert "Line 1: the definite form of &#x27;Josep&#x27; is empty" in html
    assert refused.context["form"]["text"].value() == "Josep | m | "
    assert vocabulary.revisions.count() == 2


def test_annotators_read_the_history_but_cannot_restore(names, annotator):
    _replace(names, [L("Pau", "m catalan", "el Pau")])
    client = client_for(annotator)
    page = client.get(reverse("web:vocabulary", args=[names.pk]))
    html = page.content.decode()
    assert page.status_code == 200 and 'id="revision-1"' in html and 'id="revision-2"' in html
    assert "Restore this list" not in html and "formaction" not in html
    refused = client.post(
        reverse("web:vocabulary-restore", args=[names.pk, 1]),
        {"base_token": vocabulary_token(vocabulary=names)},
    )
    assert refused.status_code == 403
    assert names.revisions.count() == 2 and len(vocabulary_lines(vocabulary=names)) == 1


def test_html_in_the_history_is_escaped(researcher):
    vocabulary = vocabulary_create(name="v", language="en")
    _replace(vocabulary, [L("<script>alert(1)</script>", "<i>g</i>")], saved_by=researcher)
    _replace(vocabulary, [L("<b>x</b>", "<i>g</i>")], saved_by=researcher)
    html = client_for(researcher).get(reverse("web:vocabulary", args=[vocabulary.pk])).content
    html = html.decode()
    assert "<script>alert" not in html and "<b>x</b>" not in html and "<i>g</i>" not in html
    assert (
        '<span class="badge ok">added</span> <bdi class="value" lang="en">&lt;b&gt;x&lt;/b&gt;'
        in html
    )
    assert "&lt;script&gt;alert(1)&lt;/script&gt; | &lt;i&gt;g&lt;/i&gt;</pre>" in html
