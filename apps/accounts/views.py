"""Sign-in pages with the password-attempt rate limit in front of them."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.views import LoginView

from .throttles import login_rate_limited

login_view = login_rate_limited(LoginView.as_view())
admin_login_view = login_rate_limited(admin.site.login)
