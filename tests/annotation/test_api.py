"""The API enforces the same rules as the pages: personas are two annotators, a researcher
and an outsider (signed in, no role)."""

from __future__ import annotations

import pytest

from apps.annotation.models import Judgement
from apps.catalog.models import Finding

from .conftest import YES_ALL

pytestmark = pytest.mark.django_db

BASE = "/api/annotation"


@pytest.fixture
def campaign(templates, researcher_client, annotator, second_annotator):
    response = researcher_client.post(
        f"{BASE}/campaigns/",
        {
            "dataset": templates[0].template.dataset_id,
            "kind": "template_validation",
            "annotators": ["anu", "bela"],
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()


def test_only_researchers_create_campaigns(templates, annotator_client, outsider_client):
    body = {"dataset": templates[0].template.dataset_id, "kind": "tuple_vote", "annotators": []}
    assert annotator_client.post(f"{BASE}/campaigns/", body, format="json").status_code == 403
    assert outsider_client.post(f"{BASE}/campaigns/", body, format="json").status_code == 403


def test_researcher_pages_are_403_for_annotators_and_outsiders(
    campaign, annotator_client, outsider_client, anonymous_client
):
    for url in (
        f"{BASE}/campaigns/{campaign['id']}/",
        f"{BASE}/campaigns/{campaign['id']}/agreement/",
        f"{BASE}/adjudication/",
        f"{BASE}/annotators/",
        f"{BASE}/datasets/{campaign['dataset']}/table3/",
    ):
        assert annotator_client.get(url).status_code == 403, url
        assert outsider_client.get(url).status_code == 403, url
        assert anonymous_client.get(url).status_code in (401, 403), url


def test_blind_flow_with_two_annotators_and_adjudication(
    campaign, annotator_client, second_annotator_client, researcher_client, templates
):
    version = templates[0]
    finding = Finding.objects.create(
        dataset=version.template.dataset,
        template_version=version,
        kind="likely-mislabel",
        message="answer labels swapped?",
    )
    first = annotator_client.get(f"{BASE}/campaigns/{campaign['id']}/next/").json()
    assert first["item"]["template"]["findings"][0]["kind"] == "likely-mislabel"
    # Not instantiated yet: the two examples are generated in memory, as instantiation will.
    examples = first["item"]["template"]["examples"]
    assert [(e["context"], e["question"]) for e in examples] == [
        ("A grandfather and a grandson were waiting at the bus stop.", "Who forgot the ticket?"),
        ("A grandfather and a grandson were waiting at the bus stop.", "Who was prepared?"),
    ]
    url = f"{BASE}/assignments/{first['assignment']}/judgements/"
    body = {"answers": {**YES_ALL, "a": "no"}, "idempotency_key": first["idempotency_key"]}
    assert annotator_client.post(url, body, format="json").status_code == 201
    # The double-click: same key, one row.
    assert annotator_client.post(url, body, format="json").status_code == 200
    assert Judgement.objects.count() == 1
    # Bela cannot submit on Anu's assignment, nor see it.
    assert second_annotator_client.post(url, body, format="json").status_code == 403
    assert (
        second_annotator_client.get(f"{BASE}/assignments/{first['assignment']}/").status_code == 404
    )
    theirs = second_annotator_client.get(f"{BASE}/campaigns/{campaign['id']}/next/").json()
    # Blind: nothing of Anu's answers is in Bela's payload.
    assert theirs["answers"] is None and "judgements" not in theirs["item"]
    second_annotator_client.post(
        f"{BASE}/assignments/{theirs['assignment']}/judgements/",
        {"answers": YES_ALL, "idempotency_key": theirs["idempotency_key"]},
        format="json",
    )
    queue = researcher_client.get(f"{BASE}/adjudication/").json()
    assert [row["item"] for row in queue] == [first["item"]["id"]]
    item = researcher_client.get(f"{BASE}/items/{first['item']['id']}/").json()
    assert sorted(j["answers"]["a"] for j in item["judgements"]) == ["no", "yes"]
    decision_url = f"{BASE}/items/{first['item']['id']}/decision/"
    refused = researcher_client.post(decision_url, {"verdict": "approve"}, format="json")
    assert refused.status_code == 400 and "still open" in refused.json()["detail"]
    assert (
        annotator_client.post(decision_url, {"verdict": "approve"}, format="json").status_code
        == 403
    )
    ok = researcher_client.post(
        decision_url,
        {"verdict": "approve", "findings": {str(finding.pk): "resolved"}},
        format="json",
    )
    assert ok.status_code == 201
    version.refresh_from_db()
    assert version.status == "approved"
    agreement = researcher_client.get(f"{BASE}/campaigns/{campaign['id']}/agreement/").json()
    assert agreement["fields"]["a"]["undefined"] is True  # one item only
    assert "fewer than 2" in agreement["fields"]["a"]["reason"]


def test_invalid_answers_are_400_with_the_field(campaign, annotator_client):
    first = annotator_client.get(f"{BASE}/campaigns/{campaign['id']}/next/").json()
    response = annotator_client.post(
        f"{BASE}/assignments/{first['assignment']}/judgements/",
        {"answers": {"a": "yes"}, "idempotency_key": "abc"},
        format="json",
    )
    assert response.status_code == 400 and response.json()["detail"] == "b: answer yes or no"


def test_researcher_manages_annotators(researcher_client, annotator_client):
    created = researcher_client.post(
        f"{BASE}/annotators/", {"username": "chitra", "languages": ["ta", "en"]}, format="json"
    )
    assert created.status_code == 201 and created.json()["languages"] == ["ta", "en"]
    pk = created.json()["id"]
    patched = researcher_client.patch(
        f"{BASE}/annotators/{pk}/", {"languages": ["ta"], "is_active": False}, format="json"
    )
    assert patched.json()["languages"] == ["ta"] and patched.json()["is_active"] is False
    taken = researcher_client.post(
        f"{BASE}/annotators/", {"username": "chitra", "languages": []}, format="json"
    )
    assert taken.status_code == 409
    assert (
        annotator_client.post(
            f"{BASE}/annotators/", {"username": "x", "languages": []}, format="json"
        ).status_code
        == 403
    )
