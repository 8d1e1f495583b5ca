"""Template authoring (docs/studio/authoring.md): the preview (exact counts without
enumerating, the first instances, findings by field), the pages that create and edit templates
through the services, concurrent edits refused with nothing written, drafts with errors, HTML
escaped, permissions; and the API's base_version and preview endpoint."""

from __future__ import annotations

import time
from itertools import islice

import pytest
from django.urls import reverse

from apps.catalog import authoring, instantiation, selectors
from apps.catalog.forms_authoring import TemplateAuthoringForm
from apps.catalog.models import (
    Category,
    Dataset,
    Template,
    TemplateVersion,
    UnknownExpression,
    Vocabulary,
    VocabularyEntry,
)
from apps.catalog.services import template_create
from apps.catalog.versions import template_version_approve
from apps.core.errors import KasautiError
from tests.factories import TemplateVersionFactory

pytestmark = pytest.mark.django_db

HINDI = {
    "language": "hi",
    "ambiguous_context": "{{NAME1}} और {{NAME2}} बस स्टॉप पर {{WORD1}} इंतज़ार कर रहे थे।",
    "disambiguating_context": "{{NAME1}} टिकट भूल गया था; {{NAME2}} के पास दो टिकट थे।",
    "question_negative": "टिकट कौन भूल गया?",
    "question_non_negative": "कौन तैयार था?",
    "answer_negative": "{{NAME1}}",
    "answer_non_negative": "{{NAME2}}",
    "placeholders": {
        "NAME1": ["दादा", "दादी"],
        "NAME2": ["पोता", "पोती", "नाती"],
        "WORD1": ["सुबह", "शाम"],
    },
    "placeholder_groups": {"NAME1": ["old", "old"], "NAME2": ["young", "young", "young"]},
    "target_placeholder": "NAME1",
    "pairing": "stereotypical",
    "stereotyped_groups": ["old"],
    "non_stereotyped_groups": ["young"],
}


@pytest.fixture
def unknowns(db):
    UnknownExpression.objects.filter(language="hi").delete()
    for i, text in enumerate(["पता नहीं", "कहा नहीं जा सकता"]):
        UnknownExpression.objects.create(language="hi", text=text, position=i)
    return UnknownExpression.objects.all()


def _enumerated(content, *, permutations=False):
    spec = authoring._spec(dict(content), "preview")
    texts = list(
        UnknownExpression.objects.filter(language=spec.language).values_list("text", flat=True)
    )
    return list(instantiation.generate(spec, texts, permutations=permutations))


# --- the preview as a function ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("placeholders", "permutations"),
    [
        (
            {"NAME1": ["दादा", "दादी"], "NAME2": ["पोता", "पोती", "नाती"], "WORD1": ["सुबह", "शाम"]},
            False,
        ),
        ({"NAME1": ["दादा"], "NAME2": ["पोता"], "WORD1": ["सुबह"]}, False),
        (
            {"NAME1": ["दादा", "दादी"], "NAME2": ["पोता", "पोती"], "WORD1": ["सुबह", "शाम", "रात"]},
            True,
        ),
    ],
)
def test_preview_count_and_first_instances_match_the_full_enumeration(
    unknowns, placeholders, permutations
):
    content = {**HINDI, "placeholders": placeholders, "placeholder_groups": {}}
    preview = authoring.template_preview(content=content, permutations=permutations)
    every = _enumerated(content, permutations=permutations)
    assert preview.count == len(every)
    assert len(preview.instances) == min(12, len(every))
    for shown, generated in zip(preview.instances, every, strict=False):
        assert shown["context"] == generated.context
        assert shown["question"] == generated.question
        assert shown["answers"] == list(generated.answers)
        assert shown["label"] == generated.label
        assert shown["context_condition"] == generated.context_condition
    assert preview.axes == [
        {"name": axis, "size": len(placeholders[axis])} for axis in ("NAME1", "NAME2", "WORD1")
    ]


