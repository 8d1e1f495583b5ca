"""Release API: list/read releases, create one, download its stored files.

Who may do what (checked here, on every request):
* any user with a role (annotator, researcher, admin) lists and reads releases and downloads
  their files: released data is published data;
* only researchers and admins create releases;
* the dataset-level export of live (unreleased) data is refused: 403 without the researcher
  role, 409 with an explanation for researchers.
"""

from __future__ import annotations

import base64

from django.http import FileResponse, HttpResponseNotModified
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.generics import ListAPIView
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import HasRole, IsResearcher
from apps.catalog.models import Dataset
from apps.core.api import JobOutputSerializer
from apps.core.renderers import IgnoreFormatNegotiation

from .content import content_preview, kinds_without_rows
from .models import ContentMode, FileFormat, FileKind, Release, ReleaseFile
from .selectors import ReleaseFilter, release_file_get, release_get, release_list
from .services import (
    dataset_export_refuse,
    release_create,
    release_create_async,
    release_file_content_type,
    release_file_media_types,
    release_file_name,
    release_file_path,
)


def _sha256_digest_header(hex_digest: str) -> str:
    """RFC 3230 Digest header value."""
    return "sha-256=" + base64.b64encode(bytes.fromhex(hex_digest)).decode("ascii")


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()

    class Meta:
        ref_name = "ReleaseError"


class ReleaseFileOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = ReleaseFile
        fields = ["kind", "format", "rows", "size", "sha256"]


class ReleaseOutputSerializer(serializers.ModelSerializer):
    dataset_name = serializers.CharField(source="dataset.name")
    created_by = serializers.CharField(source="created_by.username", default=None, allow_null=True)
    files = ReleaseFileOutputSerializer(many=True)

    class Meta:
        model = Release
        fields = [
            "id",
            "dataset",
            "dataset_name",
            "number",
            "notes",
            "created_by",
            "created_at",
            "counts",
            "content",
            "files",
        ]


class ReleaseListApi(ListAPIView):
    """Releases, newest first per dataset; `?dataset=<id>` or `?dataset_name=` narrows."""

    permission_classes = [HasRole]
    filterset_class = ReleaseFilter

    class OutputSerializer(ReleaseOutputSerializer):
        class Meta(ReleaseOutputSerializer.Meta):
            ref_name = "ReleaseListOutput"

    serializer_class = OutputSerializer

    def get_queryset(self):
        # Filtering is done by the filter backend with the same FilterSet.
        return release_list()


class ReleaseDetailApi(APIView):
    permission_classes = [HasRole]

    class OutputSerializer(ReleaseOutputSerializer):
        class Meta(ReleaseOutputSerializer.Meta):
            ref_name = "ReleaseDetailOutput"

    @extend_schema(responses={200: OutputSerializer})
    def get(self, request: Request, pk: int) -> Response:
        release = release_get(release_id=pk)
        if release is None:
            return Response({"detail": "No such release."}, status=status.HTTP_404_NOT_FOUND)
        return Response(self.OutputSerializer(release).data)


