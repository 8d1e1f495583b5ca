"""Typed evidence for a concept: added and validated on the concept's page (who and when
kept), refused with a reason on bad input; and the concept REST API's verdict fields."""

from __future__ import annotations

import unicodedata

import pytest
from django.test import Client

from apps.catalog.models import Category, Dataset, EvidenceReference, StereotypeConcept
from apps.catalog.services import evidence_add, evidence_validate
from apps.core.errors import KasautiError

pytestmark = pytest.mark.django_db


@pytest.fixture
def es_dataset():
    return Dataset.objects.create(name="EsBBQ-like", inclusion_rule="esbbq", evidence_required=True)


@pytest.fixture
def concept(es_dataset):
    return StereotypeConcept.objects.create(
        category=Category.objects.get_or_create(name="Region")[0],
        dataset=es_dataset,
        subcategory="Andalusians",
        statement="Los andaluces son vagos",
        target_groups=["andaluces"],
        survey_mentions=2,
        survey_affected=1,
        source="survey",
        validation_status="validated",
    )


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- services ---------------------------------------------------------------------------------


def test_evidence_add_and_validate_record_who_and_when(concept, researcher, admin_user):
    ref = evidence_add(
        concept=concept,
        kind="news_report",
        url="https://example.org/noticia",
        quote=unicodedata.normalize("NFD", "«los andaluces son vagos», dijo"),
        added_by=researcher,
    )
    assert ref.validation_status == "pending" and ref.added_by == researcher and ref.added_at
    assert ref.quote == unicodedata.normalize("NFC", "«los andaluces son vagos», dijo")
    evidence_validate(evidence=ref, status="validated", validated_by=admin_user)
    ref.refresh_from_db()
    assert ref.validated_by == admin_user and ref.validated_at is not None
    evidence_validate(evidence=ref, status="pending", validated_by=admin_user)
    ref.refresh_from_db()
    assert ref.validated_by is None and ref.validated_at is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"kind": "tweet", "url": "https://x.org"}, "evidence kind 'tweet' is not one of"),
        ({"kind": "other"}, "needs a URL, a note or a quoted passage"),
    ],
)
def test_evidence_add_refuses_bad_input(concept, kwargs, message):
    with pytest.raises(KasautiError, match=message):
        evidence_add(concept=concept, **kwargs)
    assert not EvidenceReference.objects.exists()


def test_evidence_validate_refuses_an_unknown_status(concept):
    ref = evidence_add(concept=concept, kind="other", note="n")
    with pytest.raises(KasautiError, match="evidence status 'approved'"):
        evidence_validate(evidence=ref, status="approved", validated_by=None)


# --- the concept page -------------------------------------------------------------------------


def test_concept_page_shows_verdict_counts_and_evidence(concept, annotator, researcher):
    ref = evidence_add(
        concept=concept,
        kind="research_article",
        url="https://doi.org/10/x",
        quote="cita",
        note="p. 4",
        added_by=researcher,
    )
    evidence_validate(evidence=ref, status="rejected", validated_by=researcher)
    html = client_for(annotator).get(f"/concepts/{concept.pk}/").content.decode()
    assert 'id="counts" data-counted-as="survey">2 respondents (1 affected)' in html
    assert "no evidence reference (or all rejected)" in html and 'data-usable="no"' in html
    assert "Research article" in html and "<blockquote" in html and "cita" in html
    assert "rejected by rekha on" in html
    # Annotators read; they get no forms.
    assert 'id="evidence-form"' not in html and 'value="validated"' not in html


def test_researcher_adds_typed_evidence_and_the_concept_passes(concept, researcher):
    client = client_for(researcher)
    page = client.get(f"/concepts/{concept.pk}/").content.decode()
    assert 'id="evidence-form"' in page and 'data-usable="no"' in page
    response = client.post(
        f"/concepts/{concept.pk}/evidence/",
        {
            "kind": "affected_group_post",
            "url": "https://foro.example.org/hilo/1",
            "quote": "Siempre nos dicen que somos vagos",
            "note": "foro, 2023",
        },
    )
    assert response.status_code == 302
    ref = EvidenceReference.objects.get(concept=concept)
    assert (ref.kind, ref.added_by, ref.validation_status) == (
        "affected_group_post",
        researcher,
        "pending",
    )
    html = client.get(f"/concepts/{concept.pk}/").content.decode()
    # Pending evidence is not rejected: with 2 respondents, one affected, EsBBQ keeps it.
    assert 'data-usable="yes"' in html and "Post by a member of the affected group" in html
    assert "Added by rekha" in html


