"""The generated dataset card (issue 22): its figures equal the data, README.md is rebuilt from
card.json alone, the Hub reads its front matter, CITATION.cff parses, and the registry's
rules (every section in order, a part's heading once, empty sections left out)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml
from django.db.models import Count

from apps.catalog.models import (
    EvidenceReference,
    Finding,
    Instance,
    SentencePair,
    StereotypeConcept,
    StereotypeTuple,
    TemplateVersion,
)
from apps.catalog.services import dataset_card_update, dataset_instantiate
from apps.releases import card as card_module
from apps.releases.card import (
    card_readme,
    cff_author,
    iso_639_1,
    markdown_table,
    md_text,
    release_card,
)
from apps.releases.card_sections import SECTIONS
from apps.releases.registry import (
    CARD_PARTS,
    CardSection,
    card_section_register,
    card_section_unregister,
    card_sections,
)
from apps.releases.services import release_create, release_file_path
from tests.factories import CategoryFactory, DatasetFactory, TemplateVersionFactory

pytestmark = pytest.mark.django_db

HINDI = ("बूढ़े {{NAME1}} और जवान {{NAME2}} बस स्टॉप पर इंतज़ार कर रहे थे।", "अज्ञात")
BENGALI = ("{{NAME1}} এবং {{NAME2}} বাসস্ট্যান্ডে অপেক্ষা করছিলেন।", "অজানা")


@pytest.fixture
def card_dataset(db):
    """Two categories, two languages (Devanagari and Bengali text), both context conditions,
    proper names and common nouns, a vocabulary behind one version, concepts with evidence of
    two types (and a rejected reference), findings open and resolved."""
    from apps.catalog.models import UnknownExpression

    dataset = DatasetFactory(name="कार्ड परीक्षण", description="A small *test* benchmark.")
    age, religion = CategoryFactory(name="Age"), CategoryFactory(name="Religion | धर्म")
    for language, (_text, unknown) in {"hi": HINDI, "bn": BENGALI}.items():
        UnknownExpression.objects.get_or_create(language=language, text=unknown)
    concept = StereotypeConcept.objects.create(
        category=age, statement="बूढ़े लोग धीमे होते हैं", source="survey"
    )
    other = StereotypeConcept.objects.create(
        category=religion,
        statement="stereotype two",
        source="literature",
        validation_status="validated",
    )
    EvidenceReference.objects.create(concept=concept, kind="survey", note="survey 1")
    EvidenceReference.objects.create(concept=concept, kind="research_article", url="https://a.org")
    EvidenceReference.objects.create(concept=other, kind="research_article", url="https://b.org")
    EvidenceReference.objects.create(
        concept=other, kind="news_report", url="https://c.org", validation_status="rejected"
    )
    common_hi = TemplateVersionFactory(
        template__dataset=dataset,
        template__category=age,
        language="hi",
        ambiguous_context=HINDI[0],
        disambiguating_context="{{NAME1}} — " + HINDI[0],
        question_negative="कौन धीमा है?",
        question_non_negative="कौन तेज़ है?",
        placeholders={"NAME1": ["दादा", "दादी"], "NAME2": ["पोता", "पोती"]},
        concept=concept,
    )
    TemplateVersionFactory(  # proper names, drawn from a vocabulary
        template__dataset=dataset,
        template__category=age,
        language="hi",
        proper_noun=True,
        ambiguous_context=HINDI[0],
        disambiguating_context="{{NAME1}} — " + HINDI[0],
        question_negative="कौन धीमा है?",
        question_non_negative="कौन तेज़ है?",
        placeholders={"NAME1": ["रमेश", "सुरेश"], "NAME2": ["अमित", "सुमित"]},
        placeholder_sources={
            "NAME1": {"vocabulary": "नाम-हिंदी", "language": "hi", "groups": []},
            "NAME2": {"vocabulary": "नाम-हिंदी", "language": "hi", "groups": []},
        },
        concept=concept,
    )
    TemplateVersionFactory(
        template__dataset=dataset,
        template__category=religion,
        language="bn",
        ambiguous_context=BENGALI[0],
        disambiguating_context="{{NAME1}} — " + BENGALI[0],
        question_negative="কে?",
        question_non_negative="কে না?",
        placeholders={"NAME1": ["হিন্দু", "মুসলিম"], "NAME2": ["খ্রিস্টান", "বৌদ্ধ"]},
        concept=other,
    )
    dataset_instantiate(dataset=dataset)
    TemplateVersion.objects.filter(template__dataset=dataset).update(status="approved")
    # A second version of the first template, a draft: a reviewed release leaves it out.
    TemplateVersionFactory(template=common_hi.template, number=2, language="hi", concept=other)
    StereotypeTuple.objects.create(
        dataset=dataset, category=religion, language="bn", identity_term="হিন্দু",
        attribute="ধার্মিক", votes=[1, 1, 0],
    )  # fmt: skip
    SentencePair.objects.create(
        dataset=dataset, external_id="p1", category=age, language="hi",
        sent_more="बूढ़े लोग धीमे होते हैं।", sent_less="जवान लोग धीमे होते हैं।",
    )  # fmt: skip
    for kind, status in (("bad-label", "open"), ("bad-label", "open"), ("typo", "open"),
                         ("typo", "resolved")):  # fmt: skip
        Finding.objects.create(dataset=dataset, kind=kind, message="m", status=status)
    dataset_card_update(
        dataset=dataset,
        license="cc-by-4.0",
        pretty_name="Card Test — परीक्षण",
        card_authors="Sharma, Rekha\nKasauti Team\n\n",
        card_uses="Measuring social bias in QA models. <script>alert(1)</script>",
        card_citation="@misc{kasauti2026,\n  title={कार्ड परीक्षण}\n}",
    )
    return dataset


def _release(dataset, **kw):
    release = release_create(dataset=dataset, **kw)  # reviewed
    directory = release_file_path(release_file=release.files.first()).parent
    return release, directory


def _facts(directory: Path) -> dict:
    return json.loads((directory / "card.json").read_text(encoding="utf-8"))


def _table(readme: str, heading: str) -> list[list[str]]:
    """The first Markdown table after `heading`: its body rows as lists of cells."""
    after = readme[readme.index(heading) :]
    lines = []
    for line in after.splitlines()[1:]:
        if line.startswith("|"):
            lines.append(line)
        elif lines:
            break
    cells = [re.split(r"(?<!\\)\|", line.strip())[1:-1] for line in lines[2:]]
    return [[c.strip().replace("\\", "") for c in row] for row in cells]


def test_the_cards_figures_equal_the_data(card_dataset):
    release, directory = _release(card_dataset)
    facts = _facts(directory)
    readme = (directory / "README.md").read_text(encoding="utf-8")
    members = Instance.objects.filter(memberships__release=release)

    # Composition: instances by category x language x context condition x noun type.
    expected = Counter(
        {
            (row["category__name"], row["language"], row["context_condition"],
             "proper name" if row["proper_noun"] else "common noun"): row["n"]
            for row in members.values(
                "category__name", "language", "context_condition", "proper_noun"
            ).annotate(n=Count("pk"))
        }
    )  # fmt: skip
    got = Counter(
        {
            (r["category"], r["language"], r["context_condition"], r["noun_type"]): r["instances"]
            for r in facts["composition"]["instances"]["rows"]
        }
    )
    assert got == expected
    assert {key[2] for key in got} == {"ambig", "disambig"}
    assert {key[3] for key in got} == {"proper name", "common noun"}
    assert facts["composition"]["instances"]["total"] == members.count() == 48
    versions = TemplateVersion.objects.filter(instances__memberships__release=release).distinct()
    assert facts["composition"]["template_versions"] == versions.count() == 3
    assert facts["composition"]["templates"] == versions.values("template").distinct().count()
    assert facts["composition"]["concepts"] == 2  # the uninstantiated v2's concept is not counted
    assert facts["composition"]["vocabularies"] == [
        {"name": "नाम-हिंदी", "language": "hi", "template_versions": 1}
    ]
    assert facts["composition"]["other_kinds"] == {"tuples": {"Religion | धर्म": {"bn": 1}}}

    # The README's table says the same: per category and language, the four cells and total.
    table = _table(readme, "### Instances")
    header = readme[readme.index("### Instances") :].split("\n| ")[1]
    assert "Ambiguous, common noun" in header and "Disambiguated, proper name" in header
    rows = {(row[0], row[1]): [int(c.replace(",", "")) for c in row[2:]] for row in table}
    for (category, language_label), numbers in rows.items():
        if category == "All":
            assert numbers[-1] == members.count()
            continue
        language = language_label.split("(")[-1].rstrip(")")
        assert numbers[-1] == members.filter(category__name=category, language=language).count()
        assert sum(numbers[:-1]) == numbers[-1]
    assert ("Religion | धर्म", "Bengali (bn)") in rows  # a | in a name is escaped, not a column

    # Collection: concepts by evidence type (rejected references left out).
    evidence = facts["evidence"]
    assert evidence["concepts"] == 2 and evidence["validated"] == 1
    assert evidence["by_source"] == {"literature": 1, "survey": 1}
    assert evidence["evidence_by_kind"] == {
        "research_article": {"concepts": 2, "references": 2},
        "survey": {"concepts": 1, "references": 1},
    }
    assert evidence["without_evidence"] == 0 and evidence["rejected_references"] == 1
    assert _table(readme, "Evidence references attesting them") == [
        ["Research article", "2", "2"],
        ["The survey", "1", "1"],
    ]

    # Findings still open, by kind.
    assert facts["findings"] == {"total": 4, "open": 3, "open_by_kind": {"bad-label": 2, "typo": 1}}
    assert _table(readme, "## Findings still open") == [["bad-label", "2"], ["typo", "1"]]

    # Summary: release, content, totals per kind.
    summary = facts["summary"]
    assert summary["release"] == 1 and summary["content"] == "reviewed"
    assert summary["totals"] == {
        "instances": 48, "sentence_pairs": 0, "tuples": 1, "context_sets": 0
    }  # fmt: skip
    assert summary["excluded"] == [
        {"kind": "Sentence pairs", "n": 1,
         "reason": "sentence pairs have no review step in Kasauti"}
    ]  # fmt: skip
    assert _table(readme, "## Dataset summary")[:3] == [
        ["Instances", "48"], ["Sentence pairs", "0"], ["Tuples", "1"]
    ]  # fmt: skip
    assert "- Sentence pairs: 1 (sentence pairs have no review step in Kasauti)" in readme
    assert summary["description"] == "A small *test* benchmark."
    assert "adaptation" not in facts  # not adapted: the section is left out


def test_readme_is_rebuilt_from_card_json_alone(card_dataset):
    release, directory = _release(card_dataset)
    readme = (directory / "README.md").read_text(encoding="utf-8")
    facts = _facts(directory)
    # Change the data after the release: the rebuild does not look at the database.
    Instance.objects.filter(dataset=card_dataset).update(language="xx")
    card_dataset.card_uses = "changed"
    card_dataset.save()
    assert card_readme(facts) == readme
    # Each section's render is a function of its facts: the same facts, the same Markdown.
    for entry in facts["sections"]:
        render = next(s for s in SECTIONS if s.name == entry["name"]).render
        assert render(json.loads(json.dumps(facts[entry["name"]]))) == render(facts[entry["name"]])


def test_parts_in_order_each_heading_once_and_every_section_called(card_dataset):
    calls = []
    extra = CardSection(
        name="test_extra",
        part="preprocessing",
        order=5,
        facts=lambda context: calls.append(context.release.pk) or {"n": 7},
        render=lambda facts: f"### Extra\n\nSeven: {facts['n']}.\n",
    )
    empty = CardSection(
        name="test_empty", part="preprocessing", order=6, facts=lambda c: {}, render=str
    )
    nothing = CardSection(
        name="test_none", part="annotation", order=1, facts=lambda c: None, render=str
    )
    for section in (extra, empty, nothing):
        card_section_register(section)
    try:
        release, directory = _release(card_dataset)
        registered = [s.name for s in card_sections()]
    finally:
        for section in (extra, empty, nothing):
            card_section_unregister(section.name)
    facts = _facts(directory)
    readme = (directory / "README.md").read_text(encoding="utf-8")
    assert calls == [release.pk]
    assert facts["test_extra"] == {"n": 7}
    assert "test_empty" not in facts and "test_none" not in facts
    headings = re.findall(r"^## (.+)$", readme, flags=re.M)
    assert len(headings) == len(set(headings))  # each part's heading once
    assert headings == [title for part, title in CARD_PARTS.items() if title in headings]
    assert "Preprocessing" in headings and "Annotation" not in headings
    assert "Seven: 7." in readme
    names = [entry["name"] for entry in facts["sections"]]
    assert names == [name for name in registered if name in names]
    # The releases app's own sections are all registered (changes: the changelog's).
    assert {s.name for s in SECTIONS} <= {s.name for s in card_sections()}
    assert {"summary", "composition", "evidence", "findings", "uses", "limitations", "ethics",
            "citation", "changes"} <= set(names)  # fmt: skip


def test_a_reserved_name_is_refused(card_dataset):
    bad = CardSection(name="layout", part="summary", order=99, facts=lambda c: {}, render=str)
    card_section_register(bad)
    try:
        with pytest.raises(ValueError, match="card.json"):
            release_create(dataset=card_dataset)
    finally:
        card_section_unregister("layout")


def test_front_matter_loads_with_huggingface_hub(card_dataset, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from huggingface_hub import DatasetCard

    _rel, directory = _release(card_dataset)
    card = DatasetCard.load(directory / "README.md")
    data = card.data.to_dict()
    assert data["pretty_name"] == "Card Test — परीक्षण"
    assert data["license"] == "cc-by-4.0"
    assert data["language"] == ["bn", "hi"]
    assert data["task_categories"] == [
        "question-answering", "multiple-choice", "text-classification"
    ]  # fmt: skip
    assert data["size_categories"] == ["n<1K"]
    configs = {c["config_name"]: c for c in data["configs"]}
    assert configs["all"]["default"] is True
    assert [f["split"] for f in configs["all"]["data_files"]] == ["bn", "hi"]
    assert set(configs) == {"all", "Age", "Religion", "tuples", "tuples-Religion"}
    assert {i["config_name"] for i in data["dataset_info"]} == set(configs)
    features = {f["name"] for f in data["dataset_info"][0]["features"]}
    assert {"context", "question", "ans0", "label", "language"} <= features
    assert card.text.lstrip().startswith("# Card Test — परीक्षण")
    assert "Measuring social bias in QA models." in card.text


def test_license_unknown_until_chosen_and_texts_not_written_yet(db):
    dataset = DatasetFactory(name="bare")
    TemplateVersionFactory(
        template__dataset=dataset, template__category=CategoryFactory(name="Age")
    )
    dataset_instantiate(dataset=dataset)
    TemplateVersion.objects.filter(template__dataset=dataset).update(status="approved")
    _release_, directory = _release(dataset)
    front = yaml.safe_load((directory / "README.md").read_text().split("---\n")[1])
    assert front["license"] == "unknown" and front["pretty_name"] == "bare"
    assert front["language"] == ["en"]
    readme = (directory / "README.md").read_text()
    for part in ("## Uses", "## Limitations", "## Ethical considerations", "## Citation"):
        assert readme.split(part)[1].lstrip().startswith("_Not written yet")
    assert "no licence has been chosen" in readme
    assert "## Findings still open" not in readme  # never imported: no findings at all
    cff = yaml.safe_load((directory / "CITATION.cff").read_text())
    assert "license" not in cff and "abstract" not in cff
    assert cff["authors"] == [{"name": "bare authors (not named yet)"}]


def test_citation_cff(card_dataset):
    release, directory = _release(card_dataset)
    cff = yaml.safe_load((directory / "CITATION.cff").read_text(encoding="utf-8"))
    for key in ("cff-version", "message", "title", "authors", "type", "version", "date-released"):
        assert key in cff, key
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "dataset"
    assert cff["title"] == "Card Test — परीक्षण"
    assert cff["version"] == "r1"
    assert str(cff["date-released"]) == release.created_at.date().isoformat()
    assert cff["license"] == "CC-BY-4.0"
    assert cff["abstract"] == "A small *test* benchmark."
    assert cff["authors"] == [
        {"family-names": "Sharma", "given-names": "Rekha"},
        {"name": "Kasauti Team"},
    ]
    # The researcher's BibTeX is in the card's citation part, verbatim, in a code block.
    readme = (directory / "README.md").read_text(encoding="utf-8")
    assert "```bibtex\n@misc{kasauti2026,\n  title={कार्ड परीक्षण}\n}\n```" in readme


@pytest.mark.parametrize(
    ("license_id", "spdx"), [("mit", "MIT"), ("other", None), ("openrail", None)]
)
def test_citation_licence_only_when_spdx(card_dataset, license_id, spdx):
    dataset_card_update(dataset=card_dataset, license=license_id)
    release, _directory = _release(card_dataset)
    cff = yaml.safe_load(card_module.release_citation(release=release))
    assert cff.get("license") == spdx


def test_adapted_dataset_carries_the_adaptation_reports_figures(card_dataset):
    from apps.catalog.adaptation_report import adaptation_report
    from apps.catalog.services import adaptation_link, adaptation_remove, dataset_source_set

    source = DatasetFactory(name="BBQ source")
    kept = TemplateVersionFactory(
        template__dataset=source, template__category=CategoryFactory(name="Age")
    )
    dropped = TemplateVersionFactory(
        template__dataset=source, template__category=CategoryFactory(name="Age")
    )
    card_dataset = dataset_source_set(dataset=card_dataset, source=source)
    target = TemplateVersion.objects.filter(template__dataset=card_dataset).first().template
    TemplateVersion.objects.filter(template=target).update(transformation_type="CT")
    adaptation_link(dataset=card_dataset, source_template=kept.template, template=target)
    adaptation_remove(
        dataset=card_dataset, source_template=dropped.template, reason="not relevant in India"
    )
    _r, directory = _release(card_dataset)
    facts = _facts(directory)
    assert facts["adaptation"] == adaptation_report(dataset=card_dataset).as_dict()
    assert facts["adaptation"]["total"]["culturally_transformed"] == 1
    assert facts["adaptation"]["total"]["sample_removed"] == 1
    readme = (directory / "README.md").read_text(encoding="utf-8")
    assert "This dataset adapts **BBQ source**" in readme
    assert _table(readme, "### Adaptation of the source benchmark")[-1] == [
        "All", "0", "0", "1", "1"
    ]  # fmt: skip


def test_second_release_has_changes_and_card_changes_reach_only_the_next(card_dataset):
    first, first_dir = _release(card_dataset)
    dataset_card_update(dataset=card_dataset, card_limitations="Only two languages: hi, bn.")
    TemplateVersionFactory(
        template__dataset=card_dataset, template__category=CategoryFactory(name="Age")
    )
    dataset_instantiate(dataset=card_dataset)
    second, second_dir = _release(card_dataset)
    assert second.number == 2
    old = (first_dir / "README.md").read_text(encoding="utf-8")
    new = (second_dir / "README.md").read_text(encoding="utf-8")
    assert "Only two languages" not in old and "Only two languages: hi, bn." in new
    assert _facts(second_dir)["changes"]["against"]["number"] == 1
    assert "## Changes since the previous release" in new


def test_helpers():
    assert [iso_639_1(c) for c in ("hi", "pt-BR", "hin", "mni", "or", "EN_us")] == [
        "hi", "pt", "hi", "mni", "or", "en"
    ]  # fmt: skip
    assert cff_author("Sharma, Rekha") == {"family-names": "Sharma", "given-names": "Rekha"}
    assert cff_author("দাস, অমিত") == {"family-names": "দাস", "given-names": "অমিত"}
    assert cff_author("The BharatBBQ team") == {"name": "The BharatBBQ team"}
    assert cff_author("Sharma,") == {"name": "Sharma"}
    assert md_text("a|b <i>*x*</i>\nnext") == "a\\|b \\<i\\>\\*x\\*\\</i\\> next"
    table = markdown_table(["A", "N"], [["x|y", 1234], ["", None]], numeric=(1,))
    assert table.splitlines() == [
        "| A | N |", "| --- | ---: |", "| x\\|y | 1,234 |", "| — | — |"
    ]  # fmt: skip


def test_composition_is_computed_without_a_loop_over_instances(
    card_dataset, django_assert_max_num_queries
):
    """The card's facts take a handful of queries whatever the number of instances."""
    release = release_create(dataset=card_dataset)
    directory = release_file_path(release_file=release.files.first()).parent
    from apps.releases.card import _instance_cells

    _instance_cells.cache_clear()
    with django_assert_max_num_queries(20):
        release_card(
            release=release, previous=None, changelog={"against": None}, directory=directory
        )


def test_group_counts_counts_like_a_counter():
    import pyarrow as pa

    from apps.releases.card import group_counts

    rows = [
        ("Age", "hi", "ambig", True), ("Age", "hi", "ambig", True), ("Age", "bn", None, False),
        ("जाति", "hi", "disambig", False), ("Age", "hi", "ambig", False),
    ]  # fmt: skip
    keys = ["category", "language", "context_condition", "proper_noun"]
    columns = list(zip(*rows, strict=True))
    # Two chunks per column: the counts do not depend on how the file was split.
    table = pa.Table.from_batches(
        [
            pa.record_batch([pa.array(c[:2]) for c in columns], names=keys),
            pa.record_batch([pa.array(c[2:]) for c in columns], names=keys),
        ]
    )
    got = {row[:-1]: row[-1] for row in group_counts(table, keys)}
    assert got == dict(Counter(rows))
    assert group_counts(table.slice(0, 0), keys) == []