def test_preview_counts_without_enumerating(unknowns):
    """Three million values a list: the count is exact and the preview still takes no time,
    since only the first instances are drawn (enumerating 9e12 combinations never ends)."""
    big = [f"v{i}" for i in range(3_000_000)]
    content = {**HINDI, "placeholders": {"NAME1": big, "NAME2": big[::-1], "WORD1": ["a"]}}
    content["placeholder_groups"] = {}
    content["stereotyped_groups"] = []
    started = time.perf_counter()
    preview = authoring.template_preview(content=content)
    elapsed = time.perf_counter() - started
    assert preview.count == 3_000_000 * 3_000_000 * 4
    assert len(preview.instances) == 12
    assert elapsed < 10, elapsed


def test_preview_writes_nothing(unknowns):
    before = (Template.objects.count(), TemplateVersion.objects.count())
    authoring.template_preview(content=HINDI)
    assert (Template.objects.count(), TemplateVersion.objects.count()) == before


def _by_field(preview):
    out: dict[str, list[tuple[str, str]]] = {}
    for finding in preview.findings:
        out.setdefault(finding["field"], []).append((finding["level"], finding["message"]))
    return out


def test_a_clean_template_has_no_findings(unknowns):
    assert authoring.template_preview(content=HINDI).findings == []


def test_findings_are_given_by_field(unknowns):
    content = {
        **HINDI,
        "ambiguous_context": "{{NAME1}} और {{NAME2}} {{WORD3}} {{GEN1}}",
        "disambiguating_context": "कोई टिकट भूल गया था।",
        "answer_non_negative": "कोई नहीं",
        "stereotyped_groups": [],
    }
    found = _by_field(authoring.template_preview(content=content))
    assert ("error", "placeholder {{WORD3}} is used but not defined") in found["WORD3"]
    assert ("error", "placeholder WORD1 is defined but never used") in found["WORD1"]
    assert found["disambiguating_context"][0][0] == "error"
    assert "cannot disambiguate" in found["disambiguating_context"][0][1]
    assert ("error", "must refer to exactly one of NAME1 / NAME2") in found["answer_non_negative"]
    # A braced token that is no placeholder: a warning, as the importers report it.
    assert ("warning", "unknown placeholder {{GEN1}}: use NAMEn or WORDn") in found[
        "ambiguous_context"
    ]


def test_roles_unclear_without_stereotyped_groups(unknowns):
    found = _by_field(authoring.template_preview(content={**HINDI, "stereotyped_groups": []}))
    level, message = found["stereotyped_groups"][0]
    assert level == "warning" and "cannot tell which option is the stereotyped group" in message
    # Naming the other NAME's group: the roles a reader would take are swapped.
    found = _by_field(
        authoring.template_preview(content={**HINDI, "stereotyped_groups": ["young"]})
    )
    assert "swap the roles" in found["stereotyped_groups"][0][1]


def test_missing_unknown_answer_is_an_error_on_the_language(db):
    UnknownExpression.objects.filter(language="hi").delete()
    preview = authoring.template_preview(content=HINDI)
    assert [f["level"] for f in preview.findings if f["field"] == "language"] == ["error"]
    # The instances are still shown, with a marker instead of the unknown answer.
    assert preview.count == 2 * 3 * 2 * 4
    assert authoring.NO_UNKNOWN in preview.instances[0]["answers"]


def test_a_benchmark_generator_tolerates_what_kasauti_refuses_as_warnings(unknowns):
    """BharatBBQ's generator keeps an unused list as an axis: the reader's finding, a warning."""
    content = {
        **HINDI,
        "ambiguous_context": "{{NAME1}} और {{NAME2}} बस स्टॉप पर थे।",
        "generator": "bharatbbq",
    }
    preview = authoring.template_preview(content=content)
    found = _by_field(preview)
    assert found["WORD1"] == [("warning", "placeholder WORD1 is defined but never used")]
    assert preview.count == 2 * 3 * 2 * 4  # the unused list still multiplies, as published
    assert not preview.errors


