"""Per-instance provenance (issue 22): the service, the API and the page for an original
instance of an adapted dataset (concept with evidence and survey counts, adaptation from a
source template, vocabulary entries in Devanagari) and its release membership; unknown ids,
permissions, a throwaway registered step, pseudonymised people, retired translations."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.accounts.pseudonyms import person_pseudonym
from apps.accounts.roles import RESEARCHER
from apps.accounts.services import user_create_with_role
from apps.catalog.bulk import (
    INSTANCE_COLUMNS,
    TRANSLATED_INSTANCE_COLUMNS,
    instance_row,
    instances_insert,
)
from apps.catalog.instance_hash import instance_text_hash
from apps.catalog.models import (
    Adaptation,
    Dataset,
    EvidenceReference,
    Instance,
    StereotypeConcept,
    UnknownExpression,
    Vocabulary,
    VocabularyEntry,
    VocabularyRevision,
)
from apps.catalog.services import concept_survey_counts_set, dataset_instantiate
from apps.releases.provenance import instance_provenance
from apps.releases.registry import (
    ProvenanceStep,
    provenance_step_register,
    provenance_step_unregister,
    provenance_steps,
)
from apps.releases.services import release_create
from tests.factories import CategoryFactory, DatasetFactory, TemplateVersionFactory

SURNAMES = [("शर्मा", "ब्राह्मण"), ("वर्मा", "कायस्थ"), ("यादव", "यादव")]
CONTEXT = "{{NAME1}} और {{NAME2}} बस स्टॉप पर इंतज़ार कर रहे थे।"


def provenance_dataset_build(*, author=None) -> dict:
    """An adapted dataset (BharatBBQ-shaped, Hindi) with one template: its version probes a
    concept with evidence and survey counts, adapts a source BBQ template (Culturally
    Transformed) and draws NAME1 from a vocabulary; instantiated, approved and released."""
    caste = CategoryFactory(name="Caste")
    source = DatasetFactory(name="BBQ स्रोत")
    source_version = TemplateVersionFactory(
        template__dataset=source, template__category=caste, template__external_id="SES-7"
    )
    dataset = Dataset.objects.create(name="भारत मिनी", adapted_from=source)
    concept = StereotypeConcept.objects.create(
        category=caste,
        dataset=dataset,
        statement="ब्राह्मण पढ़े-लिखे होते हैं",
        target_groups=["ब्राह्मण"],
        attribute="पढ़े-लिखे",
        mentions=2,
        source="survey",
        validation_status="validated",
    )
    concept_survey_counts_set(counts={concept.pk: (5, 2)}, clear=[])
    EvidenceReference.objects.create(
        concept=concept,
        kind="research_article",
        url="https://example.org/सर्वे-2024",
        quote="ब्राह्मणों को शिक्षित माना जाता है।",
        validation_status="validated",
        added_by=author,
    )
    EvidenceReference.objects.create(
        concept=concept, kind="news_report", note="एक समाचार रिपोर्ट", validation_status="pending"
    )
    vocabulary = Vocabulary.objects.create(name="उपनाम", language="hi")
    for position, (value, group) in enumerate(SURNAMES):
        VocabularyEntry.objects.create(
            vocabulary=vocabulary, value=value, group=group, position=position
        )
    # Revision 1 was saved before the template copied the values, revision 2 after.
    VocabularyRevision.objects.create(
        vocabulary=vocabulary,
        number=1,
        entries=[{"value": v, "group": g, "definite": ""} for v, g in SURNAMES],
    )
    UnknownExpression.objects.get_or_create(language="hi", text="पता नहीं")
    version = TemplateVersionFactory(
        template__dataset=dataset,
        template__category=caste,
        template__external_id="जाति-1",
        language="hi",
        ambiguous_context=CONTEXT,
        disambiguating_context="{{NAME1}} ने टिकट खो दिया; {{NAME2}} के पास दो थे। " + CONTEXT,
        question_negative="टिकट किसने खोया?",
        question_non_negative="किसके पास टिकट था?",
        answer_negative="{{NAME1}}",
        answer_non_negative="{{NAME2}}",
        placeholders={"NAME1": [v for v, _ in SURNAMES[:2]], "NAME2": ["खान", "सिंह"]},
        placeholder_groups={"NAME1": [g for _, g in SURNAMES[:2]]},
        placeholder_sources={"NAME1": {"vocabulary": "उपनाम", "language": "hi", "groups": []}},
        concept=concept,
        transformation_type="CT",
        transformation_reason="अमेरिकी संदर्भ को भारतीय जाति से बदला गया",
        source="https://example.org/सर्वे-2024",
        status="approved",
        created_by=author,
    )
    VocabularyRevision.objects.filter(vocabulary=vocabulary, number=1).update(
        saved_at=version.created_at - timedelta(days=1)
    )
    VocabularyRevision.objects.create(vocabulary=vocabulary, number=2, entries=[])
    Adaptation.objects.create(
        dataset=dataset, source=source_version.template, template=version.template
    )
    dataset_instantiate(dataset=dataset)
    release = release_create(dataset=dataset, notes="पहली")
    instance = (
        Instance.objects.filter(dataset=dataset, placeholder_values__NAME1="शर्मा")
        .order_by("pk")
        .first()
    )
    return {
        "dataset": dataset,
        "source": source,
        "source_version": source_version,
        "concept": concept,
        "vocabulary": vocabulary,
        "version": version,
        "release": release,
        "instance": instance,
    }


@pytest.fixture
def chain(db, researcher):
    return provenance_dataset_build(author=researcher)


def _step(answer: dict, name: str) -> dict:
    return next(step["data"] for step in answer["steps"] if step["name"] == name)


def _translate(original: Instance, *, language: str, context: str, review: dict) -> Instance:
    """A translated copy of `original` as the translation app writes one (same identity,
    source_instance set, review facts)."""
    values = {column: getattr(original, column) for column in INSTANCE_COLUMNS}
    values |= {
        "language": language,
        "context": context,
        "source_instance_id": original.pk,
        "review": review,
        "retired_at": None,
        "created_at": timezone.now(),
    }
    instances_insert([instance_row(values, columns=TRANSLATED_INSTANCE_COLUMNS)],
                     columns=TRANSLATED_INSTANCE_COLUMNS)  # fmt: skip
    return Instance.objects.filter(source_instance=original, language=language).latest("pk")


# --- the service ---------------------------------------------------------------------------


def test_the_chain_of_an_original_instance_of_an_adapted_dataset(chain, researcher):
    instance = chain["instance"]
    answer = instance_provenance(instance_id=instance.pk)

    facts = answer["instance"]
    assert facts["id"] == instance.pk
    assert facts["dataset"]["name"] == "भारत मिनी"
    assert facts["category"] == "Caste"
    assert facts["language"] == "hi"
    assert facts["context"] == instance.context and "शर्मा" in facts["context"]
    assert facts["label"] == instance.label
    assert facts["text_hash"] == instance_text_hash(
        context=instance.context,
        question=instance.question,
        ans0=instance.ans0,
        ans1=instance.ans1,
        ans2=instance.ans2,
        label=instance.label,
    )
    assert facts["source_instance"] is None and facts["retired"] is False

    # Only the releases app's steps are registered in this branch's own test run; every one
    # applies to this instance, in chain order.
    names = [step["name"] for step in answer["steps"]]
    own = ["concepts", "template", "vocabulary", "releases"]
    assert [n for n in names if n in own] == own
    assert names == [s.name for s in provenance_steps() if s.name in names]

    concept = _step(answer, "concepts")["concepts"][0]
    assert concept["statement"] == "ब्राह्मण पढ़े-लिखे होते हैं"
    assert concept["mentions"] == {
        "counted_as": "survey",
        "survey_mentions": 5,
        "survey_affected": 2,
        "reported": 2,
    }
    assert [(e["kind"], e["status"]) for e in concept["evidence"]] == [
        ("research_article", "validated"),
        ("news_report", "pending"),
    ]
    assert concept["evidence"][0]["url"] == "https://example.org/सर्वे-2024"
    assert concept["url"] == f"/concepts/{chain['concept'].pk}/"

    template = _step(answer, "template")
    assert template["template"]["external_id"] == "जाति-1"
    assert template["version"]["number"] == 1
    assert template["version"]["status"] == "approved"
    assert template["version"]["created_by"] == person_pseudonym(
        user_id=researcher.pk, role="researcher"
    )
    adaptation = template["adaptation"]
    assert adaptation["class"] == "CT" and adaptation["class_label"] == "Culturally Transformed"
    assert adaptation["adapted_from"]["name"] == "BBQ स्रोत"
    assert [s["external_id"] for s in adaptation["sources"]] == ["SES-7"]
    assert adaptation["sources"][0]["url"] == f"/templates/{chain['source_version'].template_id}/"

    vocabulary = _step(answer, "vocabulary")
    by_name = {row["placeholder"]: row for row in vocabulary["placeholders"]}
    name1 = by_name["NAME1"]
    assert name1["value"] == "शर्मा" and name1["group"] == "ब्राह्मण"
    entry = VocabularyEntry.objects.get(vocabulary=chain["vocabulary"], value="शर्मा")
    assert name1["entry"] == {"id": entry.pk, "value": "शर्मा", "group": "ब्राह्मण", "position": 0}
    assert name1["vocabulary"]["name"] == "उपनाम"
    # The list as it stood when the version copied it: revision 1, one saved since.
    assert name1["vocabulary"]["revision"]["number"] == 1
    assert name1["vocabulary"]["revision"]["later"] == 1
    # NAME2's list was typed into the template: no vocabulary, no entry.
    assert by_name["NAME2"]["vocabulary"] is None and by_name["NAME2"]["entry"] is None

    releases = _step(answer, "releases")["releases"]
    assert [(r["id"], r["number"]) for r in releases] == [(chain["release"].pk, 1)]
    assert releases[0]["url"] == f"/releases/{chain['release'].pk}/"


def test_an_instance_in_no_release_and_without_template(db):
    """An imported published instance: no template, so concept, template and vocabulary do
    not apply; the releases step answers an empty list."""
    dataset = DatasetFactory(name="published")
    version = TemplateVersionFactory(template__dataset=dataset)
    UnknownExpression.objects.get_or_create(language="en", text="Unknown")
    dataset_instantiate(dataset=dataset)
    instance = Instance.objects.filter(dataset=dataset).first()
    Instance.objects.filter(pk=instance.pk).update(template_version=None)
    answer = instance_provenance(instance_id=instance.pk)
    names = [step["name"] for step in answer["steps"]]
    assert "concepts" not in names and "template" not in names and "vocabulary" not in names
    assert _step(answer, "releases") == {"releases": []}
    assert version.pk  # the version stays; the instance no longer names it


def test_queries_per_call_stay_few_and_indexed(chain):
    """The whole chain of the releases app's steps is a handful of queries, whatever the
    size of the dataset (bench/provenance.py times it at 1M instances)."""
    with CaptureQueriesContext(connection) as queries:
        instance_provenance(instance_id=chain["instance"].pk)
    # instance, dataset, template version (each with a small join), evidence, adaptation,
    # vocabulary entries, revisions, releases; and the annotation app's validation step, which
    # finds no judgement on this template version (translation asks nothing of an original)
    assert len(queries) <= 8 + 1, [q["sql"] for q in queries]


def test_a_retired_translation_says_what_replaced_it(chain):
    original = chain["instance"]
    first = _translate(
        original,
        language="bn",
        context="শর্মা এবং খান বাস স্টপে অপেক্ষা করছিলেন।",
        review={"status": "flagged", "revision": 1},
    )
    Instance.objects.filter(pk=first.pk).update(retired_at=timezone.now())
    second = _translate(
        original,
        language="bn",
        context="শর্মা আর খান বাস স্টপে অপেক্ষা করছিলেন।",
        review={"status": "corrected", "revision": 2, "replaces": first.pk},
    )
    old = instance_provenance(instance_id=first.pk)["instance"]
    assert old["retired"] is True and old["retired_at"]
    assert old["replaced_by"] == {
        "id": second.pk,
        "revision": 2,
        "url": f"/instances/{second.pk}/provenance/",
    }
    assert old["source_instance"]["id"] == original.pk
    new = instance_provenance(instance_id=second.pk)
    assert new["instance"]["replaces"]["id"] == first.pk
    assert new["instance"]["retired"] is False and new["instance"]["replaced_by"] is None
    # A translation is filled in its source's language: the vocabulary step looks up the
    # source's values.
    vocabulary = _step(new, "vocabulary")
    assert vocabulary["from_source_instance"] is True and vocabulary["language"] == "hi"
    name1 = next(r for r in vocabulary["placeholders"] if r["placeholder"] == "NAME1")
    assert name1["entry"]["value"] == "शर्मा"


# --- the API -------------------------------------------------------------------------------


def test_api_answers_the_service_for_any_role(chain, annotator_client):
    instance = chain["instance"]
    response = annotator_client.get(f"/api/instances/{instance.pk}/provenance/")
    assert response.status_code == 200
    body = response.json()
    assert body == json.loads(json.dumps(instance_provenance(instance_id=instance.pk)))
    assert [s["name"] for s in body["steps"]][-1] == "releases"
    assert {"name", "title", "data"} == set(body["steps"][0])


def test_api_unknown_id_is_a_clear_404(db, annotator_client):
    response = annotator_client.get("/api/instances/987654321/provenance/")
    assert response.status_code == 404
    assert response.json() == {"detail": "No instance with id 987654321."}


def test_api_and_page_refuse_without_a_role(chain, outsider_client, anonymous_client, client):
    url = f"/api/instances/{chain['instance'].pk}/provenance/"
    assert outsider_client.get(url).status_code == 403
    assert anonymous_client.get(url).status_code in (401, 403)
    assert outsider_client.post(url).status_code == 403
    page = client.get(f"/instances/{chain['instance'].pk}/provenance/")
    assert page.status_code == 302 and "/accounts/login/" in page["Location"]
    client.force_login(get_user_model().objects.get(username="otto"))
    assert client.get(f"/instances/{chain['instance'].pk}/provenance/").status_code == 403


def test_api_is_read_only(chain, researcher_client):
    url = f"/api/instances/{chain['instance'].pk}/provenance/"
    assert researcher_client.post(url, {}).status_code == 405


def test_no_username_or_email_in_the_answer(db, annotator_client, client):
    author = user_create_with_role(
        username="priya.k", role=RESEARCHER, password="x-long-password-1"
    )
    get_user_model().objects.filter(pk=author.pk).update(email="priya@example.org")
    chain = provenance_dataset_build(author=author)
    url = f"/api/instances/{chain['instance'].pk}/provenance/"
    text = annotator_client.get(url).content.decode()
    assert "priya" not in text
    assert person_pseudonym(user_id=author.pk, role="researcher") in text
    client.force_login(author)
    body = client.get(f"/instances/{chain['instance'].pk}/provenance/").content.decode()
    # The page's header names the signed-in user; the provenance itself names nobody.
    assert "priya" not in body.split("</header>", 1)[1]


def test_openapi_documents_the_endpoint(db, researcher_client):
    response = researcher_client.get("/api/schema/?format=json")
    assert response.status_code == 200
    schema = response.json() if response["Content-Type"].endswith("json") else None
    if schema is None:
        import yaml

        schema = yaml.safe_load(response.content)
    operation = schema["paths"]["/api/instances/{id}/provenance/"]["get"]
    assert "200" in operation["responses"] and "404" in operation["responses"]
    assert "InstanceProvenanceOutput" in schema["components"]["schemas"]


# --- the page ------------------------------------------------------------------------------


def test_page_shows_the_chain_with_links(chain, client, annotator):
    client.force_login(annotator)
    instance = chain["instance"]
    response = client.get(f"/instances/{instance.pk}/provenance/")
    assert response.status_code == 200
    html = response.content.decode()
    positions = [
        html.index(f'id="step-{name}"')
        for name in ("concepts", "template", "vocabulary", "releases")
    ]
    assert positions == sorted(positions)
    assert f'href="/concepts/{chain["concept"].pk}/"' in html
    assert f'href="/templates/{chain["version"].template_id}/"' in html
    assert f'href="/templates/{chain["source_version"].template_id}/"' in html
    assert f'href="/releases/{chain["release"].pk}/"' in html
    assert f'href="/vocabularies/{chain["vocabulary"].pk}/"' in html
    assert 'lang="hi"' in html and "शर्मा" in html
    assert "Culturally Transformed" in html
    assert "5 survey respondents, 2 of them affected" in html


def test_page_unknown_instance_is_404(db, client, annotator):
    client.force_login(annotator)
    assert client.get("/instances/987654321/provenance/").status_code == 404


def test_page_shows_a_step_that_does_not_apply(db, client, annotator):
    dataset = DatasetFactory(name="plain")
    TemplateVersionFactory(template__dataset=dataset)
    UnknownExpression.objects.get_or_create(language="en", text="Unknown")
    dataset_instantiate(dataset=dataset)
    instance = Instance.objects.filter(dataset=dataset).first()
    client.force_login(annotator)
    html = client.get(f"/instances/{instance.pk}/provenance/").content.decode()
    # No concept linked: shown, as not applicable; not in a release yet.
    concept = html.split('id="step-concepts"', 1)[1].split("</section>", 1)[0]
    assert 'data-applies="no"' in concept
    assert "Not applicable to this instance." in concept
    assert 'id="no-release"' in html


def test_the_instance_list_links_to_the_provenance_page(chain, client, annotator):
    client.force_login(annotator)
    html = client.get(f"/datasets/{chain['dataset'].pk}/instances/").content.decode()
    assert f'href="/instances/{chain["instance"].pk}/provenance/"' in html


# --- a step registered by another app ------------------------------------------------------


@pytest.fixture
def throwaway_step(settings, tmp_path):
    """A step as the translation or annotation app registers one: its own template."""
    directory = tmp_path / "templates"
    (directory / "throwaway").mkdir(parents=True)
    (directory / "throwaway" / "_step.html").write_text(
        '<p class="throwaway" lang="{{ instance.language }}">'
        "{{ data.word }} · {{ instance.pk }}</p>",
        encoding="utf-8",
    )
    settings.TEMPLATES = [
        {**settings.TEMPLATES[0], "DIRS": [*settings.TEMPLATES[0]["DIRS"], directory]}
    ]

    def collect(instance):
        return {"word": f"जाँचा गया {instance.language}"} if instance.language == "hi" else None

    step = ProvenanceStep(
        name="throwaway",
        title="A throwaway step",
        order=45,
        collect=collect,
        template="throwaway/_step.html",
    )
    provenance_step_register(step)
    yield step
    provenance_step_unregister("throwaway")


def test_a_registered_step_shows_in_the_api_and_on_the_page(
    chain, throwaway_step, annotator_client, client, annotator
):
    instance = chain["instance"]
    body = annotator_client.get(f"/api/instances/{instance.pk}/provenance/").json()
    names = [s["name"] for s in body["steps"]]
    assert names.index("vocabulary") < names.index("throwaway") < names.index("releases")
    step = next(s for s in body["steps"] if s["name"] == "throwaway")
    assert step == {
        "name": "throwaway",
        "title": "A throwaway step",
        "data": {"word": "जाँचा गया hi"},
    }
    client.force_login(annotator)
    html = client.get(f"/instances/{instance.pk}/provenance/").content.decode()
    assert f'<p class="throwaway" lang="hi">जाँचा गया hi · {instance.pk}</p>' in html
    assert html.index('id="step-vocabulary"') < html.index('id="step-throwaway"')
    assert html.index('id="step-throwaway"') < html.index('id="step-releases"')


def test_a_registered_step_that_does_not_apply_is_left_out_of_the_api(
    db, throwaway_step, annotator_client, client, annotator
):
    dataset = DatasetFactory(name="english")
    TemplateVersionFactory(template__dataset=dataset)
    UnknownExpression.objects.get_or_create(language="en", text="Unknown")
    dataset_instantiate(dataset=dataset)
    instance = Instance.objects.filter(dataset=dataset).first()
    body = annotator_client.get(f"/api/instances/{instance.pk}/provenance/").json()
    assert "throwaway" not in [s["name"] for s in body["steps"]]
    client.force_login(annotator)
    html = client.get(f"/instances/{instance.pk}/provenance/").content.decode()
    section = html.split('id="step-throwaway"', 1)[1].split("</section>", 1)[0]
    assert 'data-applies="no"' in section and "Not applicable to this instance." in section


def test_page_of_a_retired_translation_links_its_replacement(chain, client, annotator):
    original = chain["instance"]
    first = _translate(
        original,
        language="ta",
        context="சர்மாவும் கானும் பேருந்து நிறுத்தத்தில் காத்திருந்தனர்.",
        review={"status": "flagged", "revision": 1},
    )
    Instance.objects.filter(pk=first.pk).update(retired_at=timezone.now())
    second = _translate(
        original,
        language="ta",
        context="சர்மாவும் கானும் பேருந்து நிறுத்தத்தில் நின்றனர்.",
        review={"status": "corrected", "revision": 2, "replaces": first.pk},
    )
    client.force_login(annotator)
    html = client.get(f"/instances/{first.pk}/provenance/").content.decode()
    assert 'id="retired"' in html
    assert f'id="replaced-by" href="/instances/{second.pk}/provenance/"' in html
    assert 'lang="ta"' in html and "காத்திருந்தனர்" in html
    # Its source, in the source's language.
    assert f'href="/instances/{original.pk}/provenance/"' in html
    new = client.get(f"/instances/{second.pk}/provenance/").content.decode()
    assert 'id="retired"' not in new
    assert f'href="/instances/{first.pk}/provenance/"' in new  # the row it replaces
