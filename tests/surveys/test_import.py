"""Importing Google Forms and Typeform CSV exports into a survey's answers: both formats, each
quirk of real exports, the mapping guess and overrides, idempotent re-imports, rejections that
write nothing and say where, and exact Unicode round trips."""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from apps.core.errors import ImportRejected
from apps.surveys.importers import (
    SurveyFormat,
    survey_format_get,
    survey_format_names,
    survey_format_register,
    survey_format_unregister,
    table_read,
    timestamps_parse,
)
from apps.surveys.models import Answer, Respondent
from apps.surveys.questionnaire import PREFER_NOT
from apps.surveys.services.imports import (
    survey_import,
    survey_import_preview,
    survey_import_upload_discard,
    survey_import_upload_get,
    survey_import_upload_save,
    survey_import_uploads_expire,
)

DATA = Path(__file__).parent.parent / "data" / "surveys"
GOOGLE = (DATA / "google_forms_export.csv").read_bytes()
TYPEFORM = (DATA / "typeform_export.csv").read_bytes()
IST = timezone(timedelta(hours=5, minutes=30))


def run(survey, data, *, format="google-forms", mapping=None, filename="export.csv", **kw):
    return survey_import(
        survey=survey, format=format, data=data, filename=filename, mapping=mapping, **kw
    )


def csv_bytes(*lines: str, bom: bool = False, crlf: bool = False) -> bytes:
    text = ("\r\n" if crlf else "\n").join(lines) + ("\r\n" if crlf else "\n")
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")


# --------------------------------------------------------------------------- registry


def test_formats_are_registered_objects():
    assert {"google-forms", "typeform"} <= set(survey_format_names())
    google = survey_format_get(name="google-forms")
    assert google.label == "Google Forms (CSV)"
    assert any("Timestamp" in k.names for k in google.known_columns)
    with pytest.raises(ValueError, match="unknown survey export format 'surveymonkey'"):
        survey_format_get(name="surveymonkey")


def test_a_registered_format_is_used_by_the_service(survey):
    """A throwaway format (semicolon export with 'Fecha' as its timestamp) plugs in through
    the registry; nothing in the service tests a format's name."""
    from apps.surveys.importers import KnownColumn

    toy = SurveyFormat(
        name="toy-forms",
        label="Toy",
        known_columns=(KnownColumn("submitted_at", ("Fecha",)),),
        looks_like=lambda table: "",
    )
    survey_format_register(format=toy)
    try:
        data = csv_bytes("Fecha;What is the stereotype?", "2024-03-05 10:00:00;Un estereotipo")
        result = run(survey, data, format="toy-forms")
        assert result.answers_created == 1
        assert Answer.objects.get().source == "toy-forms"
    finally:
        survey_format_unregister(name="toy-forms")


# --------------------------------------------------------------------------- Google Forms


def test_google_forms_preview_guesses_the_mapping(survey):
    preview = survey_import_preview(
        survey=survey, format="google-forms", data=GOOGLE, filename="g.csv"
    )
    assert preview.problems == []
    assert preview.guessed == {
        "submitted_at": "Timestamp",
        "respondent": "Email Address",
        "category": "Which social category is it about?",
        "group_text": "Which group or groups does it target? (1)",
        "text": "What is the stereotype? (1)",
        "exposure": "How do you know this stereotype? (1)",
        "experience": "Describe the experience (optional)",
        "group_text.2": "Which group or groups does it target? (2)",
        "text.2": "What is the stereotype? (2)",
        "exposure.2": "How do you know this stereotype? (2)",
        "demographics.age": "Age",
        "demographics.gender": "Gender",
    }
    assert preview.sections == 2
    # The trailing empty column (each row ends with a comma) is gone; Score is kept but unmapped.
    assert [c.label for c in preview.columns][-1] == "Score"
    text = next(c for c in preview.columns if c.label == "What is the stereotype? (1)")
    assert text.samples[0] == "मुसलमान बहुत कट्टर होते हैं"
    assert text.mapped_to == ["text"]
    assert preview.result.answers_created == 4 and preview.result.already_present == 0
    assert preview.findings_by_kind == {"empty_row": 1, "no_text": 1}
    assert Answer.objects.count() == 0  # a preview writes nothing


