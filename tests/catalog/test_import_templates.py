"""Template imports: BharatBBQ, BBQ; re-import; Indic text; bulk writes (EsBBQ/CaBBQ: see
test_import_esbbq.py)."""

from __future__ import annotations

import csv
import io
import unicodedata

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.catalog.importers import ImportFile, benchmark_import
from apps.catalog.models import Category, Template, TemplateVersion

from .test_import_support import bharat_file, bharat_row, csv_bytes, data_file

pytestmark = pytest.mark.django_db

# Far above what a bulk import needs and far below one query per template row.
QUERY_BUDGET = 200


def version_of(external_id: str) -> TemplateVersion:
    return Template.objects.get(external_id=external_id).current_version


def test_bharatbbq_caste_rows_map_to_templates() -> None:
    report = benchmark_import(
        dataset_name="bharat", fmt="bharatbbq", files=[data_file("bharatbbq/Caste.csv")]
    )
    assert report.dataset_created
    assert (report.templates.created, report.templates.updated) == (4, 0)
    assert report.by_category == {"Caste": 4}
    assert set(Template.objects.values_list("external_id", flat=True)) == {
        "Caste-1a-cn-biased",
        "Caste-1a-cn-anti",
        "Caste-1a-pn-biased",
        "Caste-1a-pn-anti",
    }
    biased = version_of("Caste-1a-cn-biased")
    assert biased.placeholders == {
        "NAME1": ["Marwari", "Chettiar"],
        "NAME2": ["Jat", "Kurmi", "Ezhava"],
        "WORD1": ["mandi"],
    }
    assert (biased.target_placeholder, biased.pairing) == ("NAME1", "stereotypical")
    assert biased.stereotyped_groups == ["Marwari", "Chettiar"]
    assert biased.answer_negative == "The {{NAME1}} trader"
    assert biased.source == "https://example.org/survey-2023"
    assert biased.notes == "Relevant_social_values: unwilling to bargain"
    assert (biased.status, biased.language, biased.origin) == ("draft", "en", "Caste.csv:2")
    assert biased.template.question_index == "1" and biased.template.variant == "a"
    assert biased.template.category.name == "Caste"

    # The anti row lists NAME2 first and holds the target in NAME2 (keys parsed by name).
    anti = version_of("Caste-1a-cn-anti")
    assert anti.placeholders["NAME2"] == ["Marwari", "Chettiar"]
    assert (anti.target_placeholder, anti.pairing) == ("NAME2", "anti-stereotypical")
    assert anti.origin == "Caste.csv:4"  # row 2 spans lines 2-3 (newline inside Names)

    proper = version_of("Caste-1a-pn-biased")
    assert proper.proper_noun is True
    # A `{NAME1}}` typo stays as published (BharatBBQ's generator does not fill it): a finding.
    assert proper.disambiguating_context.startswith("{NAME1}} insisted")
    assert proper.answer_negative == "{{NAME1}}"
    [typo] = proper.findings.all()
    assert (typo.kind, typo.field, typo.original) == (
        "parse-repair",
        "Disambiguating_Context",
        proper.disambiguating_context,
    )
    assert report.findings_by_kind == {"parse-repair": 2}  # the pn-anti row has it too


def test_reimport_edits_only_changed_templates() -> None:
    rows = [bharat_row(), bharat_row(Q_id="8")]
    first = benchmark_import(dataset_name="d", fmt="bharatbbq", files=[bharat_file(rows)])
    assert first.templates.created == 2
    approved = version_of("Age-7a-cn-biased")
    approved.status = "approved"
    approved.save()

    same = benchmark_import(dataset_name="d", fmt="bharatbbq", files=[bharat_file(rows)])
    assert (same.templates.created, same.templates.updated, same.templates.unchanged) == (0, 0, 2)
    assert not same.dataset_created
    assert version_of("Age-7a-cn-biased").status == "approved"

    rows[1] = bharat_row(Q_id="8", Question_non_negative="Who was well organised?")
    changed = benchmark_import(
        dataset_name="d", fmt="bharatbbq", files=[bharat_file([rows[1], rows[0]])]
    )
    assert (changed.templates.updated, changed.templates.unchanged) == (1, 1)
    edited = version_of("Age-8a-cn-biased")
    assert edited.number == 2 and edited.question_non_negative == "Who was well organised?"
    assert edited.status == "draft"
    assert TemplateVersion.objects.count() == 3


def test_empty_answer_cells_default_to_the_names() -> None:
    rows = [
        bharat_row(Answer_negative="", Answer_non_negative=""),
        bharat_row(
            Q_id="9", Answer_negative="", Answer_non_negative="the {{NAME1}}", Pairing="anti"
        ),
    ]
    benchmark_import(dataset_name="d", fmt="bharatbbq", files=[bharat_file(rows)])
    both = version_of("Age-7a-cn-biased")
    assert (both.answer_negative, both.answer_non_negative) == ("{{NAME1}}", "{{NAME2}}")
    one = version_of("Age-9a-cn-anti")
    assert (one.answer_negative, one.answer_non_negative) == ("{{NAME2}}", "the {{NAME1}}")
    assert one.target_placeholder == "NAME1"


