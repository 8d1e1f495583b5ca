"""Releases take only reviewed content by default: instances of approved template versions,
and of those, translations that passed the similarity check or were corrected. "as_published"
takes everything; the mode is recorded, part of the fingerprint, and exported rows carry their
review facts."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from apps.catalog.models import Instance, TemplateVersion
from apps.catalog.services import dataset_instantiate
from apps.core.errors import KasautiError
from apps.core.models import Job
from apps.releases.models import Release
from apps.releases.services import release_create, release_file_path
from tests.factories import TemplateVersionFactory

pytestmark = pytest.mark.django_db

FACTS = {
    "status": "passed",
    "similarity": 0.91,
    "threshold": 0.75,
    "flagged": [],
    "corrected": [],
    "forward_model_version": "fwd-1",
    "backward_model_version": "bwd-1",
    "embedder_version": "emb-1",
    "revision": 1,
}


def _translate(original: Instance, status: str, language: str) -> Instance:
    copy = Instance.objects.get(pk=original.pk)
    copy.pk = None
    copy.language = language
    copy.source_instance = original
    copy.context = f"[{language}] {original.context}"
    copy.review = {**FACTS, "status": status}
    copy.save()
    return copy


@pytest.fixture
def mixed(dataset):
    """The release dataset (approved), one draft template, and Hindi translations of the
    English instances: passed, flagged and corrected ones."""
    draft = TemplateVersionFactory(template__dataset=dataset, language="en")
    dataset_instantiate(dataset=dataset)
    TemplateVersion.objects.filter(pk=draft.pk).update(status="draft")
    english = list(
        Instance.objects.filter(
            dataset=dataset, language="en", template_version__status="approved"
        ).order_by("id")
    )
    statuses = ["passed", "flagged", "corrected"]
    translated = {
        status: [_translate(i, status, "mr") for i in english[n::3]]
        for n, status in enumerate(statuses)
    }
    return dataset, draft, translated


def _instances_jsonl(release: Release) -> list[dict]:
    files = release.files.filter(kind="instances", format="jsonl")
    return [json.loads(line) for line in release_file_path(release_file=files.get()).open()]


def test_reviewed_release_takes_approved_templates_and_passed_or_corrected_translations(mixed):
    dataset, draft, translated = mixed
    reviewed = release_create(dataset=dataset)
    assert reviewed.content == "reviewed"
    members = set(reviewed.memberships.values_list("instance_id", flat=True))
    assert not members & set(draft.instances.values_list("id", flat=True))
    assert {i.pk for i in translated["passed"]} <= members
    assert {i.pk for i in translated["corrected"]} <= members
    assert not members & {i.pk for i in translated["flagged"]}
    rows = _instances_jsonl(reviewed)
    assert len(rows) == reviewed.counts["total"] == len(members)
    assert {r["additional_metadata"]["review_status"] for r in rows} == {"approved"}
    marathi = [r for r in rows if r["language"] == "mr"]
    assert marathi and {
        r["additional_metadata"]["translation_review"]["status"] for r in marathi
    } == {
        "passed",
        "corrected",
    }
    facts = marathi[0]["additional_metadata"]["translation_review"]
    assert facts["similarity"] == 0.91 and facts["forward_model_version"] == "fwd-1"
    assert facts["embedder_version"] == "emb-1" and facts["revision"] == 1
    english = [r for r in rows if r["language"] == "en"]
    assert english and all(r["additional_metadata"]["translation_review"] is None for r in english)

    # The same request again: the same release. Everything: a different one, recorded.
    assert release_create(dataset=dataset).pk == reviewed.pk
    everything = release_create(dataset=dataset, content="as_published")
    assert everything.pk != reviewed.pk and everything.content == "as_published"
    assert everything.counts["total"] > reviewed.counts["total"]
    assert draft.instances.first().pk in set(
        everything.memberships.values_list("instance_id", flat=True)
    )
    statuses = {r["additional_metadata"]["review_status"] for r in _instances_jsonl(everything)}
    assert statuses == {"approved", "draft"}
    assert release_create(dataset=dataset, content="as_published").pk == everything.pk


def test_nothing_reviewed_is_refused_naming_the_option(dataset):
    TemplateVersion.objects.filter(template__dataset=dataset).update(status="in_review")
    dataset.sentence_pairs.all().delete()
    dataset.tuples.all().delete()
    dataset.context_sets.all().delete()
    with pytest.raises(KasautiError, match="as_published"):
        release_create(dataset=dataset)
    assert not Release.objects.exists()


def test_api_and_page_take_the_choice(
    dataset, researcher, researcher_client, django_capture_on_commit_callbacks
):
    created = researcher_client.post(
        f"/api/datasets/{dataset.pk}/releases/", {"content": "as_published"}, format="json"
    )
    assert created.status_code == 201 and created.json()["content"] == "as_published"
    bad = researcher_client.post(
        f"/api/datasets/{dataset.pk}/releases/", {"content": "all"}, format="json"
    )
    assert bad.status_code == 400 and "content" in bad.json()
    default = researcher_client.post(f"/api/datasets/{dataset.pk}/releases/", {}, format="json")
    assert default.status_code == 201 and default.json()["content"] == "reviewed"
    page = Client()
    page.force_login(researcher)
    html = page.get(f"/datasets/{dataset.pk}/releases/").content.decode()
    assert 'name="content" value="reviewed" checked' in html
    with django_capture_on_commit_callbacks():
        page.post(f"/datasets/{dataset.pk}/releases/new/", {"content": "as_published"})
    assert Job.objects.get(kind="release").params["content"] == "as_published"