def test_google_forms_import(survey):
    result = run(survey, GOOGLE, filename="g.csv")
    assert (result.rows_read, result.answers_created, result.already_present) == (5, 4, 0)
    # asha (two rows), ravi, meera: one respondent per email address, never the address itself.
    assert result.respondents_created == 3
    assert result.rows_skipped == 2
    assert not Respondent.objects.filter(token_hash__contains="@").exists()
    first, second = (
        Answer.objects.filter(respondent__answers__isnull=False)
        .distinct()
        .order_by("submitted_at", "id")[:2]
    )
    assert first.text == "मुसलमान बहुत कट्टर होते हैं"
    assert first.category_key == "religion" and first.group_keys == ["muslim"]
    assert (first.heard, first.witnessed, first.affected) == (True, False, True)
    assert first.experience == "मेरे पड़ोसी ने कहा,\nफिर सबने माना।"
    assert first.submitted_at == datetime(2024, 3, 5, 16, 12, 33, tzinfo=IST)
    assert first.source == "google-forms" and first.version == survey.current_version
    assert first.language == "hi"  # the survey's first language
    # The repeated section of the same row: a second answer of the same respondent.
    assert second.text == "हिंदू शाकाहारी होते हैं" and second.respondent_id == first.respondent_id
    # The section has no category column: the group's category is inferred.
    assert second.group_keys == ["hindu"] and second.category_key == "religion"
    assert (second.heard, second.affected) == (True, False)
    asha = first.respondent
    assert asha.source == "google-forms"
    assert asha.demographics == {"age": "25-34", "gender": "woman"}
    assert asha.demographics_version == survey.current_version and asha.demographics_asked
    ravi = Answer.objects.get(text="Andaluces son vagos")
    assert ravi.category_key == "region" and ravi.group_keys == ["andalusia"]
    assert ravi.witnessed and not ravi.heard
    assert ravi.respondent.demographics == {"age": PREFER_NOT, "gender": "man"}
    parsi = Answer.objects.get(text="पारसी बहुत अमीर होते हैं")
    assert parsi.group_keys == [] and parsi.group_text == "Parsis"  # not a group of the survey


def test_reimporting_the_same_file_adds_nothing(survey):
    first = run(survey, GOOGLE)
    again = run(survey, GOOGLE)
    assert first.answers_created == 4
    assert (again.answers_created, again.already_present, again.respondents_created) == (0, 4, 0)
    assert Answer.objects.count() == 4 and Respondent.objects.count() == 3
    # A later export of the same form with one more submission: only that one is new.
    later = (
        GOOGLE
        + (
            "2024/03/07 1:00:00 PM GMT+5:30,new@example.org,धर्म,,एक नई बात,"
            "I have heard it,,,,,,,\r\n"
        ).encode()
    )
    third = run(survey, later)
    assert (third.answers_created, third.already_present, third.respondents_created) == (1, 4, 1)
    # The same file with LF line ends and a BOM is the same content.
    fourth = run(survey, b"\xef\xbb\xbf" + later.replace(b"\r\n", b"\n"))
    assert (fourth.answers_created, fourth.already_present) == (0, 5)


def test_reimport_with_another_mapping_adds_nothing(survey):
    run(survey, GOOGLE)
    preview = survey_import_preview(
        survey=survey, format="google-forms", data=GOOGLE, filename="g.csv"
    )
    mapping = dict(preview.guessed, experience="")
    again = run(survey, GOOGLE, mapping=mapping)
    assert (again.answers_created, again.already_present) == (0, 4)


def test_identical_rows_are_two_answers_and_stay_two(survey):
    data = csv_bytes(
        "Timestamp,What is the stereotype?",
        "3/25/2024 16:12:33,Same words",
        "3/25/2024 16:12:33,Same words",
    )
    assert run(survey, data).answers_created == 2
    assert run(survey, data).already_present == 2
    assert Answer.objects.count() == 2 and Respondent.objects.count() == 2


# --------------------------------------------------------------------------- Typeform


