"""The dataset card's form (/datasets/<id>/card/), its service, and the card on the release
page (issue 22): researchers only, NFC at the boundary, refusals beside their field, raw HTML
in a researcher's text escaped on the page."""

from __future__ import annotations

import unicodedata

import pytest
from django.test import Client
from django.urls import reverse

from apps.catalog.models import Dataset, TemplateVersion
from apps.catalog.services import dataset_card_update, dataset_instantiate
from apps.catalog.services.dataset_card import CARD_FIELDS, HUB_LICENSES
from apps.core.errors import KasautiError
from apps.releases.services import release_create
from tests.factories import CategoryFactory, DatasetFactory, TemplateVersionFactory

pytestmark = pytest.mark.django_db

# Bengali and Tamil two-part vowel signs typed as their parts (NFD): NFC composes them.
BENGALI_NFD = "কে\u09c7\u09be লকাতা"  # "কো" written as ে + া
TAMIL_NFD = "த\u0bc6\u0bbeழில்"  # "தொ" written as ெ + ா


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def dataset(db) -> Dataset:
    dataset = DatasetFactory(name="card-views")
    TemplateVersionFactory(
        template__dataset=dataset, template__category=CategoryFactory(name="Age")
    )
    dataset_instantiate(dataset=dataset)
    TemplateVersion.objects.filter(template__dataset=dataset).update(status="approved")
    return dataset


def _post(client, dataset, **fields):
    data = {"license": "unknown", **fields}
    return client.post(reverse("releases:card-edit", args=[dataset.pk]), data)