def test_vocabulary_references_resolve_or_are_findings_on_their_list(unknowns):
    vocabulary = Vocabulary.objects.create(name="hi-elders", language="hi")
    for i, (value, group) in enumerate([("दादा", "old M"), ("दादी", "old F"), ("नाना", "old M")]):
        VocabularyEntry.objects.create(vocabulary=vocabulary, value=value, group=group, position=i)
    content = {
        **HINDI,
        "placeholders": {
            **HINDI["placeholders"],
            "NAME1": {"vocabulary": "hi-elders", "groups": ["old M"]},
        },
        "stereotyped_groups": ["old M"],
    }
    preview = authoring.template_preview(content=content)
    assert preview.count == 2 * 3 * 2 * 4
    assert not preview.findings
    content["placeholders"]["NAME1"] = {"vocabulary": "no-such"}
    found = _by_field(authoring.template_preview(content=content))
    assert "no vocabulary 'no-such'" in found["NAME1"][0][1]


# --- pages ---------------------------------------------------------------------------------------


@pytest.fixture
def dataset(db):
    return Dataset.objects.create(name="BharatBBQ-hi")


@pytest.fixture
def category(db):
    return Category.objects.get_or_create(name="Age")[0]


def _post_data(content, **extra):
    """The authoring form's fields for a content, as the page posts them."""
    version = TemplateVersion(**{k: v for k, v in content.items() if k != "problems"})
    return {**TemplateAuthoringForm.data_from(version), **extra}


def test_a_researcher_writes_a_template_in_the_browser(
    client, researcher, dataset, category, unknowns
):
    client.force_login(researcher)
    page = client.get(reverse("web:dataset-template-new", args=[dataset.pk]))
    assert page.status_code == 200
    assert b'id="template-form"' in page.content
    data = _post_data(HINDI, external_id="Age-01", category=str(category.pk))
    response = client.post(reverse("web:dataset-template-new", args=[dataset.pk]), data)
    template = Template.objects.get(dataset=dataset, external_id="Age-01")
    assert response.status_code == 302
    assert response["Location"] == reverse("web:template", args=[template.pk]) + "?saved=1"
    version = template.versions.get()
    assert version.number == 1 and version.status == "draft" and version.problems == []
    assert version.placeholders == HINDI["placeholders"]
    assert version.placeholder_groups == HINDI["placeholder_groups"]
    assert version.created_by == researcher
    shown = client.get(response["Location"])
    assert "Saved v1" in shown.content.decode()
    assert reverse("web:template-edit", args=[template.pk]) in shown.content.decode()


def test_new_template_page_preselects_the_dataset(client, researcher, dataset):
    client.force_login(researcher)
    page = client.get(reverse("web:template-new") + f"?dataset={dataset.pk}")
    assert f'<option value="{dataset.pk}" selected>' in page.content.decode()


def test_the_page_preview_endpoint_answers_with_count_instances_and_findings(
    client, researcher, dataset, unknowns
):
    client.force_login(researcher)
    url = reverse("web:template-preview")
    answer = client.post(url, _post_data(HINDI, dataset=str(dataset.pk))).json()
    assert answer["count"] == 2 * 3 * 2 * 4
    assert len(answer["instances"]) == 12 and answer["language"] == "hi"
    # The form's own errors (no template id yet, no category) are not the template's: only
    # content fields are findings; identity fields wait for the save.
    assert answer["findings"] == []
    data = _post_data(HINDI, dataset=str(dataset.pk))
    data["ph-WORD1-values"] = ""
    answer = client.post(url, data).json()
    assert answer["count"] == 2 * 3 * 4
    assert any(f["field"] == "WORD1" and f["level"] == "error" for f in answer["findings"])


def _edit(client, template, content, base, **extra):
    return client.post(
        reverse("web:template-edit", args=[template.pk]),
        _post_data(content, base_version=str(base), **extra),
    )


def _saved_template(dataset, category, user):
    return template_create(
        dataset=dataset, external_id="Age-01", category=category, content=dict(HINDI),
        created_by=user,
    ).template  # fmt: skip