def test_typeform_import(survey):
    preview = survey_import_preview(survey=survey, format="typeform", data=TYPEFORM, filename="t")
    assert preview.guessed == {
        "submitted_at": "Submit Date (UTC)",
        "respondent": "#",
        "language": "lang",
        "text": "What is the stereotype?",
        "group_text": "Which group does it target?",
        "heard": "I have heard it",
        "witnessed": "I have witnessed it",
        "affected": "I have been affected by it",
        "experience": "Describe the experience",
    }
    result = run(survey, TYPEFORM, format="typeform")
    assert (result.rows_read, result.answers_created, result.respondents_created) == (3, 2, 2)
    assert result.findings_by_kind == {"partial": 1}
    gitanos = Answer.objects.get(text="Los gitanos roban")
    assert gitanos.language == "es" and gitanos.source == "typeform"
    assert gitanos.respondent.demographics == {} and not gitanos.respondent.demographics_asked
    assert (gitanos.heard, gitanos.witnessed, gitanos.affected) == (True, False, True)
    assert gitanos.experience == "Me lo dijeron en el colegio.\nDos veces."
    assert gitanos.submitted_at == datetime(2024, 3, 5, 10, 42, 33, tzinfo=UTC)
    assert gitanos.group_text == "gitanos" and gitanos.group_keys == []
    muslim = Answer.objects.get(language="hi")
    assert muslim.group_keys == ["muslim"] and muslim.category_key == "religion"
    assert (muslim.heard, muslim.witnessed, muslim.affected) == (True, True, False)


def test_typeform_tags_added_later_do_not_make_new_answers(survey):
    run(survey, TYPEFORM, format="typeform")
    retagged = TYPEFORM.replace(b"9f1c2a7b3d,\n", b"9f1c2a7b3d,spam-checked\n")
    assert retagged != TYPEFORM
    again = run(survey, retagged, format="typeform")
    assert (again.answers_created, again.already_present) == (0, 2)


def test_typeform_headers_with_html_tags_and_a_single_choice_column(survey):
    data = csv_bytes(
        "#,<strong>What is the stereotype?</strong>,How do you know this stereotype?,"
        "Submit Date (UTC),Network ID",
        "tok1,Los andaluces son vagos,He sido afectada,2024-03-05 10:42:33,ab12",
    )
    preview = survey_import_preview(survey=survey, format="typeform", data=data, filename="t")
    assert preview.guessed["text"] == "<strong>What is the stereotype?</strong>"
    assert preview.guessed["exposure"] == "How do you know this stereotype?"
    run(survey, data, format="typeform")
    answer = Answer.objects.get()
    assert answer.affected and not answer.heard


# --------------------------------------------------------------------------- quirks


def test_bom_crlf_quoted_newlines_devanagari(survey):
    text = "गोरे लोग ज़्यादा\r\nसमझदार होते हैं"
    data = csv_bytes(
        "Timestamp,What is the stereotype?,Which group or groups does it target?",
        f'05/03/2024 16:12:33,"{text}",हिंदू',
        "13/03/2024 09:00:00,दूसरा,",
        bom=True,
        crlf=True,
    )
    table = table_read(data, "x.csv")
    assert table.columns[0].header == "Timestamp"  # no BOM left in the first title
    assert table.rows[0].line == 2 and table.rows[1].line == 4  # the quoted break counts
    run(survey, data)
    first = Answer.objects.order_by("submitted_at").first()
    assert first.text == "गोरे लोग ज़्यादा\nसमझदार होते हैं"
    # 13/03 can only be day/month, so 05/03 is 5 March.
    assert first.submitted_at == datetime(2024, 3, 5, 16, 12, 33, tzinfo=UTC)


def test_unicode_round_trip_is_exact_and_nfc(survey):
    hindi = "दलित \u201cअछूत\u201d हैं — ऐसा कहा जाता है।"  # Devanagari, typographic quotes
    spanish_nfd = "Los gitanos son ladrone\u0301s"  # e + combining acute: NFD
    data = csv_bytes(
        "Timestamp,What is the stereotype?",
        f"2024-03-05 10:00:00,{hindi}",
        f"2024-03-05 10:00:01,{spanish_nfd}",
    )
    run(survey, data)
    texts = list(Answer.objects.order_by("submitted_at").values_list("text", flat=True))
    assert texts[0] == hindi
    assert texts[1] == unicodedata.normalize("NFC", spanish_nfd) != spanish_nfd
    assert texts[1].encode("utf-8") == "Los gitanos son ladronés".encode()