def test_old_header_names_and_extra_columns() -> None:
    header = [
        "Q_id",
        "Category",
        "Ambiguous_Context",
        "Disambiguating_Context",
        "Names",
        "Pairing",
        "Question_negative_stereotype",
        "Question_non_negative",
        "Answer_negative",
        "Answer_non_negative",
        "Known_stereotyped_groups",
        "Transformation",
        "Something_else",
    ]
    row = bharat_row(
        Question_negative_stereotype="Who lost the form?",
        Transformation="CT",
        Something_else="ignored",
        Ambiguous_Context="A {{NAME1}} and a {{NAME2}} queued.",
    )
    file = ImportFile("Religion.csv", csv_bytes(header, [row]))
    benchmark_import(dataset_name="d", fmt="bharatbbq", files=[file])
    version = version_of("Age-7-cn-biased")
    assert version.question_negative == "Who lost the form?"
    assert version.transformation_type == "CT"


@pytest.mark.parametrize("language", ["bn", "or", "ta", "te"])
def test_indic_template_text_round_trips(language: str) -> None:
    file = data_file(f"bharatbbq/Age_{language}.csv")
    [cells] = list(csv.DictReader(io.StringIO(file.data.decode("utf-8"))))
    benchmark_import(dataset_name="indic", fmt="bharatbbq", files=[file], language=language)
    version = version_of("Age-1a-cn-biased")
    assert version.language == language
    for field_name, column in [
        ("ambiguous_context", "Ambiguous_Context"),
        ("disambiguating_context", "Disambiguating_Context"),
        ("question_negative", "Question_negative"),
        ("question_non_negative", "Question_non_negative"),
    ]:
        stored = getattr(version, field_name)
        assert stored.encode("utf-8") == unicodedata.normalize("NFC", cells[column]).encode()
    names = cells["Names"]
    for value in version.placeholders["NAME1"] + version.placeholders["NAME2"]:
        assert value.encode() in names.encode()


@pytest.mark.parametrize("language", ["bn", "or", "ta", "te"])
def test_decomposed_indic_input_is_stored_composed(language: str) -> None:
    composed = data_file(f"bharatbbq/Age_{language}.csv").data.decode("utf-8")
    decomposed = unicodedata.normalize("NFD", composed)
    assert decomposed != composed  # the sample has canonically decomposable vowel signs
    file = ImportFile(f"Age_{language}.csv", decomposed.encode("utf-8"))
    benchmark_import(dataset_name="nfd", fmt="bharatbbq", files=[file], language=language)
    version = version_of("Age-1a-cn-biased")
    for text in (
        version.ambiguous_context,
        version.disambiguating_context,
        version.question_negative,
        *version.placeholders["NAME1"],
    ):
        assert text == unicodedata.normalize("NFC", text)
        assert text.encode() in composed.encode()
    # Re-importing the composed file is not a change.
    again = benchmark_import(
        dataset_name="nfd",
        fmt="bharatbbq",
        files=[data_file(f"bharatbbq/Age_{language}.csv")],
        language=language,
    )
    assert again.templates.unchanged == 1


def test_850_rows_import_in_bulk_not_row_by_row() -> None:
    """850 templates (the size of BharatBBQ) import with a number of queries that does not grow
    with the rows: a per-row INSERT or lookup would cost thousands. Time is measured by
    bench/bharatbbq_import.py, not here (a timed test fails at random on a loaded machine)."""
    rows = [
        bharat_row(Q_id=str(n // 4), version="abcd"[n % 4], Pairing="biased" if n % 2 else "anti")
        for n in range(850)
    ]
    with CaptureQueriesContext(connection) as first:
        report = benchmark_import(dataset_name="big", fmt="bharatbbq", files=[bharat_file(rows)])
    with CaptureQueriesContext(connection) as second:
        again = benchmark_import(dataset_name="big", fmt="bharatbbq", files=[bharat_file(rows)])
    assert report.templates.created == 850 and again.templates.unchanged == 850
    assert len(first) < QUERY_BUDGET and len(second) < QUERY_BUDGET, (len(first), len(second))


def test_bulk_created_templates_match_template_create() -> None:
    """The importer writes new templates in bulk; the rows must be what the service writes."""
    from apps.catalog import services
    from apps.catalog.importers import parse_import

    file = data_file("bharatbbq/Caste.csv")
    benchmark_import(dataset_name="bulk", fmt="bharatbbq", files=[file])
    record = parse_import(fmt="bharatbbq", files=[file]).templates[0]
    reference = services.template_create(
        dataset=services.dataset_get_or_create(name="service")[0],
        external_id=record.external_id,
        category=Category.objects.get(name=record.category),
        content=record.content,
        question_index=record.question_index,
        variant=record.variant,
        position=1,
    )
    imported = Template.objects.get(dataset__name="bulk", external_id=record.external_id)
    assert imported.position == 1
    for name in services.TEMPLATE_CONTENT_FIELDS:
        assert getattr(imported.current_version, name) == getattr(reference, name), name
    for name in ("external_id", "category_id", "question_index", "variant"):
        assert getattr(imported, name) == getattr(reference.template, name), name
