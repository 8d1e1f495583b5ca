"""An accepted correction rewrites the translated instances that use the string: each gets a
new revision (a new row; the old one retired and kept), with the review facts updated and who
and when recorded; the API shows the revisions."""

from __future__ import annotations

import pytest

from apps.catalog.models import Instance
from apps.catalog.services import dataset_instantiate
from apps.translation.models import CorrectionItem
from apps.translation.services.review import review_facts
from tests.factories import TemplateVersionFactory, TranslatedStringFactory

pytestmark = pytest.mark.django_db

QUESTION = "Who forgot the ticket?"
MACHINE = "टिकट कौन भूल गया?"
HUMAN = "टिकट किसने भुला दिया?"


def _string(source, translation, similarity, text_hash):
    return TranslatedStringFactory(
        text_hash=text_hash,
        source_text=source,
        translation=translation,
        similarity=similarity,
        forward_model_version="fwd-1",
        backward_model_version="bwd-1",
        embedder_version="emb-1",
    )


@pytest.fixture
def translated():
    """English instances of one template and their Hindi translations, assembled the way the
    translation job does (review facts from the strings they are made of)."""
    version = TemplateVersionFactory(question_negative=QUESTION)
    dataset_instantiate(dataset=version.template.dataset)
    question = _string(QUESTION, MACHINE, 0.61, "q" * 64)
    other = _string("Other text", "दूसरा", 0.95, "o" * 64)
    originals = list(Instance.objects.filter(template_version=version, language="en"))
    rows = []
    for original in originals:
        uses = original.question == QUESTION
        copy = Instance.objects.get(pk=original.pk)
        copy.pk = None
        copy.language = "hi"
        copy.source_instance = original
        copy.question = MACHINE if uses else original.question
        copy.review = review_facts(
            strings=[question, other] if uses else [other], threshold=0.75, corrected={}
        )
        copy.save()
        rows.append(copy)
    item = CorrectionItem.objects.create(
        kind="low_similarity", language="hi", translated_string=question, reason="0.61 < 0.75"
    )
    return item, rows


def test_correction_replaces_each_using_instance_with_a_new_revision(
    translated, annotator_client, annotator
):
    item, rows = translated
    using = [r for r in rows if r.question == MACHINE]
    others = [r for r in rows if r.question != MACHINE]
    assert using and others
    assert {r.review["status"] for r in using} == {"flagged"}
    assert using[0].review["similarity"] == 0.61
    assert using[0].review["forward_model_version"] == "fwd-1"

    url = f"/api/annotation/corrections/{item.pk}/"
    assert (
        annotator_client.post(url, {"action": "edit", "text": HUMAN}, format="json").status_code
        == 201
    )

    for old in using:
        old.refresh_from_db()
        assert old.retired_at is not None and old.question == MACHINE  # kept, not edited
        new = Instance.objects.get(source_instance=old.source_instance, retired_at__isnull=True)
        assert new.question == HUMAN
        assert new.context == old.context and new.ans0 == old.ans0
        assert new.review["status"] == "corrected"
        assert new.review["revision"] == 2 and new.review["replaces"] == old.pk
        assert new.review["corrected"] == [QUESTION] and new.review["flagged"] == []
        (note,) = new.review["corrections"]
        assert note["by"] == annotator.username and note["item"] == item.pk and note["at"]
    for untouched in others:
        untouched.refresh_from_db()
        assert untouched.retired_at is None and untouched.review["revision"] == 1

    # A second edit: another revision on top, from the text the rows carry now.
    assert (
        annotator_client.post(
            url, {"action": "edit", "text": HUMAN + "!"}, format="json"
        ).status_code
        == 201
    )
    live = Instance.objects.filter(language="hi", retired_at__isnull=True, question=HUMAN + "!")
    assert live.count() == len(using)
    assert {r.review["revision"] for r in live} == {3}

    body = annotator_client.get(url).json()
    assert [h["text"] for h in body["history"]] == [MACHINE, HUMAN, HUMAN + "!"]
    first = body["instances"][0]
    assert [r["question"] for r in first["revisions"]] == [MACHINE, HUMAN, HUMAN + "!"]
    assert [r["revision"] for r in first["revisions"]] == [1, 2, 3]
    assert first["revisions"][0]["retired_at"] and first["revisions"][-1]["retired_at"] is None
    assert len(body["instances"]) == len(using)


def test_confirm_keeps_the_text_and_marks_the_rows_reviewed(translated, annotator_client):
    item, rows = translated
    url = f"/api/annotation/corrections/{item.pk}/"
    assert annotator_client.post(url, {"action": "confirm"}, format="json").status_code == 201
    live = Instance.objects.filter(language="hi", retired_at__isnull=True, question=MACHINE)
    assert live.count() == sum(1 for r in rows if r.question == MACHINE)
    assert {r.review["status"] for r in live} == {"corrected"}