def test_duplicate_headers_are_told_apart_by_position(survey):
    data = csv_bytes(
        "Timestamp,What is the stereotype?,What is the stereotype?,What is the stereotype?",
        "2024-03-05 10:00:00,uno,,tres",
    )
    preview = survey_import_preview(survey=survey, format="google-forms", data=data, filename="d")
    assert [c.label for c in preview.columns][1:] == [
        "What is the stereotype? (1)",
        "What is the stereotype? (2)",
        "What is the stereotype? (3)",
    ]
    assert preview.sections == 3
    result = run(survey, data)
    assert result.answers_created == 2  # the empty middle section is no answer
    assert set(Answer.objects.values_list("text", flat=True)) == {"uno", "tres"}
    assert Respondent.objects.count() == 1


def test_empty_rows_and_rows_without_a_stereotype_are_findings(survey):
    data = csv_bytes(
        "Timestamp,What is the stereotype?,Which social category is it about?",
        "2024-03-05 10:00:00,uno,Religión",
        ",,",
        "",
        "2024-03-05 10:00:02,,धर्म",
        "2024-03-05 10:00:03,dos,Astrología",
    )
    result = run(survey, data)
    assert result.answers_created == 2 and result.rows_skipped == 3
    found = {(f.line, f.kind) for f in result.findings}
    assert found == {(3, "empty_row"), (4, "empty_row"), (5, "no_text"), (6, "unknown_category")}
    unknown = next(f for f in result.findings if f.kind == "unknown_category")
    assert str(unknown).startswith("export.csv:6: category (Which social category is it about?):")
    assert Answer.objects.get(text="dos").category_key == ""
    assert Answer.objects.get(text="uno").category_key == "religion"


def test_semicolon_separated_and_trailing_empty_column(survey):
    data = csv_bytes("Timestamp;What is the stereotype?;", "2024-03-05 10:00:00;uno;")
    table = table_read(data, "s.csv")
    assert [c.header for c in table.columns] == ["Timestamp", "What is the stereotype?"]
    assert run(survey, data).answers_created == 1


# --------------------------------------------------------------------------- timestamps


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024/03/05 4:12:33 PM GMT+5:30", datetime(2024, 3, 5, 16, 12, 33, tzinfo=IST)),
        ("2024/03/05 12:05:00 AM GMT", datetime(2024, 3, 5, 0, 5, tzinfo=UTC)),
        ("2024/03/05 4:12:33 pm GMT-4", datetime(2024, 3, 5, 20, 12, 33, tzinfo=UTC)),
        ("3/25/2024 16:12:33", datetime(2024, 3, 25, 16, 12, 33, tzinfo=UTC)),
        ("25/03/2024 16:12:33", datetime(2024, 3, 25, 16, 12, 33, tzinfo=UTC)),
        ("3/25/2024 4:12:33 PM", datetime(2024, 3, 25, 16, 12, 33, tzinfo=UTC)),
        ("25.03.2024 16:12:33", datetime(2024, 3, 25, 16, 12, 33, tzinfo=UTC)),
        ("2024-03-05 10:42:33", datetime(2024, 3, 5, 10, 42, 33, tzinfo=UTC)),
        ("2024-03-05T16:12:33+05:30", datetime(2024, 3, 5, 16, 12, 33, tzinfo=IST)),
        ("2024-03-05 10:42:33Z", datetime(2024, 3, 5, 10, 42, 33, tzinfo=UTC)),
        ("2024-03-05 10:42", datetime(2024, 3, 5, 10, 42, tzinfo=UTC)),
    ],
)
def test_timestamp_forms(value, expected):
    moments, _ = timestamps_parse([value])
    assert moments[0] == expected


