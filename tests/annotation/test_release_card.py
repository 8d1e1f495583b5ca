"""The annotation section of a release's dataset card (issue 22): the campaigns over the
dataset by kind and status, the annotators counted (never named), Cohen's κ per criterion with
raw agreement, and BharatBBQ Table 3, each figure computed here from the answers given."""

from __future__ import annotations

import json
import statistics

import pytest
from sklearn.metrics import cohen_kappa_score

from apps.annotation.card import SECTION, render
from apps.annotation.models import Assignment
from apps.catalog.services import dataset_instantiate
from apps.releases.registry import CardContext, card_section_get
from apps.releases.services import release_create
from tests.annotation.release_sections import SCORES, VALIDATION, annotate
from tests.factories import TemplateVersionFactory
from tests.translation.conftest import inline_queue, real_engines, tiny_model_dirs  # noqa: F401
from tests.translation.release_sections import translated_dataset

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def annotated(inline_queue, real_engines, annotator, second_annotator, researcher):  # noqa: F811
    translated = translated_dataset(inline_queue)
    return translated, annotate(translated, [annotator, second_annotator], researcher)


def _facts(release, tmp_path):
    return SECTION.facts(
        CardContext(release=release, previous=None, changelog={}, directory=tmp_path)
    )


def _validation_pairs(campaign, versions):
    """(slot 0 answers, slot 1 answers) per item, as given (VALIDATION by template index)."""
    index = {version.pk: n for n, version in enumerate(versions)}
    items = sorted(
        {a.item for a in Assignment.objects.filter(campaign=campaign)}, key=lambda i: i.pk
    )
    return [VALIDATION[index[item.template_version_id]] for item in items]


def _kappa(first, second, labels, weights=None):
    return cohen_kappa_score(first, second, labels=labels, weights=weights)


def test_facts_equal_the_judgements_and_the_render_shows_them(
    annotated, tmp_path, annotator, second_annotator
):
    translated, campaigns = annotated
    release = release_create(dataset=translated.dataset, content="as_published")
    facts = _facts(release, tmp_path)
    assert json.loads(json.dumps(facts)) == facts

    assert [(c["kind"], c["status"], c["items"]) for c in facts["campaigns"]] == [
        ("template_validation", "open", 3),
        ("translation_scoring", "open", campaigns.scoring.items.count()),
    ]
    assert facts["by_kind_status"] == [
        {"kind": "template_validation", "status": "open", "campaigns": 1},
        {"kind": "translation_scoring", "status": "open", "campaigns": 1},
    ]
    assert facts["annotators"] == 2
    validation, scoring = facts["campaigns"]
    assert (validation["annotators_judged"], validation["annotators_assigned"]) == (2, 2)
    assert validation["judgements"] == 6

    # Cohen's κ per criterion (slot 0 against slot 1) and raw agreement, by hand.
    pairs = _validation_pairs(campaigns.validation, translated.versions)
    for criterion in ("a", "c"):
        first = [p[0][criterion] for p in pairs]
        second = [p[1][criterion] for p in pairs]
        cell = validation["agreement"][criterion]
        assert cell["statistic"] == "cohen_kappa" and cell["n_items"] == 3
        assert cell["value"] == pytest.approx(_kappa(first, second, ["yes", "no"]), abs=1e-4)
        raw = sum(x == y for x, y in zip(first, second, strict=True)) / 3
        assert cell["observed_agreement"] == pytest.approx(raw, abs=1e-4)
    # Everybody said yes to (b): κ is undefined, and says why.
    assert validation["agreement"]["b"]["undefined"] is True
    assert "one label" in validation["agreement"]["b"]["reason"]
    assert validation["agreement"]["b"]["observed_agreement"] == 1.0
    pooled_first = [p[0][k] for p in pairs for k in "abc"]
    pooled_second = [p[1][k] for p in pairs for k in "abc"]
    assert validation["agreement"]["overall"]["value"] == pytest.approx(
        _kappa(pooled_first, pooled_second, ["yes", "no"]), abs=1e-4
    )

    # Table 3: means and quadratic-weighted κ over the items both annotators scored.
    [block] = facts["table3"]
    assert block["language"] == "hi" and block["campaigns"] == [campaigns.scoring.pk]
    items = list(campaigns.scoring.items.order_by("position"))
    assert len(items) == 4 and {i.segment for i in items} == {"ctx", "qn"}
    rows = {row["name"]: row for row in block["rows"]}
    assert list(rows) == ["hi_ctx", "hi_qn", "hi_combined"]
    for name, segments in (("hi_ctx", {"ctx"}), ("hi_qn", {"qn"}), ("hi_combined", {"ctx", "qn"})):
        chosen = [i.position for i in items if i.segment in segments]
        row = rows[name]
        assert row["n_items"] == len(chosen)
        for column, k in (("A", 0), ("F", 1)):
            for slot in (0, 1):
                mean = statistics.fmean(SCORES[p][slot][k] for p in chosen)
                assert row["means"][f"{column}{slot + 1}"] == round(mean, 2)
        adequacy = _kappa(
            [SCORES[p][0][0] for p in chosen],
            [SCORES[p][1][0] for p in chosen],
            [1, 2, 3, 4, 5],
            "quadratic",
        )
        assert row["adequacy_kappa"]["value"] == pytest.approx(adequacy, abs=1e-4)
    assert scoring["agreement"]["adequacy"]["statistic"] == "cohen_kappa_quadratic"

    markdown = render(facts)
    assert "### Annotation campaigns" in markdown and "### Agreement" in markdown
    assert "| Validation | Template validation (BharatBBQ §3.7) | open | — | 3 | 2 of 2 | 6 |" in (
        markdown
    )
    assert "Hindi \\| adequacy" in markdown  # a pipe in a name does not break the table
    kappa_a = validation["agreement"]["a"]
    assert (
        f"| {kappa_a['field_label']} | Cohen's κ | {kappa_a['value']:.3f} | "
        f"{kappa_a['observed_agreement']:.3f} | 3 |" in markdown
    )
    assert "undefined (both annotators used one label only (yes))" in markdown
    combined = rows["hi_combined"]
    means = " | ".join(f"{combined['means'][c]:.2f}" for c in ("F1", "F2", "A1", "A2"))
    assert f"| hi_combined | {combined['n_items']} | {means} |" in markdown
    for person in (annotator, second_annotator):
        assert person.username not in markdown
        assert person.username not in json.dumps(facts)
    assert render(json.loads(json.dumps(facts))) == markdown


def test_no_campaign_no_section(tmp_path):
    version = TemplateVersionFactory()
    dataset_instantiate(dataset=version.template.dataset)
    release = release_create(dataset=version.template.dataset, content="as_published")
    assert _facts(release, tmp_path) is None


def test_the_section_is_registered_in_the_annotation_part():
    assert card_section_get("annotation") is SECTION and SECTION.part == "annotation"
