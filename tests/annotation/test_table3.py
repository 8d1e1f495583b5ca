"""Table 3 (issue 18, 4.3): who annotator 1 is, every figure over the items both annotators
scored, and each row (ctx, qn, combined) with its own kappa, on the page and in the CSV."""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client
from sklearn.metrics import cohen_kappa_score

from apps.annotation import reports, services
from apps.annotation.models import Assignment, CampaignItem
from apps.catalog.models import Instance
from apps.catalog.services import dataset_instantiate
from tests.factories import TranslatedStringFactory

pytestmark = pytest.mark.django_db

# (adequacy, fluency) by item position, for slot 0 and slot 1.
SCORES = {
    0: [(5, 4), (4, 4)],
    1: [(3, 2), (3, 3)],
    2: [(4, 5), (5, 5)],
    3: [(2, 3), (2, 2)],
}


@pytest.fixture
def campaign(templates, annotator, second_annotator):
    dataset = templates[0].template.dataset
    dataset_instantiate(dataset=dataset)
    texts = set()
    for context, question, condition in Instance.objects.filter(
        dataset=dataset, language="en"
    ).values_list("context", "question", "context_condition"):
        texts.add(question)
        if condition == "ambig":
            texts.add(context)
    for i, text in enumerate(sorted(texts)):
        TranslatedStringFactory(language="hi", source_text=text, translation=f"हिंदी {i}")
    return services.campaign_create(
        dataset=dataset,
        kind="translation_scoring",
        language="hi",
        annotators=[annotator, second_annotator],
        sample_size=2,
        seed=1,
    )


def _kappa(positions, k):
    return cohen_kappa_score(
        [SCORES[p][0][k] for p in positions],
        [SCORES[p][1][k] for p in positions],
        labels=[1, 2, 3, 4, 5],
        weights="quadratic",
    )


def test_table3_counts_items_both_scored_and_gives_each_row_its_kappa(campaign, researcher):
    items = list(CampaignItem.objects.filter(campaign=campaign).order_by("position"))
    assert [i.segment for i in items] == ["ctx", "ctx", "qn", "qn"]
    # Slot 1 leaves item 1 (a context) unscored: slot 0 scored 4 items, slot 1 three.
    for assignment in Assignment.objects.filter(campaign=campaign).order_by("position", "slot"):
        if assignment.position == 1 and assignment.slot == 1:
            continue
        adequacy, fluency = SCORES[assignment.position][assignment.slot]
        services.judgement_submit(
            assignment_id=assignment.pk,
            annotator=assignment.annotator,
            answers={
                "adequacy": adequacy,
                "fluency": fluency,
                "adequacy_reason": "r",
                "fluency_reason": "r",
            },
            idempotency_key=services.new_idempotency_key(),
        )
    [block] = reports.table3(dataset_id=campaign.dataset_id)
    ctx, qn, combined = block.rows
    # Means over the items both scored: ctx is item 0 only (item 1 has one score).
    assert (ctx.n_items, ctx.scored) == (1, {"1": 2, "2": 1})
    assert ctx.means == {"F1": 4.0, "F2": 4.0, "A1": 5.0, "A2": 4.0}
    assert (qn.n_items, qn.scored) == (2, {"1": 2, "2": 2})
    assert qn.means == {"F1": 4.0, "F2": 3.5, "A1": 3.0, "A2": 3.5}
    assert (combined.n_items, combined.scored) == (3, {"1": 4, "2": 3})
    assert combined.means["A1"] == pytest.approx(round((5 + 4 + 2) / 3, 2))
    # Each row its own kappa (one item: undefined, said so).
    assert not ctx.adequacy_kappa.defined and "fewer than 2" in ctx.adequacy_kappa.reason
    assert qn.adequacy_kappa.value == pytest.approx(_kappa([2, 3], 0))
    assert combined.adequacy_kappa.value == pytest.approx(_kappa([0, 2, 3], 0))
    assert combined.fluency_kappa.value == pytest.approx(_kappa([0, 2, 3], 1))
    assert qn.adequacy_kappa.value != pytest.approx(combined.adequacy_kappa.value)
    # Who annotator 1 and annotator 2 are.
    holders = {
        str(slot + 1): sorted(
            set(
                Assignment.objects.filter(campaign=campaign, slot=slot).values_list(
                    "annotator__username", flat=True
                )
            )
        )
        for slot in (0, 1)
    }
    assert {slot: sorted(held) for slot, held in block.annotators.items()} == holders

    rows = list(csv.DictReader(io.StringIO(reports.Table3CsvWriter().write([block]))))
    assert [r["adequacy_kappa_w"] for r in rows] == [
        "undefined: fewer than 2 items judged by both annotators",
        f"{_kappa([2, 3], 0):.3f}",
        f"{_kappa([0, 2, 3], 0):.3f}",
    ]
    assert [(r["n_items"], r["scored_by_1"], r["scored_by_2"]) for r in rows] == [
        ("1", "2", "1"),
        ("2", "2", "2"),
        ("3", "4", "3"),
    ]
    client = Client()
    client.force_login(researcher)
    html = client.get(f"/annotate/manage/datasets/{campaign.dataset_id}/table3/").content.decode()
    assert "Annotator 1 and annotator 2 are the first and second annotator assigned" in html
    first = holders["1"][0]
    assert f"Annotator 1: {first} (" in html
