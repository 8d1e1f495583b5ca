"""API tokens: the token, its user and the user's roles read in one query, with DRF's checks."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from apps.accounts.roles import ADMIN, ANNOTATOR, RESEARCHER

pytestmark = pytest.mark.django_db


def _client(user) -> APIClient:
    token, _ = Token.objects.get_or_create(user=user)
    return APIClient(HTTP_AUTHORIZATION=f"Token {token.key}")


def test_roles_come_with_the_token(researcher, annotator):
    client = _client(researcher)
    with CaptureQueriesContext(connection) as captured:
        response = client.get("/api/categories/")
    assert response.status_code == 200
    # One query reads the token, its user and the role groups; none asks for roles again.
    auth = [q["sql"] for q in captured.captured_queries if '"auth_' in q["sql"]]
    assert len(auth) == 1 and "authtoken_token" in auth[0] and "auth_group" in auth[0]
    assert _client(researcher).post("/api/categories/", {"name": "token-test-1"}).status_code == 201
    assert _client(annotator).post("/api/categories/", {"name": "token-test-2"}).status_code == 403
    assert _client(annotator).get("/api/categories/").status_code == 200


def test_other_groups_do_not_count_and_several_roles_do(outsider):
    outsider.groups.add(Group.objects.create(name="book club"))
    assert _client(outsider).get("/api/categories/").status_code == 403
    outsider.groups.add(Group.objects.get_or_create(name=ANNOTATOR)[0])
    assert _client(outsider).get("/api/categories/").status_code == 200
    assert _client(outsider).post("/api/categories/", {"name": "token-test-3"}).status_code == 403
    outsider.groups.add(Group.objects.get_or_create(name=RESEARCHER)[0])
    assert _client(outsider).post("/api/categories/", {"name": "token-test-4"}).status_code == 201


def test_a_superuser_is_an_admin(admin_user, outsider):
    assert admin_user.groups.filter(name=ADMIN).exists()
    outsider.is_superuser = True
    outsider.save()
    assert _client(outsider).post("/api/categories/", {"name": "token-test-5"}).status_code == 201


def test_unknown_token_and_inactive_user_are_refused(researcher):
    # 403, not 401: the first authentication class (sessions) sends no WWW-Authenticate
    # header, so DRF answers 403 (as it did with its own TokenAuthentication).
    unknown = APIClient(HTTP_AUTHORIZATION="Token " + "0" * 40)
    response = unknown.get("/api/categories/")
    assert response.status_code == 403 and response.json() == {"detail": "Invalid token."}
    client = _client(researcher)
    researcher.is_active = False
    researcher.save()
    response = client.get("/api/categories/")
    assert response.status_code == 403
    assert response.json() == {"detail": "User inactive or deleted."}


def test_request_auth_is_the_token(researcher):
    client = _client(researcher)
    response = client.get("/api/instances/")
    assert response.status_code == 200
    token = response.wsgi_request.auth
    assert isinstance(token, Token) and token.key == Token.objects.get(user=researcher).key
    assert response.wsgi_request.user.pk == researcher.pk
