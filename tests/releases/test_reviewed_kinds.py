"""Reviewed releases are reviewed for every kind, not only instances: tuples by their votes,
context sets by their sentences' two-tier review, and no sentence pairs (Kasauti has no
review step for them). Every row left out is counted with its reason, the counts are shown
before a release is made, and the fingerprint follows what is released."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from apps.catalog.models import (
    ContextSentence,
    ContextSet,
    SentencePair,
    StereotypeTuple,
    TemplateVersion,
)
from apps.catalog.review import TupleVerdict, tuple_verdict
from apps.core.errors import KasautiError
from apps.releases.models import Release
from apps.releases.services import release_create, release_file_path
from tests.factories import CategoryFactory, DatasetFactory

pytestmark = pytest.mark.django_db


def _rows(release: Release, kind: str) -> list[dict]:
    release_file = release.files.filter(kind=kind, format="jsonl").first()
    if release_file is None:  # a kind the release holds none of has no file
        assert release.counts["total" if kind == "instances" else kind] == 0
        return []
    return [json.loads(line) for line in release_file_path(release_file=release_file).open()]


@pytest.mark.parametrize(
    ("votes", "verdict"),
    [
        ([1, 1, 0], TupleVerdict.STEREOTYPICAL),  # IndiBias §4.1: 2 of 3
        ([1, 1, 1], TupleVerdict.STEREOTYPICAL),
        ([1, 0, 0], TupleVerdict.NOT_STEREOTYPICAL),
        ([0, 0, 0], TupleVerdict.NOT_STEREOTYPICAL),
        ([], TupleVerdict.NOT_VOTED),
        (None, TupleVerdict.NOT_VOTED),
        # Other numbers of voters: a strict majority.
        ([1], TupleVerdict.STEREOTYPICAL),
        ([1, 1], TupleVerdict.STEREOTYPICAL),
        ([1, 0], TupleVerdict.NOT_STEREOTYPICAL),
        ([1, 1, 0, 0], TupleVerdict.NOT_STEREOTYPICAL),
        ([1, 1, 1, 0], TupleVerdict.STEREOTYPICAL),
        ([1, 1, 1, 0, 0], TupleVerdict.STEREOTYPICAL),
    ],
)
def test_tuple_rule(votes, verdict):
    assert tuple_verdict(votes) == verdict


# --- a dataset with no instances: tuples, context sets and pairs in every review state -------

# (identity term, votes, released when reviewed)
TUPLES = [
    ("Marwari", [1, 1, 0], True),
    ("Bengali", [1, 0, 0], False),
    ("Punjabi", [], False),
    ("Sindhi", [1, 1], True),
    ("Parsi", [1, 0], False),
]
FIXED = "वह कक्षा में सबसे आगे रहता है।"


def _sentence(context_set, kind, text, tier="", decision="", position=0):
    return ContextSentence.objects.create(
        context_set=context_set,
        kind=kind,
        text=text,
        position=position,
        review_tier=tier,
        review_decision=decision,
    )


@pytest.fixture
def kinds(db):
    dataset = DatasetFactory(name="reviewed kinds")
    caste = CategoryFactory(name="Caste")
    for term, votes, _ in TUPLES:
        StereotypeTuple.objects.create(
            dataset=dataset, category=caste, identity_term=term, attribute="thrifty", votes=votes
        )
    for language in ("en", "hi"):
        SentencePair.objects.create(
            dataset=dataset,
            external_id="p1",
            category=caste,
            language=language,
            sent_more=f"[{language}] more",
            sent_less=f"[{language}] less",
            direction="stereo",
        )

    def context_set(external_id):
        return ContextSet.objects.create(
            dataset=dataset, external_id=external_id, category=caste, language="hi"
        )

    s = "stereotype"
    a = "anti_stereotype"
    ss = "social_science"
    # s1: one stereotype kept, one dropped by social science; the anti-stereotype fixed.
    s1 = context_set("s1")
    _sentence(s1, s, "वह पढ़ाई में कमज़ोर है।", ss, "keep", 0)
    _sentence(s1, s, "वह आलसी है।", ss, "drop", 1)
    _sentence(s1, a, FIXED, ss, "fix", 2)
    # s2: its only anti-stereotype was dropped by the language review: left out.
    s2 = context_set("s2")
    _sentence(s2, s, "वह गरीब है।", ss, "keep", 0)
    _sentence(s2, a, "वह अमीर है", "language", "drop", 1)
    # s3: the stereotype passed only the language review (awaiting social science).
    s3 = context_set("s3")
    _sentence(s3, s, "वह पुजारी है।", "language", "keep", 0)
    _sentence(s3, a, "वह किसान है।", ss, "keep", 1)
    # s4: never reviewed.
    s4 = context_set("s4")
    _sentence(s4, s, "वह व्यापारी है।", position=0)
    _sentence(s4, a, "वह कलाकार है।", position=1)
    return dataset


def test_reviewed_release_takes_what_passed_and_counts_what_it_left_out(kinds):
    release = release_create(dataset=kinds)
    assert release.content == "reviewed"
    counts = release.counts
    assert (counts["total"], counts["sentence_pairs"], counts["tuples"]) == (0, 0, 2)
    assert (counts["context_sets"], counts["context_sentences"]) == (1, 2)
    assert counts["excluded"] == {
        "instances": {"template_not_approved": 0, "translation_flagged": 0},
        "sentence_pairs": {"not_reviewed": 2},
        "tuples": {"not_voted": 1, "voted_not_stereotypical": 2},
        "context_sets": {
            "no_stereotype_left": 1,
            "no_anti_stereotype_left": 1,
            "no_sentence_left": 1,
        },
        "context_sentences": {
            "not_reviewed": 2,
            "awaiting_social_science_review": 1,
            "dropped_in_language_review": 1,
            "dropped_in_social_science_review": 1,
            "set_left_out": 2,  # s2's kept stereotype, s3's kept anti-stereotype
        },
    }

    tuples = _rows(release, "tuples")
    assert [(t["identity_term"], t["votes"]) for t in tuples] == [
        ("Marwari", [1, 1, 0]),
        ("Sindhi", [1, 1]),
    ]
    assert _rows(release, "sentence_pairs") == []
    (row,) = _rows(release, "context_sets")
    assert row["external_id"] == "s1"
    assert row["stereotypes"] == ["वह पढ़ाई में कमज़ोर है।"]
    assert row["anti_stereotypes"] == [FIXED]  # the fixed text
    file_rows = {(f.kind, f.format): f.rows for f in release.files.all()}
    assert file_rows[("tuples", "csv")] == 2 and file_rows[("context_sets", "parquet")] == 1
    assert not any(kind == "sentence_pairs" for kind, _ in file_rows)  # no empty files


def test_as_published_takes_everything_and_leaves_nothing_out(kinds):
    release = release_create(dataset=kinds, content="as_published")
    counts = release.counts
    assert (counts["sentence_pairs"], counts["tuples"], counts["context_sets"]) == (2, 5, 4)
    assert counts["context_sentences"] == 9
    assert all(n == 0 for reasons in counts["excluded"].values() for n in reasons.values())
    assert len(_rows(release, "tuples")) == 5 and len(_rows(release, "sentence_pairs")) == 2
    sets = {row["external_id"]: row for row in _rows(release, "context_sets")}
    assert len(sets["s1"]["stereotypes"]) == 2  # the dropped sentence too: as published


def test_nothing_reviewed_is_refused_naming_as_published(kinds):
    StereotypeTuple.objects.filter(dataset=kinds).update(votes=[])
    ContextSentence.objects.filter(context_set__dataset=kinds).update(
        review_tier="", review_decision=""
    )
    with pytest.raises(KasautiError, match="nothing to release.*content=as_published"):
        release_create(dataset=kinds)
    assert not Release.objects.exists()
    assert release_create(dataset=kinds, content="as_published").counts["sentence_pairs"] == 2


def test_fingerprint_follows_what_is_released(kinds):
    first = release_create(dataset=kinds)
    assert release_create(dataset=kinds).pk == first.pk  # nothing changed

    # A review change on a row the release leaves out (still not stereotypical): same content.
    StereotypeTuple.objects.filter(identity_term="Bengali").update(votes=[0, 0, 0])
    assert release_create(dataset=kinds).pk == first.pk

    # A fix of a released sentence changes its text, not any count: a new release.
    sentence = ContextSentence.objects.get(text=FIXED)
    ContextSentence.objects.filter(pk=sentence.pk).update(text=FIXED + " (फिर से)")
    second = release_create(dataset=kinds)
    assert second.number == 2 and second.counts == first.counts
    assert _rows(second, "context_sets")[0]["anti_stereotypes"] == [FIXED + " (फिर से)"]

    # New votes on a released tuple: its Score is exported, so a new release.
    StereotypeTuple.objects.filter(identity_term="Marwari").update(votes=[1, 1, 1])
    third = release_create(dataset=kinds)
    assert third.number == 3 and _rows(third, "tuples")[0]["votes"] == [1, 1, 1]

    # The social-science tier keeps s3's stereotype: the set is released now.
    ContextSentence.objects.filter(text="वह पुजारी है।").update(
        review_tier="social_science", review_decision="keep"
    )
    fourth = release_create(dataset=kinds)
    assert fourth.counts["context_sets"] == 2
    assert fourth.counts["excluded"]["context_sets"]["no_stereotype_left"] == 0
    assert [r["external_id"] for r in _rows(fourth, "context_sets")] == ["s1", "s3"]
    # Earlier releases keep their files and counts.
    assert Release.objects.get(pk=first.pk).counts["context_sets"] == 1


def test_template_status_is_part_of_the_fingerprint(dataset):
    """as_published exports each instance's review_status: approving or rejecting a template
    changes the files without changing which instances are taken."""
    first = release_create(dataset=dataset, content="as_published")
    version = TemplateVersion.objects.filter(template__dataset=dataset).first()
    TemplateVersion.objects.filter(pk=version.pk).update(status="rejected")
    second = release_create(dataset=dataset, content="as_published")
    assert second.pk != first.pk and second.counts["total"] == first.counts["total"]
    statuses = {r["additional_metadata"]["review_status"] for r in _rows(second, "instances")}
    assert statuses == {"approved", "rejected"}


def test_api_returns_content_and_exclusions_and_previews_both_modes(
    kinds, researcher_client, annotator_client
):
    preview_url = reverse("dataset-release-preview", args=[kinds.pk])
    assert annotator_client.get(preview_url).status_code == 403
    preview = researcher_client.get(preview_url).json()
    assert preview["reviewed"]["tuples"] == 2 and preview["as_published"]["tuples"] == 5
    assert preview["reviewed"]["excluded"]["sentence_pairs"] == {"not_reviewed": 2}
    assert preview["as_published"]["excluded"]["sentence_pairs"] == {"not_reviewed": 0}

    created = researcher_client.post(
        reverse("dataset-release-create", args=[kinds.pk]), {}, format="json"
    )
    assert created.status_code == 201
    body = created.json()
    assert body["content"] == "reviewed"
    assert body["counts"]["excluded"] == preview["reviewed"]["excluded"]
    detail = annotator_client.get(reverse("release-detail", args=[body["id"]])).json()
    assert detail["content"] == "reviewed"
    assert detail["counts"]["excluded"]["context_sets"]["no_sentence_left"] == 1
    assert detail["counts"]["excluded"]["tuples"] == {"not_voted": 1, "voted_not_stereotypical": 2}


def test_release_page_shows_both_modes_before_and_the_exclusions_after(kinds, researcher):
    page = Client()
    page.force_login(researcher)
    url = f"/datasets/{kinds.pk}/releases/"
    html = page.get(url).content.decode()
    assert 'id="release-preview"' in html
    assert '<tr><td>Tuples</td><td class="num">2</td><td class="num">5</td></tr>' in html
    assert "sentence pairs: 2 (sentence pairs have no review step in Kasauti)" in html
    release_create(dataset=kinds, created_by=researcher)
    html = page.get(url).content.decode()
    assert "Left out:" in html and "tuples: 1 (not voted on)" in html
    assert "context sets: 1 (no anti-stereotype sentence passed review)" in html


def test_job_summary_says_what_was_left_out(kinds):
    from apps.core.models import Job
    from apps.releases.jobs import RELEASE_KIND
    from apps.releases.services import release_summary

    job = Job(kind="release", result=release_summary(release=release_create(dataset=kinds)))
    lines = RELEASE_KIND.summary(job)
    assert "0 instances, 0 sentence pairs, 2 tuples, 1 context sets." in lines
    (left_out,) = [line for line in lines if line.startswith("Left out")]
    assert "2 sentence pairs (sentence pairs have no review step in Kasauti)" in left_out
    assert "1 tuples (not voted on)" in left_out
