"""Sign-in pages with the password-attempt rate limit in front of them, and each role's home:
where signing in leads when no other page was asked for."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, resolve_url

from .roles import is_annotator, is_researcher
from .throttles import login_rate_limited


def role_home_url(user) -> str:
    """An annotator's work is their campaigns; researchers and admins (also one who annotates
    too) start at the datasets."""
    if is_annotator(user) and not is_researcher(user):
        return resolve_url("annotation:campaigns")
    return resolve_url("web:home")


class RoleHomeLoginView(LoginView):
    """Django's sign-in page; without a `next` page it leads to the role's home."""

    def get_default_redirect_url(self) -> str:
        return role_home_url(self.request.user)


@login_required
def role_home(request: HttpRequest) -> HttpResponse:
    return redirect(role_home_url(request.user))


login_view = login_rate_limited(RoleHomeLoginView.as_view())
admin_login_view = login_rate_limited(admin.site.login)