def test_an_edit_records_a_new_version_and_shows_its_diff(
    client, researcher, dataset, category, unknowns
):
    template = _saved_template(dataset, category, researcher)
    client.force_login(researcher)
    form = client.get(reverse("web:template-edit", args=[template.pk])).content.decode()
    assert 'name="base_version" value="1"' in form and "दादा | old" in form
    changed = {**HINDI, "question_negative": "टिकट किसने खोया?"}
    response = _edit(client, template, changed, 1)
    assert response.status_code == 302 and response["Location"].endswith("?saved=2")
    assert template.versions.count() == 2
    page = client.get(response["Location"]).content.decode()
    assert '<section class="card saved-diff"' in page
    assert "<del>कौन भूल गया?</del>" in page or "<del>" in page
    assert "<ins>" in page and "किसने खोया?" in page


def test_a_concurrent_edit_is_refused_with_nothing_written(
    client, researcher, admin_user, dataset, category, unknowns
):
    template = _saved_template(dataset, category, researcher)
    # Someone else saves v2 first.
    client.force_login(admin_user)
    assert (
        _edit(client, template, {**HINDI, "question_negative": "टिकट किसने खोया?"}, 1).status_code
        == 302
    )
    client.force_login(researcher)
    mine = {**HINDI, "question_non_negative": "कौन समय पर था?"}
    response = _edit(client, template, mine, 1)
    assert response.status_code == 409
    assert template.versions.count() == 2  # nothing written
    page = response.content.decode()
    assert 'id="conflict"' in page
    assert "you started from version 1" in page and "ada" in page
    theirs = page[page.index('id="conflict-theirs"') : page.index('id="conflict-yours"')]
    assert "किसने खोया?" in theirs  # what they saved
    yours = page[page.index('id="conflict-yours"') :]
    assert "<ins>समय पर </ins>था?" in yours.split("</section>")[0]
    assert "कौन समय पर था?" in page.split('id="template-form"')[1]  # the researcher's text kept
    assert "<ins>समय पर </ins>था?" in page[page.index('id="conflict-mine"') :]
    assert 'id="conflict-both"' not in page  # they changed different fields
    # Saving on top of the newer version, on purpose: v3 has both changes.
    response = _edit(client, template, mine, 1, rebase="2")
    assert response.status_code == 302
    latest = selectors.template_current_versions(templates=[template]).get()
    assert latest.number == 3 and latest.question_non_negative == "कौन समय पर था?"
    assert latest.question_negative == "टिकट किसने खोया?"  # their change is kept too


def test_a_draft_with_errors_is_saved_but_cannot_be_approved(
    client, researcher, dataset, category, unknowns
):
    client.force_login(researcher)
    broken = {**HINDI, "disambiguating_context": "किसी के पास टिकट नहीं था।"}
    data = _post_data(broken, external_id="Age-02", category=str(category.pk))
    response = client.post(reverse("web:dataset-template-new", args=[dataset.pk]), data)
    assert response.status_code == 302
    version = TemplateVersion.objects.get(template__external_id="Age-02")
    assert version.status == "draft"
    assert [p["field"] for p in version.problems] == ["disambiguating_context"]
    with pytest.raises(KasautiError, match="cannot be approved"):
        template_version_approve(version_id=version.pk)
    page = client.get(response["Location"]).content.decode()
    assert 'id="template-problems"' in page and 'id="send-to-validation"' not in page


SCRIPT = "<script>alert('x')</script>"


def test_html_in_any_field_is_escaped_on_every_page(
    client, researcher, dataset, category, unknowns
):
    client.force_login(researcher)
    content = {
        **HINDI,
        "ambiguous_context": "{{NAME1}} और {{NAME2}} " + SCRIPT + " {{WORD1}}",
        "placeholders": {**HINDI["placeholders"], "WORD1": [SCRIPT, "शाम"]},
        "placeholder_groups": {},
        "stereotyped_groups": [SCRIPT],
    }
    data = _post_data(
        content, external_id="Age-03", category=str(category.pk), notes=SCRIPT,
        relevant_social_values=SCRIPT, source=SCRIPT, subcategory="<b>x</b>",
    )  # fmt: skip
    response = client.post(reverse("web:dataset-template-new", args=[dataset.pk]), data)
    assert response.status_code == 302
    template = Template.objects.get(external_id="Age-03")
    saved = _edit(client, template, {**content, "question_negative": SCRIPT}, 1)
    assert saved.status_code == 302
    pages = [
        client.get(response["Location"]),
        client.get(reverse("web:template-edit", args=[template.pk])),
        client.get(saved["Location"]),  # the saved version's diff
        _edit(client, template, {**content, "question_non_negative": SCRIPT}, 1),  # conflict
    ]
    assert pages[3].status_code == 409
    data.pop("external_id")
    pages.append(client.post(reverse("web:dataset-template-new", args=[dataset.pk]), data))
    assert pages[4].status_code == 400
    for page in pages:
        html = page.content.decode()
        assert "<script>alert" not in html, page.request["PATH_INFO"]
        assert "&lt;script&gt;alert(" in html, page.request["PATH_INFO"]
    preview = client.post(reverse("web:template-preview"), data)
    assert SCRIPT in preview.json()["instances"][0]["context"]