@pytest.mark.parametrize(
    "value", ["5 March 2024", "2024/03/05 4:12:33 PM EET", "2024-13-05 10:00:00", "13:00 PM"]
)
def test_unreadable_timestamps(value):
    moments, _ = timestamps_parse([value])
    assert moments == [None]


def test_timestamps_in_a_named_zone():
    moments, _ = timestamps_parse(["2024-03-05 10:00:00"], zone="Asia/Kolkata")
    assert moments[0] == datetime(2024, 3, 5, 4, 30, tzinfo=UTC)


def test_ambiguous_dates_reject_until_the_order_is_chosen(survey):
    data = csv_bytes(
        "Timestamp,What is the stereotype?", "3/5/2024 16:12:33,uno", "4/6/2024 10:00:00,dos"
    )
    with pytest.raises(ImportRejected) as caught:
        run(survey, data)
    assert "choose the date order" in str(caught.value)
    assert caught.value.problems[0].field == "submitted_at (Timestamp)"
    assert Answer.objects.count() == 0
    mapping = {"submitted_at": "Timestamp", "text": "What is the stereotype?", "date_order": "dmy"}
    run(survey, data, mapping=mapping)
    assert Answer.objects.get(text="uno").submitted_at.date().isoformat() == "2024-05-03"


def test_a_bad_timestamp_rejects_everything_and_says_where(survey):
    data = csv_bytes(
        "Timestamp,What is the stereotype?",
        "2024/03/05 4:12:33 PM GMT+5:30,uno",
        "yesterday at noon,dos",
        "2024/02/30 4:12:33 PM GMT+5:30,tres",
    )
    with pytest.raises(ImportRejected) as caught:
        run(survey, data, filename="respuestas.csv")
    lines = [str(p) for p in caught.value.problems]
    assert lines[0].startswith(
        "respuestas.csv:3: submitted_at (Timestamp): unreadable timestamp 'yesterday at noon'"
    )
    assert lines[1].startswith("respuestas.csv:4: submitted_at (Timestamp):")
    assert Answer.objects.count() == 0 and Respondent.objects.count() == 0


# --------------------------------------------------------------------------- rejections


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"PK\x03\x04\x14\x00\x06\x00rest-of-a-zip", "this is a workbook (xlsx), not CSV"),
        (b"Timestamp,Texto\n2024-03-05 10:00:00,Espa\xf1a\n", "not UTF-8 text"),
        (b"", "the file is empty"),
        (b"Timestamp,Text\n2024-03-05 10:00:00,a\x00b\n", "a NUL character"),
        (b'Timestamp,Text\n2024-03-05 10:00:00,"open quote\n', "not readable as CSV"),
        (b"Timestamp,Text\n2024-03-05 10:00:00,uno,extra\n", "3 cells but the header has 2"),
    ],
)
def test_unreadable_files_reject_and_write_nothing(survey, data, message):
    with pytest.raises(ImportRejected) as caught:
        run(survey, data, filename="bad.csv")
    assert message in str(caught.value)
    assert caught.value.problems[0].file == "bad.csv"
    assert Answer.objects.count() == 0 and Respondent.objects.count() == 0
    preview = survey_import_preview(survey=survey, format="google-forms", data=data, filename="b")
    assert preview.problems and preview.result is None and preview.columns == []


def test_undecodable_bytes_name_their_line(survey):
    data = b"Timestamp,Texto\n2024-03-05 10:00:00,uno\n2024-03-05 10:00:01,Espa\xf1a\n"
    with pytest.raises(ImportRejected) as caught:
        run(survey, data, filename="latin1.csv")
    assert str(caught.value.problems[0]).startswith("latin1.csv:3: file: not UTF-8 text")


def test_a_missing_mapped_column_rejects(survey):
    mapping = {"submitted_at": "Timestamp", "text": "The stereotype", "experience": "Nope"}
    with pytest.raises(ImportRejected) as caught:
        run(survey, GOOGLE, mapping=mapping, filename="g.csv")
    problems = {p.field: p for p in caught.value.problems}
    assert set(problems) == {"text", "experience"}
    assert str(problems["text"]) == "g.csv:1: text: no column 'The stereotype' in the file"
    assert Answer.objects.count() == 0