class DatasetReleaseCreateApi(APIView):
    """Create the next release of a dataset (201). If nothing changed since the latest release,
    that release is returned (200) instead of a copy. Synchronous by default; `?async=1`
    queues a job and answers 202 with it (poll /api/jobs/<id>/)."""

    permission_classes = [IsResearcher]

    class InputSerializer(serializers.Serializer):
        notes = serializers.CharField(required=False, allow_blank=True, default="")
        content = serializers.ChoiceField(
            choices=ContentMode.choices,
            default=ContentMode.REVIEWED,
            help_text="reviewed (default): instances of approved templates (translations: "
            "passed or corrected), tuples voted stereotypical, context-set sentences kept or "
            "fixed by social-science review, no sentence pairs (no review step); "
            "as_published: every live row. counts.excluded says what reviewed left out.",
        )

        class Meta:
            ref_name = "ReleaseCreateInput"

    class OutputSerializer(ReleaseOutputSerializer):
        class Meta(ReleaseOutputSerializer.Meta):
            ref_name = "ReleaseCreateOutput"

    @extend_schema(
        request=InputSerializer,
        parameters=[OpenApiParameter("async", OpenApiTypes.BOOL, description="Queue a job.")],
        responses={
            200: OutputSerializer,
            201: OutputSerializer,
            202: JobOutputSerializer,
            409: ErrorSerializer,
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        dataset = get_object_or_404(Dataset, pk=pk)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        notes = serializer.validated_data["notes"]
        content = serializer.validated_data["content"]
        if request.query_params.get("async", "").lower() in {"1", "true", "yes"}:
            job = release_create_async(
                dataset=dataset, requested_by=request.user, notes=notes, content=content
            )
            return Response(JobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)
        release = release_create(
            dataset=dataset, created_by=request.user, notes=notes, content=content
        )
        # Identical to the latest release: that release is the answer (200), no copy is made.
        reused = getattr(release, "reused", False)
        release = release_get(release_id=release.pk)
        return Response(
            self.OutputSerializer(release).data,
            status=status.HTTP_200_OK if reused else status.HTTP_201_CREATED,
        )


class DatasetReleasePreviewApi(APIView):
    """What a release of the dataset would contain now in each content mode: the counts a
    release records (`excluded` included), for `reviewed` and for `as_published`."""

    permission_classes = [IsResearcher]

    class OutputSerializer(serializers.Serializer):
        reviewed = serializers.JSONField()
        as_published = serializers.JSONField()

        class Meta:
            ref_name = "ReleasePreviewOutput"

    @extend_schema(responses={200: OutputSerializer})
    def get(self, request: Request, pk: int) -> Response:
        dataset = get_object_or_404(Dataset, pk=pk)
        return Response(self.OutputSerializer(content_preview(dataset=dataset)).data)


class ReleaseFileResponse(FileResponse):
    # Larger blocks than Django's 4 KiB: fewer iterations per megabyte streamed.
    block_size = 256 * 1024


class ReleaseExportApi(APIView):
    """Stream a release's stored file (written once at release time, never regenerated)."""

    permission_classes = [HasRole]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = IgnoreFormatNegotiation

    class InputSerializer(serializers.Serializer):
        format = serializers.ChoiceField(choices=FileFormat.choices, default=FileFormat.JSONL)
        kind = serializers.ChoiceField(choices=FileKind.choices, default=FileKind.INSTANCES)

        class Meta:
            ref_name = "ReleaseExportInput"

    @extend_schema(
        parameters=[InputSerializer],
        responses={
            # One entry per format's media type (the writers', the zip's and the documents');
            # card.json and changelog.json are JSON objects, every other file is bytes.
            **{
                (200, media_type): OpenApiResponse(
                    OpenApiTypes.OBJECT
                    if media_type == "application/json"
                    else OpenApiTypes.BINARY,
                    description="The file; X-Checksum-SHA256, Digest and ETag carry its sha256.",
                )
                for media_type in release_file_media_types()
            },
            304: OpenApiResponse(description="If-None-Match matched the ETag."),
            404: ErrorSerializer,
        },
    )
    def get(self, request: Request, pk: int):
        params = self.InputSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        release = release_get(release_id=pk)
        if release is None:
            return Response({"detail": "No such release."}, status=status.HTTP_404_NOT_FOUND)
        release_file = release_file_get(
            release=release,
            kind=params.validated_data["kind"],
            file_format=params.validated_data["format"],
        )
        if release_file is None:
            kind = params.validated_data["kind"]
            detail = (
                f"release {release.number} holds no {kind}: no file is written for a kind "
                "a release has none of"
                if kind in kinds_without_rows(release.counts)
                else "This release has no such file."
            )
            return Response({"detail": detail}, status=status.HTTP_404_NOT_FOUND)
        etag = f'"{release_file.sha256}"'
        if etag in request.headers.get("If-None-Match", ""):
            return HttpResponseNotModified(headers={"ETag": etag})
        path = release_file_path(release_file=release_file)
        if not path.is_file():
            return Response(
                {"detail": f"release file {release_file.path} is missing from storage"},
                status=status.HTTP_500_INTERNAL_SERVER_ERROR,
            )
        response = ReleaseFileResponse(
            open(path, "rb"),  # noqa: SIM115 (FileResponse closes it)
            as_attachment=True,
            filename=release_file_name(release_file=release_file),
            content_type=release_file_content_type(release_file=release_file),
        )
        response["X-Checksum-SHA256"] = release_file.sha256
        response["Digest"] = _sha256_digest_header(release_file.sha256)
        response["ETag"] = etag
        return response


class DatasetExportApi(APIView):
    """Dataset-level export of live data: always refused, only releases are exportable."""

    permission_classes = [IsResearcher]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = IgnoreFormatNegotiation

    @extend_schema(
        parameters=[OpenApiParameter("format", OpenApiTypes.STR)],
        responses={403: ErrorSerializer, 404: ErrorSerializer, 409: ErrorSerializer},
    )
    def get(self, request: Request, pk: int) -> Response:
        dataset_export_refuse(dataset=get_object_or_404(Dataset, pk=pk))
        raise AssertionError("dataset_export_refuse always raises")  # pragma: no cover
