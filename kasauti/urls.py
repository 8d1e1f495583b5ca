from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularSwaggerView

from apps.accounts.api import TokenObtainApi
from apps.accounts.views import admin_login_view, login_view, role_home
from apps.core.schema_views import CachedSpectacularAPIView
from apps.core.views import healthz

api_patterns = [
    path("", include("apps.core.urls_api")),
    path("", include("apps.catalog.urls_api")),
    path("", include("apps.releases.urls_api")),
    path("", include("apps.translation.urls_api")),
    path("", include("apps.annotation.urls_api")),
    path("", include("apps.evaluation.urls_api")),
    # POST username + password -> {"token": ...}; send it as "Authorization: Token <token>".
    path("auth/token/", TokenObtainApi.as_view(), name="api-token"),
    path("schema/", CachedSpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
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
    path("", include("apps.releases.urls")),
    path("", include("apps.catalog.urls")),
]

# API clients get JSON errors even from Django itself (no route, unhandled error).
handler404 = "apps.core.views.not_found"
handler500 = "apps.core.views.server_error"