def test_an_ambiguous_duplicate_header_must_be_told_apart(survey):
    mapping = {"submitted_at": "Timestamp", "text": "What is the stereotype?"}
    with pytest.raises(ImportRejected) as caught:
        run(survey, GOOGLE, mapping=mapping)
    assert "'What is the stereotype? (1)' or 'What is the stereotype? (2)'" in str(caught.value)


def test_mapping_problems(survey):
    mapping = {
        "text": "2",
        "experience": "2",
        "heard.2": "Age",
        "demographics.shoe_size": "Gender",
        "colour": "Age",
        "date_order": "ymd",
        "timezone": "Mars/Olympus",
        "default_language": "fr",
    }
    with pytest.raises(ImportRejected) as caught:
        run(survey, GOOGLE, mapping=mapping)
    fields = {p.field for p in caught.value.problems}
    assert {"demographics.shoe_size", "colour", "date_order", "timezone", "default_language"} <= (
        fields
    )
    mapping = {"text": "2", "experience": "2", "heard.2": "Age"}
    with pytest.raises(ImportRejected) as caught:
        run(survey, GOOGLE, mapping=mapping)
    messages = {p.field: p.message for p in caught.value.problems}
    assert messages["submitted_at"].startswith("not mapped")
    assert messages["text.2"] == "section 2 has fields but no stereotype (text or attribute)"
    assert messages["experience"] == "column 'Email Address' is mapped to text and experience"


def test_too_long_values_reject_with_the_limit(survey):
    data = csv_bytes(
        "Timestamp,What is the stereotype?,Which group or groups does it target?",
        f"2024-03-05 10:00:00,uno,{'x' * 301}",
    )
    with pytest.raises(ImportRejected) as caught:
        run(survey, data)
    problem = caught.value.problems[0]
    assert (problem.line, problem.message) == (2, "301 characters; at most 300 are kept")
    assert problem.field == "group_text (Which group or groups does it target?)"


# --------------------------------------------------------------------------- mapping


def test_a_given_mapping_overrides_the_guess(survey):
    preview = survey_import_preview(survey=survey, format="google-forms", data=GOOGLE, filename="g")
    mapping = dict(preview.guessed)
    mapping.update(
        {
            "text": "What is the stereotype? (2)",
            "group_text": "Which group or groups does it target? (2)",
            "exposure": "How do you know this stereotype? (2)",
            "text.2": "",
            "group_text.2": "",
            "exposure.2": "",
            "respondent": "",
            "default_language": "es",
            "heard_words": "seen",  # what the survey calls witnessing, read as heard here
        }
    )
    result = run(survey, GOOGLE, mapping=mapping)
    assert result.answers_created == 1
    assert result.respondents_created == 1  # without a respondent key: one per row
    answer = Answer.objects.get()
    assert answer.text == "हिंदू शाकाहारी होते हैं" and answer.language == "es"
    assert answer.heard is False and answer.witnessed is False  # "I have heard it" ≠ "seen"


def test_mapping_by_column_number(survey):
    data = csv_bytes("Timestamp,Q1,Q2", "2024-03-05 10:00:00,uno,dos")
    run(survey, data, mapping={"submitted_at": "1", "text": "3", "attribute": "Q1"})
    answer = Answer.objects.get()
    assert (answer.text, answer.attribute) == ("dos", "uno")


def test_the_survey_own_question_texts_map_exactly(survey):
    content = survey.current_version.content
    hi = content["strings"]["hi"]
    data = csv_bytes(
        f"Timestamp,{hi['stereotype_label']},{hi['experience_label']},{hi['affected']}",
        "2024-03-05 10:00:00,uno,una historia,हाँ",
    )
    preview = survey_import_preview(survey=survey, format="google-forms", data=data, filename="s")
    assert preview.guessed == {
        "submitted_at": "Timestamp",
        "text": hi["stereotype_label"],
        "experience": hi["experience_label"],
        "affected": hi["affected"],
    }


