from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import obtain_auth_token

from apps.core.views import healthz

api_patterns = [
    path("", include("apps.core.urls_api")),
    path("", include("apps.catalog.urls_api")),
    path("", include("apps.releases.urls_api")),
    path("", include("apps.translation.urls_api")),
    path("", include("apps.annotation.urls_api")),
    # POST username + password -> {"token": ...}; send it as "Authorization: Token <token>".
    path("auth/token/", obtain_auth_token, name="api-token"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/", include(api_patterns)),
    path("jobs/", include("apps.core.urls")),
    path("translation/", include("apps.translation.urls")),
    path("annotate/", include("apps.annotation.urls")),
    path("", include("apps.releases.urls")),
    path("", include("apps.catalog.urls")),
]