@pytest.mark.parametrize(
    "url",
    ["web:template-new", "web:template-preview", "web:dataset-template-new", "web:template-edit",
     "web:template-edit-preview"],
)  # fmt: skip
def test_annotators_are_refused(client, annotator, dataset, category, url):
    template = TemplateVersionFactory(template__dataset=dataset).template
    args = {"web:dataset-template-new": [dataset.pk], "web:template-edit": [template.pk],
            "web:template-edit-preview": [template.pk]}.get(url, [])  # fmt: skip
    client.force_login(annotator)
    assert client.post(reverse(url, args=args), _post_data(HINDI)).status_code == 403
    if "preview" not in url:
        assert client.get(reverse(url, args=args)).status_code == 403
    assert template.versions.count() == 1 and Template.objects.count() == 1


def test_signed_out_visitors_are_sent_to_sign_in(client):
    response = client.get(reverse("web:template-new"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_template_page_links_edit_and_validation_for_researchers_only(
    client, researcher, annotator, dataset
):
    version = TemplateVersionFactory(template__dataset=dataset)
    template = version.template
    client.force_login(researcher)
    page = client.get(reverse("web:template", args=[template.pk])).content.decode()
    assert reverse("web:template-edit", args=[template.pk]) in page
    # "Send to validation" sends this version only.
    assert (
        reverse("annotation:campaign-new")
        + f"?dataset={dataset.pk}&amp;kind=template_validation&amp;only={version.pk}"
        in page
    )
    client.force_login(annotator)
    page = client.get(reverse("web:template", args=[template.pk])).content.decode()
    assert 'id="edit-template"' not in page


# --- API -----------------------------------------------------------------------------------------


def test_api_patch_with_a_stale_base_version_is_refused_with_the_diff(
    researcher_client, dataset, category, researcher, unknowns
):
    template = _saved_template(dataset, category, researcher)
    url = f"/api/templates/{template.pk}/"
    first = researcher_client.patch(
        url, {"question_negative": "टिकट किसने खोया?", "base_version": 1}, format="json"
    )
    assert first.status_code == 200 and first.json()["current_version"]["number"] == 2
    stale = researcher_client.patch(
        url, {"question_non_negative": "कौन समय पर था?", "base_version": 1}, format="json"
    )
    assert stale.status_code == 409
    body = stale.json()
    assert (body["base_version"], body["current_version"], body["current_by"]) == (1, 2, "rekha")
    assert body["changes"][0]["field"] == "Negative question"
    assert ["ins", "किसने खोया?"] in body["changes"][0]["parts"]
    assert template.versions.count() == 2


def test_api_put_replaces_the_content(researcher_client, dataset, category, researcher, unknowns):
    template = _saved_template(dataset, category, researcher)
    body = {**HINDI, "question_negative": "टिकट किसने खोया?", "base_version": 1}
    response = researcher_client.put(f"/api/templates/{template.pk}/", body, format="json")
    assert response.status_code == 200, response.json()
    incomplete = {"question_negative": "x", "base_version": 2}
    response = researcher_client.put(f"/api/templates/{template.pk}/", incomplete, format="json")
    assert response.status_code == 400 and "ambiguous_context" in response.json()


def test_api_preview(researcher_client, annotator_client, dataset, category, researcher, unknowns):
    response = researcher_client.post("/api/templates/preview/", HINDI, format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 48 and len(body["instances"]) == 12 and body["findings"] == []
    # An edit of a saved template: the fields not given keep their current values.
    template = _saved_template(dataset, category, researcher)
    body = researcher_client.post(
        "/api/templates/preview/",
        {"template": template.pk, "placeholders": {**HINDI["placeholders"], "WORD1": ["रात"]}},
        format="json",
    ).json()
    assert body["count"] == 2 * 3 * 1 * 4
    assert annotator_client.post("/api/templates/preview/", HINDI, format="json").status_code == 403


def test_the_schema_documents_the_preview_and_base_version(researcher_client):
    schema = researcher_client.get("/api/schema/?format=json").json()
    assert "/api/templates/preview/" in schema["paths"]
    patch = schema["paths"]["/api/templates/{id}/"]["patch"]
    assert "409" in patch["responses"]
    assert "put" in schema["paths"]["/api/templates/{id}/"]
    components = schema["components"]["schemas"]
    assert "base_version" in components["PatchedTemplateEditInputRequest"]["properties"]


def test_first_instances_are_drawn_lazily(unknowns):
    """The preview's first instances are the generator's first, in order (islice)."""
    spec = authoring._spec(dict(HINDI), "preview")
    first = list(islice(instantiation.generate(spec, ["पता नहीं", "कहा नहीं जा सकता"]), 12))
    shown = authoring.template_preview(content=HINDI).instances
    assert [s["context"] for s in shown] == [g.context for g in first]


def test_text_is_saved_in_nfc(client, researcher, dataset, category, unknowns):
    """A decomposed Tamil vowel sign (ெ + ா) typed in the browser is stored composed (ொ)."""
    client.force_login(researcher)
    decomposed = "{{NAME1}} और {{NAME2}} இ\u0bb0\u0bc6\u0bbeம்ப நேரம் இருந்தனர்."
    data = _post_data(
        {**HINDI, "ambiguous_context": decomposed, "placeholders": {
            "NAME1": ["दादा", "दादी"], "NAME2": ["पोता", "पोती", "नाती"]}},
        external_id="Age-nfc", category=str(category.pk),
    )  # fmt: skip
    assert (
        client.post(reverse("web:dataset-template-new", args=[dataset.pk]), data).status_code == 302
    )
    saved = TemplateVersion.objects.get(template__external_id="Age-nfc").ambiguous_context
    assert "\u0bca" in saved and "\u0bc6\u0bbe" not in saved


def test_an_unknown_base_version_is_refused_cleanly(
    client, researcher, dataset, category, unknowns
):
    template = _saved_template(dataset, category, researcher)
    client.force_login(researcher)
    response = _edit(client, template, HINDI, 7, rebase="1")
    assert response.status_code == 400 and "has no version 7" in response.content.decode()
    assert template.versions.count() == 1


def test_api_keeps_a_draft_with_problems_when_asked(
    researcher_client, dataset, category, researcher, unknowns
):
    template = _saved_template(dataset, category, researcher)
    url = f"/api/templates/{template.pk}/"
    broken = {"disambiguating_context": "किसी के पास टिकट नहीं था।", "status": "draft"}
    assert researcher_client.patch(url, broken, format="json").status_code == 400
    response = researcher_client.patch(url, {**broken, "allow_problems": True}, format="json")
    assert response.status_code == 200
    problems = response.json()["current_version"]["problems"]
    assert [p["field"] for p in problems] == ["disambiguating_context"]


def test_the_dataset_page_writes_into_its_own_dataset(
    client, researcher, dataset, category, unknowns
):
    other = Dataset.objects.create(name="other")
    client.force_login(researcher)
    page = client.get(reverse("web:dataset-template-new", args=[dataset.pk])).content.decode()
    assert f'name="dataset" value="{dataset.pk}"' in page  # posted with the preview
    data = _post_data(HINDI, external_id="Age-04", category=str(category.pk), dataset=str(other.pk))
    client.post(reverse("web:dataset-template-new", args=[dataset.pk]), data)
    assert Template.objects.get(external_id="Age-04").dataset == dataset
