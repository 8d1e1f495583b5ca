"""GET /api/releases/<id>/hub/: the release as a Hugging Face dataset folder, zipped
(issue 22). The folder is written from the release's frozen files (apps/releases/hub_export.py)
into a temporary directory, then streamed as a zip made while it is sent."""

from __future__ import annotations

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import HasRole
from apps.core.renderers import IgnoreFormatNegotiation

from .api import ErrorSerializer
from .hub_export import HubZipStream
from .selectors import release_get


class ReleaseHubApi(APIView):
    """The release's Hugging Face dataset folder as a zip: `<name>/README.md` (the release's
    card) and `<name>/data/<config>/<split>.parquet` for every config the card lists. Entries
    are sorted and carry fixed times, so the same release always gives the same bytes. Any
    user with a role, like the release's files."""

    permission_classes = [HasRole]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = IgnoreFormatNegotiation

    @extend_schema(
        responses={
            (200, "application/zip"): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="The zip, streamed; unzip it and `hf upload <org>/<name> <folder> "
                "--repo-type dataset` (docs/releases/hub.md).",
            ),
            404: ErrorSerializer,
            409: OpenApiResponse(
                ErrorSerializer, description="A release made before cards existed: no card."
            ),
            500: OpenApiResponse(
                ErrorSerializer,
                description="A stored file is missing or does not match its checksum.",
            ),
        },
    )
    def get(self, request: Request, pk: int):
        release = release_get(release_id=pk)
        if release is None:
            return Response({"detail": "No such release."}, status=status.HTTP_404_NOT_FOUND)
        # Written before the response starts: a refusal is a JSON error, not a broken zip.
        stream = HubZipStream(release=release)
        response = StreamingHttpResponse(stream, content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="{stream.name}.zip"'
        return response
