"""BharatBBQ as its own generator (create_examples.ipynb) reads it: one hand-written miniature
per quirk of the published templates, each asserting the finding and the generated output."""

from __future__ import annotations

from collections import Counter

import pytest
from django.test import Client
from django.urls import reverse

from apps.catalog.benchmarks.bharatbbq.generator import UNKNOWN_ANSWERS
from apps.catalog.importers import benchmark_import
from apps.catalog.models import Dataset, Finding, Instance, Template, TemplateVersion
from apps.catalog.services import dataset_instantiate, instantiation_plan
from apps.core.errors import ImportRejected

from .test_import_support import bharat_file, bharat_row

pytestmark = pytest.mark.django_db


def version_of(external_id: str) -> TemplateVersion:
    return Template.objects.get(external_id=external_id).current_version


def imported(rows: list[dict[str, str]], *, name: str = "Age.csv", **kwargs):
    return benchmark_import(dataset_name="bharat", fmt="bharatbbq", files=[bharat_file(rows, name)],
                            **kwargs)  # fmt: skip


def planned() -> dict[str, int]:
    plan = instantiation_plan(dataset=Dataset.objects.get(name="bharat"))
    return {t.external_id: t.count for t in plan.templates}


def instances_of(external_id: str) -> list[Instance]:
    return list(
        Instance.objects.filter(template_version__template__external_id=external_id).order_by(
            "example_id"
        )
    )


def test_repeated_q_id_gets_a_stable_suffix_and_a_finding() -> None:
    hindu = bharat_row(Names="{{NAME1}}: [Ramesh]; {{NAME2}}: [Imran]")
    sikh = bharat_row(Names="{{NAME1}}: [Gurpreet]; {{NAME2}}: [Imran, Salim]")
    report = imported([hindu, sikh])
    assert report.templates.created == 2
    assert version_of("Age-7a-cn-biased").placeholders["NAME1"] == ["Ramesh"]
    assert version_of("Age-7a-cn-biased-r2").placeholders["NAME1"] == ["Gurpreet"]
    [finding] = Finding.objects.filter(kind="duplicate-id")
    assert (finding.file, finding.line, finding.field) == ("Age.csv", 3, "Q_id")
    assert finding.template_version == version_of("Age-7a-cn-biased-r2")
    assert "repeats line 2" in finding.message
    # Both rows are generated, as the notebook does: 2 x 2 words x 4 and 1 x 2 x 2 words x 4.
    assert planned() == {"Age-7a-cn-biased": 8, "Age-7a-cn-biased-r2": 16}
    # The suffix is stable: the same file again changes nothing.
    again = imported([hindu, sikh])
    assert again.templates.unchanged == 2 and again.findings_new == 0


def test_swapped_names_with_the_same_pairing_is_a_likely_mislabel() -> None:
    girl_first = bharat_row(Q_id="28", version="", Names="{{NAME1}}: [girl]; {{NAME2}}: [boy]")
    boy_first = bharat_row(Q_id="28", version="", Names="{{NAME2}}: [girl]; {{NAME1}}: [boy]")
    report = imported([girl_first, boy_first], name="Gender_identity.csv")
    assert report.findings_by_kind == {"duplicate-id": 1, "likely-mislabel": 1}
    [finding] = Finding.objects.filter(kind="likely-mislabel")
    assert (finding.line, finding.field, finding.original) == (3, "Pairing", "biased")
    assert "Answer_negative names boy" in finding.message and "line 2" in finding.message
    # Generated as published: the mislabelled row calls the boy the stereotyped group.
    assert finding.template_version.target_placeholder == "NAME1"
    assert finding.template_version.placeholders["NAME1"] == ["boy"]


def test_proper_nouns_two_is_a_group_label_noun_form() -> None:
    rows = [
        bharat_row(Q_id="1", **{"Proper Nouns": "2"}),
        bharat_row(Q_id="2", **{"Proper Nouns": "1"}),
        bharat_row(Q_id="3", **{"Proper Nouns": ""}),
    ]
    report = imported(rows, name="Caste.csv")
    assert report.findings == []
    group = version_of("Age-1a-gl-biased")
    assert (group.noun_form, group.proper_noun) == ("group_label", False)
    proper = version_of("Age-2a-pn-biased")
    assert (proper.noun_form, proper.proper_noun) == ("proper_name", True)
    assert version_of("Age-3a-cn-biased").noun_form == "common_noun"
    dataset_instantiate(dataset=Dataset.objects.get(name="bharat"))
    assert {i.noun_form for i in instances_of("Age-1a-gl-biased")} == {"group_label"}


