"""Inviting an annotator sends a real e-mail (locmem backend in tests) whose link sets the
password; the annotator then signs in with it. The link works once."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client

from apps.annotation.services import annotator_create, people
from apps.core.errors import KasautiError

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a-Long-new-passw0rd"


def _link(message) -> str:
    match = re.search(r"https?://\S+/accounts/reset/\S+/", message.body)
    assert match, message.body
    return match.group(0)


def _set_password(link: str) -> Client:
    client = Client()
    path = re.sub(r"^https?://[^/]+", "", link)
    form = client.get(path, follow=True)  # Django redirects to .../set-password/
    assert form.status_code == 200
    assert "Choose your password" in form.content.decode()
    set_url = form.redirect_chain[-1][0]
    done = client.post(set_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done.status_code == 302, done.content.decode()
    return client


def test_people_page_invite_mails_a_link_that_sets_the_password(researcher):
    page = Client()
    page.force_login(researcher)
    created = page.post(
        "/annotate/manage/people/",
        {
            "action": "create",
            "username": "devika",
            "email": "devika@example.org",
            "languages": "hi ta",
            "invite": "1",
        },
    )
    assert created.status_code == 302
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["devika@example.org"]
    assert "devika" in message.body
    link = _link(message)
    assert link.startswith("http://testserver/accounts/reset/")
    _set_password(link)
    signed_in = Client()
    assert signed_in.login(username="devika", password=NEW_PASSWORD)
    assert signed_in.get("/annotate/").status_code == 200
    # The link is single-use: once the password changed, it is refused.
    again = Client().get(re.sub(r"^https?://[^/]+", "", link), follow=True)
    assert "no longer valid" in again.content.decode()


def test_api_invite_and_resend(researcher_client, researcher):
    created = researcher_client.post(
        "/api/annotation/annotators/",
        {"username": "ravi", "email": "ravi@example.org", "languages": ["bn"], "invite": True},
        format="json",
    )
    assert created.status_code == 201, created.content
    assert [m.to for m in mail.outbox] == [["ravi@example.org"]]
    page = Client()
    page.force_login(researcher)
    resent = page.post(
        "/annotate/manage/people/", {"action": "invite", "user": created.json()["id"]}
    )
    assert resent.status_code == 302
    assert len(mail.outbox) == 2
    _set_password(_link(mail.outbox[1]))
    assert Client().login(username="ravi", password=NEW_PASSWORD)


def test_invite_without_email_is_refused_and_nothing_is_written(researcher):
    with pytest.raises(KasautiError, match="email: required to send an invitation"):
        annotator_create(username="noemail", languages=["hi"], invite_base_url="http://x")
    assert not people.User.objects.filter(username="noemail").exists()
    assert mail.outbox == []


def test_no_invite_no_mail(researcher_client):
    created = researcher_client.post(
        "/api/annotation/annotators/",
        {"username": "quiet", "email": "q@example.org", "languages": ["hi"]},
        format="json",
    )
    assert created.status_code == 201
    assert mail.outbox == []