def test_researcher_sees_the_form_with_the_current_values(dataset, researcher):
    dataset_card_update(dataset=dataset, license="mit", card_ethics="नैतिकता")
    response = _client(researcher).get(reverse("releases:card-edit", args=[dataset.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="card-frozen-note"' in html and "The next release carries these changes" in html
    assert '<option value="mit" selected>' in html
    assert "नैतिकता" in html
    for license_id in ("apache-2.0", "cc-by-4.0", "cc0-1.0", "odc-by", "other", "unknown"):
        assert f'value="{license_id}"' in html
    assert "no release yet" in html
    release_create(dataset=dataset)
    html = _client(researcher).get(reverse("releases:card-edit", args=[dataset.pk])).content
    assert "release 1</a> and the releases before it keep the card" in html.decode()


def test_only_researchers_edit_the_card(dataset, annotator, outsider, admin_user):
    url = reverse("releases:card-edit", args=[dataset.pk])
    assert _client(annotator).get(url).status_code == 403
    assert _post(_client(annotator), dataset, card_uses="x").status_code == 403
    assert _client(outsider).get(url).status_code == 403
    anonymous = Client().get(url)
    assert anonymous.status_code == 302 and "login" in anonymous["Location"]
    assert _client(admin_user).get(url).status_code == 200
    dataset.refresh_from_db()
    assert dataset.card_uses == ""
    assert Client().put(url).status_code in (302, 405)


def test_saving_normalises_to_nfc_and_reaches_the_next_release_only(dataset, researcher):
    client = _client(researcher)
    first = release_create(dataset=dataset)
    response = _post(
        client,
        dataset,
        license="cc-by-sa-4.0",
        pretty_name=f"  Bharat   {TAMIL_NFD}\n",
        card_authors=f"দাস, {BENGALI_NFD}\nKasauti Team",
        card_uses=f"Uses in {BENGALI_NFD}.",
        card_limitations="",
        card_ethics="",
        card_citation="@misc{x}",
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("releases:card-edit", args=[dataset.pk])
    dataset.refresh_from_db()
    assert dataset.license == "cc-by-sa-4.0"
    assert dataset.pretty_name == "Bharat " + unicodedata.normalize("NFC", TAMIL_NFD)
    assert dataset.card_uses == unicodedata.normalize("NFC", f"Uses in {BENGALI_NFD}.")
    assert "\u09cb" in dataset.card_uses and "\u09c7\u09be" not in dataset.card_uses
    assert unicodedata.is_normalized("NFC", dataset.card_authors)
    page = client.get(response["Location"]).content.decode()
    assert "Saved (" in page and "The next release" in page
    # Release 1 keeps its card; the next release carries the change.
    assert "Uses in" not in _release_page(client, first)
    TemplateVersionFactory(
        template__dataset=dataset, template__category=CategoryFactory(name="Age")
    )
    dataset_instantiate(dataset=dataset)
    TemplateVersion.objects.filter(template__dataset=dataset).update(status="approved")
    second = release_create(dataset=dataset)
    assert unicodedata.normalize("NFC", f"Uses in {BENGALI_NFD}.") in _release_page(client, second)
    # Saving the same values again changes nothing.
    again = _post(
        client,
        dataset,
        **{name: getattr(dataset, name) for name in CARD_FIELDS},
    )
    assert "Nothing changed." in client.get(again["Location"]).content.decode()


def test_refusals_are_shown_beside_their_field(dataset, researcher):
    client = _client(researcher)
    response = _post(client, dataset, license="gpl-9.0")
    assert response.status_code == 400
    assert 'id="error-license"' in response.content.decode()
    response = _post(client, dataset, pretty_name="न" * 201)
    assert response.status_code == 400
    assert 'id="error-pretty_name"' in response.content.decode()
    response = _post(client, dataset, card_uses="x" * 20_001)
    assert response.status_code == 400
    assert 'id="error-card_uses"' in response.content.decode()
    dataset.refresh_from_db()
    assert (dataset.license, dataset.pretty_name, dataset.card_uses) == ("unknown", "", "")


def test_service_rules(dataset):
    with pytest.raises(KasautiError, match="unknown card field"):
        dataset_card_update(dataset=dataset, name="renamed")
    with pytest.raises(KasautiError, match="^license: "):
        dataset_card_update(dataset=dataset, license="proprietary")
    with pytest.raises(KasautiError, match="^card_ethics: contains a NUL"):
        dataset_card_update(dataset=dataset, card_ethics="a\x00b")
    assert dataset_card_update(dataset=dataset, license="  CC-BY-4.0 ") == ["license"]
    assert dataset.license == "cc-by-4.0"  # the caller's object shows what is stored
    assert dataset_card_update(dataset=dataset, license="cc-by-4.0") == []
    assert dataset_card_update(dataset=dataset, license="") == ["license"]
    assert Dataset.objects.get(pk=dataset.pk).license == "unknown"
    # Multi-line texts keep their lines (Markdown, BibTeX), trimmed at both ends only.
    dataset_card_update(dataset=dataset, card_citation="\n@misc{k,\n  title={x}\n}\n\n")
    assert Dataset.objects.get(pk=dataset.pk).card_citation == "@misc{k,\n  title={x}\n}"
    assert set(HUB_LICENSES) >= {"apache-2.0", "mit", "cc-by-4.0", "cc0-1.0", "other", "unknown"}


def _release_page(client, release) -> str:
    response = client.get(reverse("releases:detail", args=[release.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_raw_html_in_a_researchers_text_is_escaped_on_the_release_page(dataset, annotator):
    dataset_card_update(
        dataset=dataset,
        card_uses='Fine. <script>alert("x")</script> <img src=x onerror=alert(1)> **bold**',
        card_limitations="[click](javascript:alert(1)) सीमाएँ",
        pretty_name="<b>Bold</b> name",
    )
    release = release_create(dataset=dataset)
    html = _release_page(_client(annotator), release)
    card = html[html.index('id="dataset-card"') :]
    assert "<script>alert" not in card and "<img src=x" not in card
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in card
    assert "&lt;img src=x onerror=alert(1)&gt;" in card
    assert "<strong>bold</strong>" in card  # Markdown is still Markdown
    assert 'href="javascript:' not in card
    assert "<b>Bold</b>" not in card and "&lt;b&gt;Bold&lt;/b&gt; name" in card
    assert "सीमाएँ" in card
    # Annotators see the card, not the link to edit it.
    assert 'id="card-edit-link"' not in html


def test_release_page_shows_the_card_and_the_unknown_licence(dataset, researcher):
    release = release_create(dataset=dataset)
    html = _release_page(_client(researcher), release)
    assert 'id="license-unknown"' in html
    assert 'id="dataset-card"' in html and "<h2>Composition</h2>" in html
    assert "<table>" in html and 'id="card-edit-link"' in html
    assert "no licence has been chosen for this dataset yet" in html


def test_the_dataset_page_links_to_the_card_form(dataset, researcher, annotator):
    url = reverse("web:dataset", args=[dataset.pk])
    link = f'id="card-edit-link" href="{reverse("releases:card-edit", args=[dataset.pk])}"'
    assert link in _client(researcher).get(url).content.decode()
    assert 'id="card-edit-link"' not in _client(annotator).get(url).content.decode()


def test_the_card_api(dataset, researcher_client, annotator_client, anonymous_client):
    url = f"/api/datasets/{dataset.pk}/card/"
    got = annotator_client.get(url)
    assert got.status_code == 200
    assert got.json() == {
        "dataset": dataset.pk, "license": "unknown", "pretty_name": "", "card_authors": "",
        "card_uses": "", "card_limitations": "", "card_ethics": "", "card_citation": "",
    }  # fmt: skip
    assert anonymous_client.get(url).status_code in (401, 403)
    assert annotator_client.patch(url, {"card_uses": "x"}, format="json").status_code == 403
    response = researcher_client.patch(
        url, {"license": "odc-by", "card_uses": f" {BENGALI_NFD} "}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert response.json()["changed"] == ["license", "card_uses"]
    assert response.json()["card_uses"] == unicodedata.normalize("NFC", BENGALI_NFD)
    refused = researcher_client.patch(url, {"license": "wtfpl-9"}, format="json")
    assert refused.status_code == 400 and "license" in refused.json()
    dataset.refresh_from_db()
    assert dataset.license == "odc-by"