@pytest.mark.parametrize(
    ("post", "message"),
    [
        ({"kind": "other"}, "Give a URL, a quoted passage or a note."),
        ({"kind": "blog", "note": "x"}, "Select a valid choice"),
        ({"kind": "other", "url": "javascript:alert(1)"}, "Enter a valid URL"),
        ({"kind": "other", "url": "https://e.org/" + "a" * 500}, "at most 500 characters"),
    ],
)
def test_bad_evidence_is_refused_and_says_why(concept, researcher, post, message):
    response = client_for(researcher).post(f"/concepts/{concept.pk}/evidence/", post)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not EvidenceReference.objects.exists()


def test_validate_and_reject_from_the_page(concept, researcher):
    ref = evidence_add(concept=concept, kind="statistical_report", url="https://ine.es/x")
    client = client_for(researcher)
    url = f"/concepts/{concept.pk}/evidence/{ref.pk}/validate/"
    response = client.post(url, {"status": "validated"})
    assert response.status_code == 302 and response["Location"].endswith(f"#evidence-{ref.pk}")
    ref.refresh_from_db()
    assert ref.validation_status == "validated" and ref.validated_by == researcher
    client.post(url, {"status": "rejected"})
    ref.refresh_from_db()
    assert ref.validation_status == "rejected"
    html = client.get(f"/concepts/{concept.pk}/").content.decode()
    assert 'data-usable="no"' in html and "rejected by rekha" in html
    bad = client.post(url, {"status": "maybe"}, follow=True)
    assert "evidence status &#x27;maybe&#x27;" in bad.content.decode()
    ref.refresh_from_db()
    assert ref.validation_status == "rejected"


def test_evidence_writes_are_for_researchers(concept, annotator):
    ref = evidence_add(concept=concept, kind="other", note="n")
    client = client_for(annotator)
    assert (
        client.post(f"/concepts/{concept.pk}/evidence/", {"kind": "other", "note": "x"}).status_code
        == 403
    )
    assert (
        client.post(
            f"/concepts/{concept.pk}/evidence/{ref.pk}/validate/", {"status": "validated"}
        ).status_code
        == 403
    )
    ref.refresh_from_db()
    assert ref.validation_status == "pending" and EvidenceReference.objects.count() == 1
    anonymous = Client().get(f"/concepts/{concept.pk}/")
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]


def test_evidence_of_another_concept_is_404(concept, researcher):
    other = StereotypeConcept.objects.create(category=concept.category, statement="otro")
    ref = evidence_add(concept=other, kind="other", note="n")
    response = client_for(researcher).post(
        f"/concepts/{concept.pk}/evidence/{ref.pk}/validate/", {"status": "validated"}
    )
    assert response.status_code == 404
    ref.refresh_from_db()
    assert ref.validation_status == "pending"


def test_html_in_evidence_is_escaped(concept, researcher):
    evidence_add(concept=concept, kind="other", quote="<script>alert(1)</script>", note="<b>x</b>")
    html = client_for(researcher).get(f"/concepts/{concept.pk}/").content.decode()
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html


# --- the concept API ----------------------------------------------------------------------


def test_concept_api_shows_dataset_counts_reasons_and_typed_evidence(
    concept, researcher, annotator_client
):
    ref = evidence_add(
        concept=concept,
        kind="news_report",
        url="https://e.org/n",
        quote="«vagos»",
        added_by=researcher,
    )
    evidence_validate(evidence=ref, status="validated", validated_by=researcher)
    data = annotator_client.get(f"/api/concepts/{concept.pk}/").json()
    assert data["dataset"] == "EsBBQ-like" and data["subcategory"] == "Andalusians"
    assert (data["mentions"], data["survey_mentions"], data["survey_affected"]) == (0, 2, 1)
    assert data["counted_as"] == "survey" and data["inclusion_rule"] == "esbbq"
    assert data["meets_inclusion_rule"] is True and data["reasons"] == []
    [evidence] = data["evidence"]
    assert evidence["kind"] == "news_report" and evidence["quote"] == "«vagos»"
    assert evidence["validation_status"] == "validated" and evidence["validated_by"] == "rekha"
    assert evidence["added_by"] == "rekha" and evidence["validated_at"]


