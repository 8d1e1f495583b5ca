from functools import cache

from django.contrib import admin
from django.urls import include, path
from django.utils.module_loading import import_string

from apps.accounts.api import TokenObtainApi
from apps.accounts.views import admin_login_view, login_view, role_home
from apps.core.views import healthz


def lazy_view(dotted_path: str, **initkwargs):
    """The class-based view at `dotted_path`, imported on its first request. For views whose
    module is expensive to import and rarely used: drf_spectacular's views pull in its schema
    generator and django.test (~0.3 s), which every process that loads the URLs (each
    management command, through the system checks; each web process and worker) would pay."""

    @cache
    def view():
        return import_string(dotted_path).as_view(**initkwargs)

    def dispatch(request, *args, **kwargs):
        return view()(request, *args, **kwargs)

    # As the view itself (every DRF APIView is): DRF's authentication enforces CSRF.
    dispatch.csrf_exempt = True
    return dispatch


api_patterns = [
    path("", include("apps.core.urls_api")),
    path("", include("apps.catalog.urls_api")),
    path("", include("apps.releases.urls_api")),
    path("", include("apps.translation.urls_api")),
    path("", include("apps.annotation.urls_api")),
    path("", include("apps.evaluation.urls_api")),
    # POST username + password -> {"token": ...}; send it as "Authorization: Token <token>".
    path("auth/token/", TokenObtainApi.as_view(), name="api-token"),
    path(
        "schema/",
        lazy_view("apps.core.schema_views.CachedSpectacularAPIView"),
        name="api-schema",
    ),
    path(
        "docs/",
        lazy_view("drf_spectacular.views.SpectacularSwaggerView", url_name="api-schema"),
        name="api-docs",
    ),
]

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # Both sign-in forms are rate-limited (apps.accounts.throttles); they come before the
    # admin's and django.contrib.auth's own routes so they answer these paths.
    path("admin/login/", admin_login_view, name="admin-login"),
    path("admin/", admin.site.urls),
    path("accounts/login/", login_view, name="login"),
    path("accounts/home/", role_home, name="role-home"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/", include(api_patterns)),
    path("jobs/", include("apps.core.urls")),
    path("translation/", include("apps.translation.urls")),
    path("annotate/", include("apps.annotation.urls")),
    path("evaluation/", include("apps.evaluation.urls")),
    path("surveys/", include("apps.surveys.urls")),
    # The public survey link respondents open: no account, its own small pages.
    path("s/", include("apps.surveys.urls_public")),
    path("", include("apps.releases.urls")),
    path("", include("apps.catalog.urls")),
]

# API clients get JSON errors even from Django itself (no route, unhandled error).
handler404 = "apps.core.views.not_found"
handler500 = "apps.core.views.server_error"
