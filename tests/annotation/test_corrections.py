"""Correction of flagged translations: confirm or edit, history kept, language coverage."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.translation.models import CorrectionItem, CorrectionRevision
from tests.factories import TranslatedStringFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def flagged(db):
    string = TranslatedStringFactory(
        text_hash="h" * 64,
        source_text="Who forgot the ticket?",
        translation="टिकट कौन भूल गया?",
        back_translation="Who forgot ticket?",
        similarity=0.61,
    )
    return CorrectionItem.objects.create(
        kind="low_similarity", language="hi", translated_string=string, reason="0.61 < 0.75"
    )


def test_edit_keeps_machine_output_and_every_revision(flagged, annotator_client, annotator):
    url = f"/api/annotation/corrections/{flagged.pk}/"
    first = annotator_client.post(url, {"action": "edit", "text": "टिकट कौन भूला?"}, format="json")
    assert first.status_code == 201
    again = annotator_client.post(url, {"action": "edit", "text": "टिकट कौन भूला?"}, format="json")
    assert again.status_code == 200  # the same decision twice: no second revision
    confirm = annotator_client.post(url, {"action": "confirm"}, format="json")
    assert confirm.status_code == 201
    history = annotator_client.get(url).json()["history"]
    assert [h["by"] for h in history] == ["machine", "anu", "anu"]
    assert history[0]["text"] == "टिकट कौन भूल गया?"
    assert history[2]["previous_text"] == "टिकट कौन भूला?"
    assert CorrectionRevision.objects.filter(item=flagged).count() == 2
    flagged.refresh_from_db()
    assert flagged.status == "resolved" and flagged.corrected_text == "टिकट कौन भूल गया?"


def test_annotators_only_correct_their_languages(flagged, second_annotator_client):
    from django.contrib.auth import get_user_model

    from apps.annotation.services import annotator_update

    annotator_update(user=get_user_model().objects.get(username="bela"), languages=["ta"])
    response = second_annotator_client.post(
        f"/api/annotation/corrections/{flagged.pk}/", {"action": "confirm"}, format="json"
    )
    assert response.status_code == 404
    assert not CorrectionRevision.objects.exists()


def test_empty_edit_is_refused(flagged, annotator_client):
    response = annotator_client.post(
        f"/api/annotation/corrections/{flagged.pk}/", {"action": "edit", "text": " "}, format="json"
    )
    assert response.status_code == 400 and "text:" in response.json()["detail"]


def test_correction_page(flagged, annotator):
    client = Client()
    client.force_login(annotator)
    page = client.get("/annotate/corrections/?language=hi").content.decode()
    assert 'lang="hi"' in page and "टिकट कौन भूल गया?" in page and "0.610" in page
    done = client.post(
        "/annotate/corrections/?language=hi", {"item": flagged.pk, "action": "confirm"}
    )
    assert done.status_code == 302
    assert "No open flagged translations" in client.get(done["Location"]).content.decode()


def test_occurrences_show_the_string_in_its_sentences_one_per_context(templates):
    """ISSUE18 2.6: the instances a flagged string occurs in, one per context, string marked;
    only the job's dataset when given; no translated instance yet says so (None)."""
    from apps.catalog.models import Instance
    from apps.catalog.services import dataset_instantiate
    from apps.translation.selectors import string_occurrences

    dataset = templates[0].template.dataset
    dataset_instantiate(dataset=dataset)
    english = Instance.objects.filter(dataset=dataset, language="en").order_by("id")
    answer = english.first().ans0
    holding = (
        english.filter(ans0=answer) | english.filter(ans1=answer) | english.filter(ans2=answer)
    )
    string = TranslatedStringFactory(source_text=answer, translation="अनुवाद")
    found = string_occurrences(string=string, dataset_id=dataset.pk)
    assert found["total"] == holding.distinct().count() > 0
    contexts = [row["english"]["context"] for row in found["rows"]]
    assert len(found["rows"]) == min(3, len({r.context for r in holding}))
    assert len({str(c) for c in contexts}) == len(contexts)  # one per context
    first = found["rows"][0]
    assert (answer, True) in [piece for option in first["english"]["answers"] for piece in option]
    assert first["translated"] is None
    assert string_occurrences(string=string, dataset_id=dataset.pk + 1000)["total"] == 0


def test_marking_a_string_by_hand():
    from apps.translation.selectors import _marked

    assert _marked("a sc and a sc.", "sc") == [
        ("a ", False),
        ("sc", True),
        (" and a ", False),
        ("sc", True),
        (".", False),
    ]
    assert _marked("nothing here", "obc") == [("nothing here", False)]