def test_mismatched_bracket_is_read_like_the_generator() -> None:
    row = bharat_row(
        Names="{{NAME1}}: [Europian]; {{NAME2}}: [Indian, Pakistani}", Lexical_diversity=""
    )
    row["Ambiguous_Context"] = "A {{NAME1}} person and a {{NAME2}} person met."
    report = imported([row], name="Nationality.csv")
    assert report.findings_by_kind == {"parse-repair": 1}
    [finding] = report.findings
    assert (finding["line"], finding["field"]) == (2, "Names")
    assert "['Indian', 'Pakistani}']" in finding["message"]
    assert finding["original"] == row["Names"]
    version = version_of("Age-7a-cn-biased")
    assert version.placeholders["NAME2"] == ["Indian", "Pakistani}"]
    dataset_instantiate(dataset=Dataset.objects.get(name="bharat"))
    contexts = {i.context for i in instances_of("Age-7a-cn-biased")}
    assert "A Europian person and a Pakistani} person met." in contexts


def test_malformed_braces_stay_in_the_text_as_published() -> None:
    row = bharat_row(
        Ambiguous_Context="A {{NAME1}} and a {{NAME2}} queued; {NAME1}} at the {{WORD1}}.",
        Disambiguating_Context="The {[NAME1}} lost the form; the {{NAME2}} had two copies.",
    )
    report = imported([row])
    assert report.findings_by_kind == {"parse-repair": 2}
    fields = {f["field"]: f["message"] for f in report.findings}
    assert fields["Ambiguous_Context"].startswith("{NAME1}} is not a placeholder")
    assert fields["Disambiguating_Context"].startswith("{[NAME1}} is not a placeholder")
    dataset_instantiate(dataset=Dataset.objects.get(name="bharat"))
    first = instances_of("Age-7a-cn-biased")[1]  # disambiguated
    assert first.context == (
        "A grandfather and a grandson queued; {NAME1}} at the post office. "
        "The {[NAME1}} lost the form; the grandson had two copies."
    )


def test_undefined_word_is_generated_as_published() -> None:
    row = bharat_row(Lexical_diversity="")
    report = imported([row], name="Caste.csv")
    assert report.findings_by_kind == {"unfilled-placeholder": 1}
    [finding] = Finding.objects.all()
    assert (finding.field, finding.kind) == ("Ambiguous_Context", "unfilled-placeholder")
    assert planned() == {"Age-7a-cn-biased": 16}
    dataset_instantiate(dataset=Dataset.objects.get(name="bharat"))
    instances = instances_of("Age-7a-cn-biased")
    assert len(instances) == 16
    assert all("queued at the {{WORD1}}." in i.context for i in instances)


def test_unused_word_still_multiplies_the_count() -> None:
    row = bharat_row(Lexical_diversity="{{WORD1}}: [post office, bank]; {{WORD2}}: [a, b, c]")
    report = imported([row], name="Disability_status.csv")
    assert report.findings_by_kind == {"unused-placeholder": 1}
    assert "WORD2 is defined but no text uses it" in report.findings[0]["message"]
    assert report.findings[0]["field"] == "Lexical_diversity"
    # 2 NAME1 x 2 NAME2 x 2 WORD1 x 3 WORD2 combinations, 4 instances each.
    assert planned() == {"Age-7a-cn-biased": 96}
    dataset_instantiate(dataset=Dataset.objects.get(name="bharat"))
    assert len(instances_of("Age-7a-cn-biased")) == 96


def test_unreadable_lexical_cell_is_ignored_like_the_generator_does() -> None:
    row = bharat_row(Lexical_diversity="{{WORD1}}: [post: office, bank]")
    report = imported([row])
    assert sorted(report.findings_by_kind) == ["parse-repair", "unfilled-placeholder"]
    assert version_of("Age-7a-cn-biased").placeholders == {
        "NAME1": ["grandfather", "grandmother"],
        "NAME2": ["grandson", "granddaughter"],
    }


