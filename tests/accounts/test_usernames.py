"""New usernames follow Django's own rules (issue 18, 3.7): NFKC-normalised as Django stores
them (AbstractBaseUser.normalize_username), checked against the existing names in that form
and without case, as Django's UserCreationForm does, and made only of the characters Django's
username validator allows. A clash is a clear 409, a bad name a clear 400, never a 500."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from apps.accounts.roles import ADMIN
from apps.accounts.services import user_create_with_role

BASE = "/api/annotation"
User = get_user_model()


@pytest.fixture
def existing_admin(db):
    return user_create_with_role(username="admin", role=ADMIN, password="an-admin-password-1")


def test_full_width_name_of_an_existing_user_is_a_clear_conflict(researcher_client, existing_admin):
    before = User.objects.count()
    response = researcher_client.post(
        f"{BASE}/annotators/", {"username": "ａｄｍｉｎ", "languages": ["hi"]}, format="json"
    )
    assert response.status_code == 409, response.content
    detail = response.json()["detail"]
    assert "ａｄｍｉｎ" in detail and "'admin'" in detail and "NFKC" in detail
    assert User.objects.count() == before


def test_a_name_differing_only_in_case_is_taken(researcher_client, existing_admin):
    response = researcher_client.post(
        f"{BASE}/annotators/", {"username": "ADMIN", "languages": []}, format="json"
    )
    assert response.status_code == 409, response.content
    assert "'admin'" in response.json()["detail"]


def test_a_new_full_width_name_is_stored_in_its_nfkc_form(researcher_client):
    response = researcher_client.post(
        f"{BASE}/annotators/", {"username": "ｃｈｉｔｒａ", "languages": []}, format="json"
    )
    assert response.status_code == 201, response.content
    assert response.json()["username"] == "chitra"
    assert User.objects.filter(username="chitra").exists()


@pytest.mark.parametrize("name", ["anu bala", "anu/bala", "anu\u200bbala", "a" * 151])
def test_characters_django_refuses_are_a_400_naming_the_field(researcher_client, name):
    response = researcher_client.post(
        f"{BASE}/annotators/", {"username": name, "languages": []}, format="json"
    )
    assert response.status_code == 400, response.content
    assert "username" in str(response.json())
    assert not User.objects.filter(username=name).exists()


def test_indic_letters_are_a_valid_username(researcher_client):
    response = researcher_client.post(
        f"{BASE}/annotators/", {"username": "अनु", "languages": ["hi"]}, format="json"
    )
    assert response.status_code == 201, response.content
    assert response.json()["username"] == "अनु"


def test_people_page_shows_the_clash(client, researcher, existing_admin):
    client.force_login(researcher)
    response = client.post(
        "/annotate/manage/people/",
        {"action": "create", "username": "ａｄｍｉｎ", "languages": "hi"},
    )
    assert response.status_code == 409  # the page answers with the service's status, as the API
    assert "is taken" in response.content.decode()
    assert not User.objects.filter(username="ａｄｍｉｎ").exists()
