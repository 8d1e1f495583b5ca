"""People management changes only annotators who hold no higher role (issue 18, 3.1)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from apps.accounts.roles import ANNOTATOR
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser_annotator(admin_user):
    """A superuser (admin) who is also in the annotator group."""
    admin_user.groups.add(Group.objects.get(name=ANNOTATOR))
    return admin_user


def test_researcher_cannot_deactivate_superuser_annotator_via_api(
    researcher_client, superuser_annotator
):
    response = researcher_client.patch(
        f"/api/annotation/annotators/{superuser_annotator.pk}/",
        {"is_active": False},
        format="json",
    )
    assert response.status_code == 403
    assert "higher role" in response.json()["detail"]
    superuser_annotator.refresh_from_db()
    assert superuser_annotator.is_active


def test_researcher_cannot_change_languages_of_researcher_annotator(researcher_client, researcher):
    other = researcher.__class__.objects.create_user(username="rhea", password=PASSWORD)
    other.groups.add(Group.objects.get_or_create(name="researcher")[0])
    other.groups.add(Group.objects.get(name=ANNOTATOR))
    response = researcher_client.patch(
        f"/api/annotation/annotators/{other.pk}/", {"languages": ["ta"]}, format="json"
    )
    assert response.status_code == 403


def test_plain_annotator_still_managed(researcher_client, annotator):
    response = researcher_client.patch(
        f"/api/annotation/annotators/{annotator.pk}/", {"is_active": False}, format="json"
    )
    assert response.status_code == 200
    annotator.refresh_from_db()
    assert not annotator.is_active


def test_people_page_refuses_and_hides_buttons_for_superuser(researcher, superuser_annotator):
    client = Client()
    client.force_login(researcher)
    page = client.get("/annotate/manage/people/").content.decode()
    row = page.split(f"{superuser_annotator.username} ", 1)[1].split("</tr>", 1)[0]
    assert "Deactivate" not in row
    assert "managed by an administrator" in row
    response = client.post(
        "/annotate/manage/people/",
        {"action": "deactivate", "user": superuser_annotator.pk},
    )
    assert response.status_code == 403
    superuser_annotator.refresh_from_db()
    assert superuser_annotator.is_active