def test_unknown_option_is_drawn_per_combination_and_polarity_from_the_six_phrases() -> None:
    row = bharat_row(
        Names="{{NAME1}}: [a, b, c, d, e, f]; {{NAME2}}: [g, h, i, j, k, l]",
        Answer_negative="{{NAME1}}",
        Answer_non_negative="{{NAME2}}",
    )
    imported([row])
    version = version_of("Age-7a-cn-biased")
    assert version.generator == "bharatbbq"
    assert version.generator_data["unknown_expressions"] == list(UNKNOWN_ANSWERS)
    dataset = Dataset.objects.get(name="bharat")
    dataset_instantiate(dataset=dataset)
    instances = instances_of("Age-7a-cn-biased")
    assert len(instances) == 6 * 6 * 2 * 4
    unknowns = []
    differs = 0
    by_combination: dict[int, dict[str, list[Instance]]] = {}
    for instance in instances:
        by_combination.setdefault(instance.combination, {}).setdefault(
            instance.question_polarity, []
        ).append(instance)
    for polarities in by_combination.values():
        drawn = {}
        for polarity, pair in polarities.items():
            ambiguous, disambiguated = pair
            # The ambiguous and disambiguated instance of one polarity share their options.
            options = (ambiguous.ans0, ambiguous.ans1, ambiguous.ans2)
            assert options == (disambiguated.ans0, disambiguated.ans1, disambiguated.ans2)
            roles = ambiguous.option_roles
            unknown = options[roles.index("unknown")]
            assert unknown in UNKNOWN_ANSWERS
            assert options[ambiguous.label] == unknown
            # Pairing biased: the negative question's disambiguated answer is NAME1's value.
            gold = "stereotyped" if polarity == "neg" else "non_stereotyped"
            assert roles[disambiguated.label] == gold
            drawn[polarity] = (unknown, options)
            unknowns.append(unknown)
        differs += drawn["neg"] != drawn["nonneg"]
    assert differs > 0  # options are drawn per polarity, not once per combination
    assert set(unknowns) == set(UNKNOWN_ANSWERS)
    # Seeded: the same template draws the same options in another dataset.
    benchmark_import(dataset_name="again", fmt="bharatbbq", files=[bharat_file([row])])
    dataset_instantiate(dataset=Dataset.objects.get(name="again"))
    again = Instance.objects.filter(dataset__name="again").order_by("example_id")
    assert [(i.ans0, i.ans1, i.ans2, i.label) for i in again] == [
        (i.ans0, i.ans1, i.ans2, i.label) for i in instances
    ]


def test_other_languages_use_their_own_unknown_expressions() -> None:
    imported([bharat_row()], language="hi")
    version = version_of("Age-7a-cn-biased")
    assert "unknown_expressions" not in version.generator_data
    from apps.catalog.models import UnknownExpression

    UnknownExpression.objects.create(language="hi", text="पता नहीं")
    dataset_instantiate(dataset=Dataset.objects.get(name="bharat"))
    options = Counter(
        i.ans0 if i.option_roles[0] == "unknown" else i.ans1 if i.option_roles[1] == "unknown"
        else i.ans2
        for i in instances_of("Age-7a-cn-biased")
    )  # fmt: skip
    assert set(options) == {"पता नहीं"}


def test_disambiguating_context_without_names_is_a_finding() -> None:
    report = imported([bharat_row(Disambiguating_Context="Someone had lost the form.")])
    assert report.findings_by_kind == {"no-disambiguation": 1}


def test_empty_answers_are_findings() -> None:
    report = imported([bharat_row(Answer_negative="")])
    assert report.findings_by_kind == {"empty-answer": 1}
    assert version_of("Age-7a-cn-biased").answer_negative == "{{NAME1}}"


def test_strict_rejects_every_finding() -> None:
    with pytest.raises(ImportRejected) as caught:
        imported([bharat_row(Lexical_diversity=""), bharat_row()], strict=True)
    assert [(p.line, p.kind) for p in caught.value.problems] == [
        (2, "unfilled-placeholder"),
        (3, "duplicate-id"),
    ]
    assert not Template.objects.exists()


def test_template_page_shows_its_findings(annotator) -> None:
    imported([bharat_row(Lexical_diversity="")])
    template = Template.objects.get()
    client = Client()
    client.force_login(annotator)
    html = client.get(reverse("web:template", args=[template.pk])).content.decode()
    assert 'id="template-findings"' in html
    assert "unfilled-placeholder" in html and "Age.csv:2" in html
    from apps.catalog.selectors import finding_list_for_template_version

    [finding] = finding_list_for_template_version(template_version=template.current_version)
    assert finding.kind == "unfilled-placeholder"


def test_texts_keep_the_spaces_at_their_ends_as_published() -> None:
    # The notebook joins the ambiguous context, a space and the disambiguating text as they are
    # in the cells, so a trailing space gives a double space; answers keep theirs too.
    row = bharat_row(
        Ambiguous_Context="A {{NAME1}} and a {{NAME2}} queued at the {{WORD1}}. ",
        Answer_non_negative="The {{NAME2}} ",
    )
    imported([row])
    version = version_of("Age-7a-cn-biased")
    assert version.ambiguous_context.endswith("{{WORD1}}. ")
    dataset_instantiate(dataset=Dataset.objects.get(name="bharat"))
    disambiguated = instances_of("Age-7a-cn-biased")[1]
    assert "post office.  The grandfather had lost" in disambiguated.context
    assert "The grandson " in (disambiguated.ans0, disambiguated.ans1, disambiguated.ans2)
    # Unchanged on re-import (the comparison sees the same text).
    assert imported([row]).templates.unchanged == 1
