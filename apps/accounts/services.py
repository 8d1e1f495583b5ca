"""Accounts: the role groups and the demo users."""

from __future__ import annotations

import secrets
import unicodedata
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.tokens import default_token_generator
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from rest_framework.authtoken.models import Token

from .roles import ADMIN, ANNOTATOR, RESEARCHER, ROLES

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractUser


def _without_marks(name: str) -> str:
    """`name` with each combining mark (Unicode Mn, Mc) but a leading one replaced by a letter."""
    return "".join(
        "a" if index and unicodedata.category(char) in ("Mn", "Mc") else char
        for index, char in enumerate(name)
    )


def username_check(*, username: str) -> str:
    """Django's rules for a new username; returns the name as it will be stored.

    Django stores a username NFKC-normalised (AbstractBaseUser.normalize_username: full-width
    "ａｄｍｉｎ" is stored as "admin"), so the uniqueness check must compare that form, and, as
    Django's UserCreationForm does, without case. The characters are the model field's own
    validators' (letters, digits and @.+-_, at most 150), with the combining marks of Indic
    scripts allowed (not as the first character). Raises ValidationError with code
    "required", "invalid" or "taken" (params: "existing", the name already stored)."""
    User = get_user_model()
    name = User.normalize_username(username.strip())
    if not name:
        raise ValidationError("username: required", code="required")
    field = User._meta.get_field(User.USERNAME_FIELD)
    try:
        for validator in field.validators:
            if isinstance(validator, UnicodeUsernameValidator):
                # Django's \w leaves out the vowel signs of Indic scripts ("अनु"): the same
                # rule with combining marks allowed.
                validator(_without_marks(name))
            else:
                validator(name)
    except ValidationError as exc:
        raise ValidationError(
            f"username: {username!r}: " + " ".join(exc.messages), code="invalid"
        ) from exc
    existing = (
        User._default_manager.filter(**{f"{User.USERNAME_FIELD}__iexact": name})
        .values_list(User.USERNAME_FIELD, flat=True)
        .first()
    )
    if existing is not None:
        if existing == username:
            message = f"username: {username!r} is taken"
        else:
            message = (
                f"username: {username!r} is taken: it is the existing {existing!r} once "
                "normalised as Django stores usernames (Unicode NFKC, case ignored)"
            )
        raise ValidationError(message, code="taken", params={"existing": existing})
    return name


def roles_ensure() -> None:
    for name in ROLES:
        Group.objects.get_or_create(name=name)


@transaction.atomic  # user, role and token together or not at all
def user_create_with_role(
    *, username: str, role: str, password: str, email: str = ""
) -> AbstractUser:
    """Create (or reset) a user with exactly one role. Admins are also Django superusers."""
    roles_ensure()
    User = get_user_model()
    user, _ = User.objects.get_or_create(username=username, defaults={"email": email})
    if email:
        user.email = email
    user.set_password(password)
    user.is_staff = role == ADMIN
    user.is_superuser = role == ADMIN
    user.save()
    user.groups.set([Group.objects.get(name=role)])
    Token.objects.get_or_create(user=user)
    return user


def demo_accounts_create() -> list[tuple[str, str, str, str]]:
    """(username, role, password, e-mail) for the demo users; passwords are new on every call
    so that no password is ever written in the repository. Each has the address
    <username>@example.org, so that "Forgot password?" can be tried (under `make run` the mail
    is printed in the terminal)."""
    created = []
    for username, role in (("annotator", ANNOTATOR), ("researcher", RESEARCHER), ("admin", ADMIN)):
        password = secrets.token_urlsafe(9)
        email = f"{username}@example.org"
        user_create_with_role(username=username, role=role, password=password, email=email)
        created.append((username, role, password, email))
    return created


def user_invite_send(*, user, base_url: str) -> str:
    """E-mail `user` an invitation whose link sets their password (Django's password-reset
    confirmation with a one-time token; it stops working once a password is set). Returns the
    link. `base_url` is the site's scheme and host, e.g. "https://kasauti.example.org"."""
    if not user.email:
        raise ValueError(f"email: {user.username} has no e-mail address to invite")
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    link = base_url.rstrip("/") + reverse(
        "password_reset_confirm", kwargs={"uidb64": uid, "token": token}
    )
    body = (
        f"Hello {user.username},\n\n"
        "you have been invited to annotate on Kasauti. Choose your password here:\n\n"
        f"{link}\n\n"
        f"Then sign in as {user.username!r}. The link works once.\n"
    )
    send_mail(
        "Your Kasauti annotator account",
        body,
        settings.DEFAULT_FROM_EMAIL,
        [user.email],
        fail_silently=False,
    )
    return link