def test_concept_api_reasons_and_reported_counts(researcher_client, es_dataset):
    payload = {
        "category": "Age",
        "dataset": "EsBBQ-like",
        "subcategory": "Elderly",
        "statement": "Old people cannot use phones",
        "mentions": 2,
        "source": "survey",
        "validation_status": "validated",
    }
    created = researcher_client.post("/api/concepts/", payload, format="json")
    assert created.status_code == 201, created.json()
    data = created.json()
    assert data["dataset"] == "EsBBQ-like" and data["subcategory"] == "Elderly"
    assert data["counted_as"] == "reported" and data["survey_mentions"] is None
    assert data["meets_inclusion_rule"] is False
    assert data["reasons"] == [
        "2 mentions and none affected; needs 3, or 2 with one affected",
        "no evidence reference (or all rejected)",
    ]
    unknown = researcher_client.post(
        "/api/concepts/", {**payload, "dataset": "nope"}, format="json"
    )
    assert unknown.status_code == 400 and "dataset" in unknown.json()


def test_concept_api_filters_by_dataset_and_usable(annotator_client, concept, es_dataset):
    StereotypeConcept.objects.create(category=concept.category, statement="no dataset", mentions=9)
    evidence_add(concept=concept, kind="other", note="n")
    by_dataset = annotator_client.get("/api/concepts/?dataset=EsBBQ-like").json()["results"]
    assert [c["id"] for c in by_dataset] == [concept.pk]
    by_id = annotator_client.get(f"/api/concepts/?dataset={es_dataset.pk}").json()["results"]
    assert by_id == by_dataset
    usable = annotator_client.get("/api/concepts/?usable=true").json()["results"]
    assert [c["id"] for c in usable] == [concept.pk] and usable[0]["meets_inclusion_rule"]
    assert annotator_client.get("/api/concepts/?dataset=nope").status_code == 400


def test_concept_list_api_queries_do_not_grow_with_concepts(
    annotator_client, concept, django_assert_max_num_queries
):
    for i in range(30):
        c = StereotypeConcept.objects.create(
            category=concept.category, statement=f"c{i}", dataset=concept.dataset
        )
        evidence_add(concept=c, kind="other", note="n")
    with django_assert_max_num_queries(12):
        response = annotator_client.get("/api/concepts/?page_size=50")
    assert response.status_code == 200 and len(response.json()["results"]) >= 20


def test_concept_page_shows_coverage_per_dataset(concept, es_dataset, annotator):
    """How many templates probe the concept, by their current version, per dataset: approved
    ones against EsBBQ's two, and those still in the works."""
    from apps.catalog.services import template_edit
    from tests.factories import TemplateFactory, TemplateVersionFactory

    html = client_for(annotator).get(f"/concepts/{concept.pk}/").content.decode()
    assert "no template probes it yet" in html
    for name, status in (("A", "approved"), ("B", "draft"), ("C", "rejected")):
        TemplateVersionFactory(
            template=TemplateFactory(dataset=es_dataset, external_id=name),
            concept=concept,
            status=status,
        )
    html = client_for(annotator).get(f"/concepts/{concept.pk}/").content.decode()
    assert f'<span data-dataset="{es_dataset.name}">' in html
    assert "<strong>1</strong> approved, 1 in the works" in html
    assert "(EsBBQ asks for at least 2)" in html
    # A new version without the concept no longer counts.
    b = es_dataset.templates.get(external_id="B")
    template_edit(template=b, changes={"concept_id": None, "status": "approved"})
    TemplateVersionFactory(template=TemplateFactory(dataset=es_dataset, external_id="D"),
                           concept=concept, status="approved")  # fmt: skip
    html = client_for(annotator).get(f"/concepts/{concept.pk}/").content.decode()
    assert "<strong>2</strong> approved</span>" in html and "EsBBQ asks" not in html
