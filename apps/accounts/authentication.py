"""API token authentication that also reads the user's roles, in one query.

DRF's TokenAuthentication loads the token and its user; every API view then asks for the
user's roles (permissions.py), a second query per request. Here one plain SQL statement reads
the token, its user and the user's role groups (one row per group, LEFT JOINs, so a user
without groups is one row), and roles.user_roles uses those groups for this request's user
object. Same checks as DRF's: the key must match exactly and the user must be active.

Plain SQL rather than the ORM because this runs on every API request, and building the
equivalent queryset (three EXISTS annotations) cost more Python time than the query (P9).
"""

from __future__ import annotations

from functools import cache

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from .roles import ROLES, remember_roles


@cache
def _token_sql() -> str:
    user_model = get_user_model()
    token = authentication.TokenAuthentication().get_model()._meta
    users, membership = user_model._meta, user_model.groups.through._meta
    user_column = membership.get_field("user").column
    group_column = membership.get_field("group").column
    roles = ", ".join(["%s"] * len(ROLES))
    return (
        f'SELECT u.*, t."key" AS token_key, t."created" AS token_created, g."name" AS role '
        f'FROM "{token.db_table}" t JOIN "{users.db_table}" u ON u."{users.pk.column}" = '
        f't."{token.get_field("user").column}" '
        f'LEFT JOIN "{membership.db_table}" m ON m."{user_column}" = u."{users.pk.column}" '
        f'LEFT JOIN "{Group._meta.db_table}" g ON g."id" = m."{group_column}" '
        f'AND g."name" IN ({roles}) WHERE t."key" = %s'
    )


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key):
        model = self.get_model()
        rows = list(get_user_model().objects.raw(_token_sql(), [*ROLES, key]))
        if not rows:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        user = rows[0]
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        remember_roles(user, {row.role for row in rows if row.role})
        token = model(key=user.token_key, user=user, created=user.token_created)
        token._state.adding, token._state.db = False, rows[0]._state.db
        return (user, token)