def test_language_column_and_unknown_language(survey):
    data = csv_bytes(
        "Timestamp,Language,What is the stereotype?",
        "2024-03-05 10:00:00,Español,uno",
        "2024-03-05 10:00:01,हिंदी,दो",
        "2024-03-05 10:00:02,Klingon,tres",
    )
    result = run(survey, data)
    assert dict(Answer.objects.values_list("text", "language")) == {
        "uno": "es",
        "दो": "hi",
        "tres": "hi",
    }
    assert result.findings_by_kind == {"unknown_language": 1}


def test_dry_run_writes_nothing(survey):
    result = run(survey, GOOGLE, dry_run=True)
    assert result.answers_created == 4 and result.dry_run
    assert Answer.objects.count() == 0 and Respondent.objects.count() == 0


# --------------------------------------------------------------------------- upload store


def test_upload_store_is_bound_to_user_and_survey(
    survey, researcher, admin_user, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path
    upload_id = survey_import_upload_save(
        survey=survey, format="typeform", data=TYPEFORM, filename="../../t.csv", user=researcher
    )
    stored = survey_import_upload_get(upload_id=upload_id, survey=survey, user=researcher)
    assert stored.data == TYPEFORM and stored.filename == "t.csv" and stored.format == "typeform"
    from apps.core.errors import KasautiError

    with pytest.raises(KasautiError, match="upload the file again"):
        survey_import_upload_get(upload_id=upload_id, survey=survey, user=admin_user)
    with pytest.raises(KasautiError, match="upload the file again"):
        survey_import_upload_get(upload_id="../../etc/passwd", survey=survey, user=researcher)
    assert survey_import_uploads_expire(now=stored.created + 25 * 3600) == 1
    with pytest.raises(KasautiError):
        survey_import_upload_get(upload_id=upload_id, survey=survey, user=researcher)
    other = survey_import_upload_save(
        survey=survey, format="typeform", data=TYPEFORM, filename="t.csv", user=researcher
    )
    survey_import_upload_discard(upload_id=other)
    assert not (tmp_path / "survey-imports" / other).exists()


def test_rows_not_naming_every_column_are_inserted_by_bulk_create(survey):
    """The COPY path needs every column; rows written before a column was added (or on
    SQLite) go through bulk_create, which fills in the defaults."""
    from apps.surveys.services.imports import _insert

    written = _insert(
        Respondent,
        [{"survey_id": survey.pk, "token_hash": "a" * 64, "source": "typeform"}],
    )
    assert written == 1
    respondent = Respondent.objects.get()
    assert respondent.demographics == {} and respondent.created_at is not None


def test_utf16_tab_separated_text(survey):
    """Excel's "Unicode text": UTF-16 with a byte-order mark, tab-separated."""
    text = "Timestamp\tWhat is the stereotype?\r\n2024-03-05 10:00:00\tमुसलमान बहुत कट्टर होते हैं\r\n"
    run(survey, text.encode("utf-16"))
    assert Answer.objects.get().text == "मुसलमान बहुत कट्टर होते हैं"


def test_a_typeform_export_read_as_google_forms_says_so(survey):
    preview = survey_import_preview(
        survey=survey, format="google-forms", data=TYPEFORM, filename="t.csv"
    )
    assert "no 'Timestamp' column: is this a Google Forms export?" in preview.format_note
    assert [p.field for p in preview.problems] == ["submitted_at"]


def test_checkbox_groups_joined_with_commas(survey):
    data = csv_bytes(
        "Timestamp,What is the stereotype?,Which group or groups does it target?",
        '2024-03-05 10:00:00,uno,"Musulmanes, Hindúes"',
        '2024-03-05 10:00:01,dos,"मुसलमान, Andalucía"',
        '2024-03-05 10:00:02,tres,"Musulmanes, Jainistas"',
    )
    run(survey, data)
    one, two, three = Answer.objects.order_by("submitted_at")
    assert (one.group_keys, one.category_key, one.group_text) == (
        ["muslim", "hindu"],
        "religion",
        "",
    )
    # Groups of two categories: the first decides the category; the other stays as typed.
    assert (two.group_keys, two.category_key, two.group_text) == (
        ["muslim"],
        "religion",
        "Andalucía",
    )
    # A group the survey does not have stays as typed.
    assert (three.group_keys, three.group_text) == (["muslim"], "Jainistas")
