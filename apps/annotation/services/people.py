"""Annotator accounts: create (with a password or an e-mailed invitation), invite again,
change languages, activate and deactivate. Only plain annotators are managed here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from apps.accounts.roles import ANNOTATOR, is_annotator
from apps.accounts.services import roles_ensure, user_invite_send, username_check
from apps.core.errors import ConflictError, KasautiError
from apps.core.text import nfc

from .. import rules
from ..models import AnnotatorProfile
from ..rules import PermissionRefused
from ..selectors import annotator_manageable

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractUser

User = get_user_model()


def annotator_create(
    *,
    username: str,
    languages: Sequence[str],
    email: str = "",
    password: str | None = None,
    invite_base_url: str | None = None,
) -> AbstractUser:
    """Create an annotator account. Either the researcher hands over `password`, or, with
    `invite_base_url` (the site's scheme and host), the annotator is e-mailed an invitation
    whose link sets their password. Without either the account cannot sign in until a
    password is set (password reset)."""
    try:
        username = username_check(username=nfc(username))
    except ValidationError as exc:
        error = ConflictError if exc.code == "taken" else KasautiError
        raise error(exc.messages[0]) from exc
    if invite_base_url and not email:
        raise KasautiError("email: required to send an invitation")
    roles_ensure()
    from django.contrib.auth.models import Group

    with transaction.atomic():
        try:
            with transaction.atomic():
                user = User.objects.create_user(username=username, email=email, password=password)
        except IntegrityError as exc:  # created by a parallel request since the check
            raise ConflictError(f"username: {username!r} is taken") from exc
        if password is None:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        user.groups.add(Group.objects.get(name=ANNOTATOR))
        AnnotatorProfile.objects.create(user=user, languages=rules.languages_clean(languages))
    if invite_base_url:
        annotator_invite(user=user, base_url=invite_base_url)
    return user


def _check_manageable(user) -> None:
    if not annotator_manageable(user=user):
        raise PermissionRefused(
            f"{user.username} holds a higher role than annotator: only an administrator can "
            "change this account"
        )


def annotator_invite(*, user, base_url: str) -> str:
    """(Re-)send the invitation e-mail; its link lets the annotator choose a password."""
    _check_manageable(user)
    if not is_annotator(user):
        raise KasautiError(f"user: {user.username} is not an annotator")
    if not user.email:
        raise KasautiError(f"email: {user.username} has no e-mail address to invite")
    return user_invite_send(user=user, base_url=base_url)


def annotator_update(
    *, user, languages: Sequence[str] | None = None, active: bool | None = None
) -> AbstractUser:
    """Change an annotator's languages or activate/deactivate the account. Refused (403) for
    users who hold a higher role (annotator_manageable)."""
    _check_manageable(user)
    with transaction.atomic():
        if languages is not None:
            AnnotatorProfile.objects.update_or_create(
                user=user, defaults={"languages": rules.languages_clean(languages)}
            )
        if active is not None and user.is_active != active:
            user.is_active = active
            user.save(update_fields=["is_active"])
    return user
