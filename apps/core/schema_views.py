"""/api/schema/ generated and rendered once per process instead of on every request.

Generating the OpenAPI document walks every API view and serializer, and rendering it (290 KB)
takes as long again for YAML: together 0.6-2.8 s a request on the shared 2-core machine
(docs/api.md), paid by every visit to /api/docs/ (Swagger UI fetches it). The document depends
only on the code, the URLconf, the settings and the language, and is served to everyone alike
(SERVE_PUBLIC), so each rendering is kept per (URLconf, version, language, media type) and
forgotten when a test changes the settings it is built from."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpResponse
from django.urls import get_urlconf
from django.utils import translation
from drf_spectacular.views import SpectacularAPIView

_SCHEMAS: dict[tuple[Any, ...], dict] = {}
_BODIES: dict[tuple[Any, ...], bytes] = {}


@receiver(setting_changed)
def _forget_schemas(*, setting: str, **kwargs) -> None:
    if setting in {"SPECTACULAR_SETTINGS", "REST_FRAMEWORK", "ROOT_URLCONF"}:
        _SCHEMAS.clear()
        _BODIES.clear()


class CachedSpectacularAPIView(SpectacularAPIView):
    def _get_schema_response(self, request):
        version = self.api_version or request.version or self._get_version_parameter(request)
        key = (
            get_urlconf() or settings.ROOT_URLCONF,
            version,
            translation.get_language(),
            self.serve_public,
        )
        renderer, media_type = request.accepted_renderer, request.accepted_media_type
        body = _BODIES.get((*key, media_type))
        if body is None:
            schema = _SCHEMAS.get(key)
            if schema is None:
                generator = self.generator_class(
                    urlconf=self.urlconf, api_version=version, patterns=self.patterns
                )
                schema = _SCHEMAS[key] = generator.get_schema(
                    request=request, public=self.serve_public
                )
            body = renderer.render(schema, media_type, self.get_renderer_context())
            _BODIES[(*key, media_type)] = body
        # The Content-Type DRF's Response would set.
        charset = renderer.charset
        content_type = (
            f"{media_type}; charset={charset}"
            if charset and "charset" not in media_type
            else media_type
        )
        response = HttpResponse(body, content_type=content_type)
        filename = self._get_filename(request, version)
        response["Content-Disposition"] = f'inline; filename="{filename}"'
        return response
