"""The translation section of a release's dataset card (issue 22): per language, the model
versions, every back-translation threshold the released instances carry, pass / flag /
correction counts and the corrections, equal to the released rows counted here in Python."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from apps.catalog.models import Instance
from apps.releases.registry import CardContext, card_section_get
from apps.releases.services import release_create
from apps.translation import engines
from apps.translation.card import SECTION, render
from tests.factories import TemplateVersionFactory
from tests.translation.release_sections import THRESHOLDS, translated_dataset

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def translated(inline_queue, real_engines):
    return translated_dataset(inline_queue)


def _facts(release, tmp_path):
    context = CardContext(release=release, previous=None, changelog={}, directory=tmp_path)
    return SECTION.facts(context)


def _expected(release) -> dict:
    """The same figures counted row by row from the released translated instances."""
    rows = Instance.objects.filter(
        memberships__release=release, source_instance__isnull=False
    ).values("id", "language", "review")
    out: dict = {}
    for row in rows:
        review = row["review"]
        entry = out.setdefault(
            row["language"],
            {
                "instances": 0,
                "status": Counter(),
                "thresholds": Counter(),
                "models": Counter(),
                "items": set(),
                "by": set(),
                "corrected_rows": set(),
            },
        )
        entry["instances"] += 1
        entry["status"][review["status"]] += 1
        entry["thresholds"][review["threshold"]] += 1
        entry["models"][
            (
                review["forward_model_version"],
                review["backward_model_version"],
                review["embedder_version"],
            )
        ] += 1
        for note in review.get("corrections", []):
            entry["items"].add(note["item"])
            entry["by"].add(note["by"])
            entry["corrected_rows"].add(row["id"])
    return out


def test_facts_equal_the_released_rows_and_the_render_shows_them(translated, tmp_path):
    release = release_create(dataset=translated.dataset, content="as_published")
    facts = _facts(release, tmp_path)
    assert json.loads(json.dumps(facts)) == facts  # stored as is in card.json

    expected = _expected(release)
    assert set(facts["languages"]) == set(expected) == {"hi", "ta"}
    assert facts["instances"] == sum(e["instances"] for e in expected.values()) == 96
    versions = engines.model_versions()
    for language, entry in facts["languages"].items():
        want = expected[language]
        assert entry["instances"] == want["instances"] == 48
        assert {k: v for k, v in entry["status"].items() if v} == dict(want["status"])
        assert [(t["threshold"], t["instances"]) for t in entry["thresholds"]] == sorted(
            want["thresholds"].items()
        )
        assert [t["threshold"] for t in entry["thresholds"]] == [THRESHOLDS[language]]
        assert [
            (
                (m["forward_model_version"], m["backward_model_version"], m["embedder_version"]),
                m["instances"],
            )
            for m in entry["models"]
        ] == list(want["models"].items())
        assert entry["models"][0]["forward_model_version"] == versions.forward
        assert entry["corrections"] == {
            "corrections": len(want["items"]),
            "correctors": len(want["by"]),
            "instances": len(want["corrected_rows"]),
        }
    hindi, tamil = facts["languages"]["hi"], facts["languages"]["ta"]
    # The Hindi question (in every negative-question instance) was below 0.75 and corrected.
    assert hindi["status"] == {"passed": 24, "flagged": 0, "corrected": 24}
    assert hindi["corrections"] == {"corrections": 1, "correctors": 1, "instances": 24}
    # "The grandson" passes Hindi's 0.75 but not Tamil's 0.8: flagged in Tamil only.
    assert tamil["status"]["flagged"] > 0 and tamil["status"]["corrected"] == 0
    assert tamil["corrections"] == {"corrections": 0, "correctors": 0, "instances": 0}

    markdown = render(facts)
    assert "### Machine translation" in markdown
    assert "| hi | 48 | 24 | 0 | 24 | 0.75 (48) | 1 | 1 |" in markdown
    flagged = tamil["status"]["flagged"]
    assert f"| ta | 48 | {48 - flagged} | {flagged} | 0 | 0.8 (48) | 0 | 0 |" in markdown
    assert f"`{versions.forward}`" in markdown and f"`{versions.embedder}`" in markdown
    assert "IndicTrans2" in markdown
    assert "corrector" not in markdown  # people are counted, never named
    # The card is rebuilt from card.json alone.
    assert render(json.loads(json.dumps(facts))) == markdown


def test_every_distinct_threshold_of_a_language_is_listed_with_its_count(translated, tmp_path):
    """Instances carry the verdict of the job that made them: a language whose rows came from
    two jobs lists both thresholds (here one Tamil row's review is as a 0.7 job left it)."""
    row = Instance.objects.filter(
        dataset=translated.dataset, language="ta", retired_at__isnull=True
    ).first()
    Instance.objects.filter(pk=row.pk).update(review={**row.review, "threshold": 0.7})
    release = release_create(dataset=translated.dataset, content="as_published")
    tamil = _facts(release, tmp_path)["languages"]["ta"]
    assert tamil["thresholds"] == [
        {"threshold": 0.7, "instances": 1},
        {"threshold": 0.8, "instances": 47},
    ]
    assert "0.7 (1), 0.8 (47)" in render(_facts(release, tmp_path))


def test_no_translation_no_section(tmp_path):
    from apps.catalog.services import dataset_instantiate

    version = TemplateVersionFactory()
    dataset_instantiate(dataset=version.template.dataset)
    release = release_create(dataset=version.template.dataset, content="as_published")
    assert _facts(release, tmp_path) is None


def test_the_section_is_registered_in_the_preprocessing_part():
    assert card_section_get("translation") is SECTION
    assert SECTION.part == "preprocessing"
