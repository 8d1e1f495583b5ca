"""Accounts: the role groups and the demo users."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from rest_framework.authtoken.models import Token

from .roles import ADMIN, ANNOTATOR, RESEARCHER, ROLES


def roles_ensure() -> None:
    for name in ROLES:
        Group.objects.get_or_create(name=name)


@transaction.atomic  # user, role and token together or not at all
def user_create_with_role(*, username: str, role: str, password: str, email: str = ""):
    """Create (or reset) a user with exactly one role. Admins are also Django superusers."""
    roles_ensure()
    User = get_user_model()
    user, _ = User.objects.get_or_create(username=username, defaults={"email": email})
    user.set_password(password)
    user.is_staff = role == ADMIN
    user.is_superuser = role == ADMIN
    user.save()
    user.groups.set([Group.objects.get(name=role)])
    Token.objects.get_or_create(user=user)
    return user


def demo_accounts_create() -> list[tuple[str, str, str]]:
    """(username, role, password) for the demo users; passwords are new on every call so that
    no password is ever written in the repository."""
    created = []
    for username, role in (("annotator", ANNOTATOR), ("researcher", RESEARCHER), ("admin", ADMIN)):
        password = secrets.token_urlsafe(9)
        user_create_with_role(username=username, role=role, password=password)
        created.append((username, role, password))
    return created
