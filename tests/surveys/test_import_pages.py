"""The import pages through Django's test client: researcher only, upload -> preview with the
guessed mapping -> edit -> import -> result; the file stays on the server, bound to the session
that uploaded it; a re-import says "0 new, N already present"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from apps.surveys.models import Answer

DATA = Path(__file__).parent.parent / "data" / "surveys"
GOOGLE = (DATA / "google_forms_export.csv").read_bytes()


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def upload(client, survey, data=GOOGLE, format="google-forms", name="respuestas.csv"):
    return client.post(
        reverse("surveys:import", args=[survey.slug]),
        {"format": format, "file": SimpleUploadedFile(name, data, content_type="text/csv")},
    )


def form_values(html: str) -> dict[str, str]:
    """What the browser would send back: every select's selected option, every input."""
    values: dict[str, str] = {}
    for name, body in re.findall(r'<select name="([^"]+)"[^>]*>(.*?)</select>', html, re.S):
        chosen = re.search(r'<option value="([^"]*)"[^>]*selected', body)
        values[name] = chosen.group(1) if chosen else ""
    for tag in re.findall(r"<input [^>]*>", html):
        name = re.search(r'name="([^"]+)"', tag)
        value = re.search(r'value="([^"]*)"', tag)
        if name and 'type="file"' not in tag:
            values[name.group(1)] = value.group(1) if value else ""
    import html as html_lib

    return {k: html_lib.unescape(v) for k, v in values.items()}


def test_only_researchers(survey, annotator, client):
    url = reverse("surveys:import", args=[survey.slug])
    assert client.get(url).status_code == 302  # to the sign-in page
    assert client_for(annotator).get(url).status_code == 403
    assert client_for(annotator).post(url, {}).status_code == 403


def test_upload_preview_import_result(survey, researcher):
    client = client_for(researcher)
    page = client.get(reverse("surveys:import", args=[survey.slug]))
    assert page.status_code == 200 and b"Upload and preview" in page.content
    response = upload(client, survey)
    assert response.status_code == 302
    preview_url = response["Location"]
    page = client.get(preview_url)
    html = page.content.decode()
    assert page.status_code == 200
    assert "This import would create <strong>4</strong> answers (0 already present)" in html
    assert "मुसलमान बहुत कट्टर होते हैं" in html  # a sample value
    values = form_values(html)
    assert values["text"] == "What is the stereotype? (1)"
    assert values["text.2"] == "What is the stereotype? (2)"
    assert values["demographics.age"] == "Age"
    assert values["sections"] == "2"
    # The researcher drops the experience column and imports.
    values["experience"] = ""
    response = client.post(preview_url, {**values, "action": "import"})
    assert response.status_code == 302 and response["Location"].endswith("/result/")
    assert Answer.objects.count() == 4
    assert not Answer.objects.exclude(experience="").exists()
    result = client.get(response["Location"]).content.decode()
    assert '<strong data-count="answers_created">4</strong>' in result
    assert "4</strong> new, <strong>0</strong> already present" in result
    # The stored file is gone: the preview address now says so.
    assert client.get(preview_url).status_code == 410
    # The same file again: 0 new, 4 already present.
    response = upload(client, survey)
    values = form_values(client.get(response["Location"]).content.decode())
    response = client.post(response["Location"], {**values, "action": "import"})
    result = client.get(response["Location"]).content.decode()
    assert "0</strong> new, <strong>4</strong> already present" in result
    assert Answer.objects.count() == 4


def test_check_again_and_add_a_section(survey, researcher):
    client = client_for(researcher)
    data = b"Timestamp,What is the stereotype?,Otra\n3/5/2024 16:12:33,uno,dos\n"
    url = upload(client, survey, data=data)["Location"]
    html = client.get(url).content.decode()
    # 3/5/2024 reads both ways: a problem, with where it is.
    assert "choose the date order" in html and "respuestas.csv:1" in html
    values = form_values(html)
    response = client.post(url, {**values, "action": "import"})
    assert response.status_code == 400 and Answer.objects.count() == 0
    values.update(date_order="dmy")
    html = client.post(url, {**values, "action": "add_section"}).content.decode()
    assert 'name="text.2"' in html and 'name="sections" value="2"' in html
    values = form_values(html)
    values["text.2"] = "Otra"
    html = client.post(url, {**values, "action": "check"}).content.decode()
    assert "would create <strong>2</strong> answers" in html
    response = client.post(url, {**values, "action": "import"})
    assert response.status_code == 302
    answers = dict(Answer.objects.values_list("text", "submitted_at__month"))
    assert answers == {"uno": 5, "dos": 5}


def test_the_upload_belongs_to_its_session(survey, researcher, admin_user):
    client = client_for(researcher)
    url = upload(client, survey)["Location"]
    # Another researcher (another session) with the same address: not theirs.
    other = client_for(admin_user)
    assert other.get(url).status_code == 410
    assert other.post(url, {"action": "import"}).status_code == 410
    # The same user signed in elsewhere (a new session) cannot use it either.
    assert client_for(researcher).get(url).status_code == 410
    # A made-up id.
    assert client.get(url.replace(url.rstrip("/").rsplit("/", 1)[1], "x" * 32)).status_code == 410
    assert Answer.objects.count() == 0


def test_unreadable_upload_shows_the_problem(survey, researcher):
    client = client_for(researcher)
    url = upload(client, survey, data=b"PK\x03\x04 a workbook", name="r.xlsx")["Location"]
    html = client.get(url).content.decode()
    assert "this is a workbook (xlsx), not CSV" in html and "r.xlsx" in html
    assert 'id="mapping-form"' not in html


def test_upload_form_errors(survey, researcher):
    client = client_for(researcher)
    response = client.post(reverse("surveys:import", args=[survey.slug]), {"format": "x"})
    assert response.status_code == 400
    assert b"Select a valid choice" in response.content


def test_html_in_the_file_is_escaped(survey, researcher):
    client = client_for(researcher)
    data = (
        b'Timestamp,"<script>alert(1)</script>"\n'
        b'2024-03-05 10:00:00,"<img src=x onerror=alert(2)>"\n'
    )
    html = client.get(upload(client, survey, data=data)["Location"]).content.decode()
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html
    assert "<img src=x" not in html


def test_result_of_another_session_is_not_shown(survey, researcher):
    url = reverse("surveys:import_result", args=[survey.slug, "x" * 32])
    assert client_for(researcher).get(url).status_code == 404


def test_an_upload_is_for_its_survey_only(survey, researcher, dataset):
    from apps.surveys.services.surveys import survey_create

    other = survey_create(dataset=dataset, slug="otra", languages=["es"])
    client = client_for(researcher)
    url = upload(client, survey)["Location"]
    upload_id = url.rstrip("/").rsplit("/", 1)[1]
    wrong = reverse("surveys:import_preview", args=[other.slug, upload_id])
    assert client.get(wrong).status_code == 410
    assert client.post(wrong, {"action": "import"}).status_code == 410
    assert Answer.objects.count() == 0


def test_a_file_over_the_limit_is_refused_before_it_is_stored(survey, researcher, monkeypatch):
    monkeypatch.setattr("apps.surveys.forms_import.MAX_BYTES", 100)
    response = upload(client_for(researcher), survey)
    assert response.status_code == 400
    assert "at most 100 are imported" in response.content.decode()
