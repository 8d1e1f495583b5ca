"""docs/architecture.md's recipes, kept true: every file a recipe names exists, and a kind
registered the way the recipe says (a throwaway one, registered here and removed again) works
through the one pipeline, page and lifecycle without touching any other file. The metric
recipe's throwaway evaluation kind is tests/evaluation/test_kinds.py, and that pages and CSVs
follow METRIC_KEYS is tests/evaluation/metrics/test_metric_keys.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"

# What a recipe's placeholders stand for in the files that exist today.
EXAMPLES = {"<name>": "bharatbbq", "<kind>": "tuple_vote", "<metric>": "bbq"}


def _recipes() -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
    parts = re.split(r"^### Recipe: (.+)$", text, flags=re.MULTILINE)
    pairs = zip(parts[1::2], parts[2::2], strict=True)
    return {title.strip(): body.split("\n## ")[0] for title, body in pairs}


def test_the_three_recipes_are_there():
    assert set(_recipes()) >= {"add a benchmark format", "add a metric", "add a campaign kind"}


@pytest.mark.parametrize("title", ["add a benchmark format", "add a metric", "add a campaign kind"])
def test_every_file_a_recipe_names_exists(title):
    body = _recipes()[title]
    paths = re.findall(r"`((?:apps|templates|tests|docs|static|worker)/[^`\s]+)`", body)
    assert paths, f"recipe {title!r} names no files"
    missing = []
    for path in paths:
        concrete = path
        for placeholder, example in EXAMPLES.items():
            concrete = concrete.replace(placeholder, example)
        if not (ROOT / concrete).exists():
            missing.append(f"{path} ({concrete})")
    assert missing == [], f"recipe {title!r} names files that do not exist: {missing}"


# --- "add a benchmark format": a throwaway template-kind reader -------------------------------


def test_a_format_registered_as_the_recipe_says_imports_through_the_one_pipeline(db):
    from apps.catalog.importers import TEMPLATES, Format, ImportFile, benchmark_import
    from apps.catalog.importers.formats import format_register, format_unregister
    from apps.catalog.models import StereotypeTuple

    # The throwaway template-kind reader of the registry's own tests: one tuple per row.
    reader = "tests.catalog.test_import_formats.ToyReader"
    format_register(format=Format("toy", "Recipe toy", TEMPLATES, reader))
    try:
        report = benchmark_import(
            dataset_name="recipe",
            fmt="toy",
            files=[ImportFile("toy.csv", b"category,group,attribute\nage,old people,slow\n")],
        )
    finally:
        format_unregister(name="toy")
    assert report.tuples.created == 1
    assert StereotypeTuple.objects.get(dataset__name="recipe").attribute == "slow"


# --- "add a campaign kind": a throwaway kind judging stereotype tuples -------------------------


def _unanimous_kind():
    from apps.annotation.kinds import Kind
    from apps.annotation.models import ItemStatus
    from apps.annotation.rules import YES, YES_NO, InvalidJudgement, Outcome, text_answer
    from apps.catalog.models import StereotypeTuple

    class Unanimous(Kind):
        """Tuples kept only when every annotator calls them stereotypical."""

        name = "recipe_unanimous"
        label = "Unanimous tuple vote"
        target = "stereotype_tuple"
        fields = {"stereotypical": (YES_NO, False)}
        form_fields = ("stereotypical", "comment")
        # The recipe's own template would be templates/annotation/kinds/recipe_unanimous.html;
        # the tuple vote's form posts the same fields.
        work_template = "annotation/kinds/tuple_vote.html"
        guidelines_template = "annotation/kinds/tuple_vote_guidelines.html"

        def clean(self, answers):
            if answers.get("stereotypical") not in YES_NO:
                raise InvalidJudgement("stereotypical: answer yes or no")
            return {
                "stereotypical": answers["stereotypical"],
                "comment": text_answer(answers, "comment", required=False),
            }

        def outcome(self, *, item, answers):
            unanimous = all(a["stereotypical"] == YES for a in answers)
            return Outcome(ItemStatus.COMPLETE, {"unanimous": unanimous})

        def targets(self, *, dataset, language, sample_size, seed, tier):
            rows = StereotypeTuple.objects.filter(dataset=dataset).order_by("id")
            return [
                {"stereotype_tuple": t, "category_id": t.category_id, "language": t.language}
                for t in rows
            ], ""

    return Unanimous()


def test_a_campaign_kind_registered_as_the_recipe_says_runs_a_campaign(db):
    from apps.accounts.roles import ANNOTATOR
    from apps.accounts.services import user_create_with_role
    from apps.annotation import selectors, services
    from apps.annotation.kinds import campaign_kind_get, campaign_kind_registered
    from apps.annotation.models import CampaignItem, Judgement
    from apps.catalog.models import StereotypeTuple
    from apps.core.errors import KasautiError
    from tests.factories import CategoryFactory, DatasetFactory

    annotators = []
    for username in ("anu", "bela"):
        user = user_create_with_role(username=username, role=ANNOTATOR, password="x")
        services.annotator_update(user=user, languages=["en"])
        annotators.append(user)
    dataset = DatasetFactory()
    StereotypeTuple.objects.create(
        dataset=dataset,
        category=CategoryFactory(name="Age"),
        identity_term="old people",
        attribute="slow",
    )
    kind = _unanimous_kind()
    with campaign_kind_registered(kind):
        campaign = services.campaign_create(dataset=dataset, kind=kind.name, annotators=annotators)
        # The work page renders the kind's template; the form post goes through its clean().
        page = Client()
        page.force_login(annotators[0])
        work = page.get(f"/annotate/campaigns/{campaign.pk}/")
        assert work.status_code == 200 and "old people" in work.content.decode()
        assignment = selectors.assignment_next(campaign_id=campaign.pk, annotator=annotators[0])
        posted = page.post(
            f"/annotate/assignments/{assignment.pk}/",
            {"stereotypical": "yes", "comment": "", "idempotency_key": "k-recipe-1"},
        )
        assert posted.status_code in (200, 302), posted.content[:300]
        assert Judgement.objects.get(annotator=annotators[0]).answers["stereotypical"] == "yes"
        second = selectors.assignment_next(campaign_id=campaign.pk, annotator=annotators[1])
        services.judgement_submit(
            assignment_id=second.pk,
            annotator=annotators[1],
            answers={"stereotypical": "no"},
            idempotency_key="k-recipe-2",
        )
        item = CampaignItem.objects.get(campaign=campaign)
        assert item.outcome == {"unanimous": False}
    with pytest.raises(KasautiError, match="recipe_unanimous"):
        campaign_kind_get(kind.name)
