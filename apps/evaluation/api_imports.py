"""Evaluation API for prediction imports: a file of predictions made elsewhere, scored as a
run at once or by a background job."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import ResearcherOrReadOnly
from apps.catalog.api_imports import upload_limit_check
from apps.catalog.models import Dataset
from apps.core.api import JobOutputSerializer
from apps.core.models import Job
from apps.core.parsers import NulSafeMultiPartParser
from apps.releases.models import Release

from . import selectors
from .api import ErrorSerializer
from .api_runs import RunOutputSerializer
from .services.imports import predictions_upload_import


class PredictionImportApi(APIView):
    """Import a CSV or JSONL file of predictions made elsewhere (multipart `file`) against a
    dataset; the run is scored at once (201). Malformed files: 400 with every problem (file,
    line, field); a file none of whose ids match: 400 with the reason. Over
    KASAUTI_MAX_UPLOAD_BYTES: 413. Over KASAUTI_IMPORT_INLINE_MAX_BYTES (or `?async=1`): 202
    with a background job whose result names the run."""

    permission_classes = [ResearcherOrReadOnly]
    parser_classes = [NulSafeMultiPartParser]

    class InputSerializer(serializers.Serializer):
        file = serializers.FileField()
        dataset = serializers.PrimaryKeyRelatedField(queryset=Dataset.objects.all())
        release = serializers.PrimaryKeyRelatedField(
            queryset=Release.objects.all(), required=False, allow_null=True, default=None
        )
        model = serializers.CharField(max_length=200)
        id_column = serializers.CharField(max_length=100, default="example_id")
        prediction_column = serializers.CharField(max_length=100, default="prediction")
        index_base = serializers.ChoiceField(choices=[0, 1], default=0)
        file_format = serializers.ChoiceField(
            choices=["", "csv", "jsonl"], default="", required=False
        )

        class Meta:
            ref_name = "PredictionImportInput"

    @extend_schema(
        request={"multipart/form-data": InputSerializer},
        parameters=[
            OpenApiParameter(
                "async", bool, description="Import in a background job whatever the size."
            )
        ],
        responses={
            201: RunOutputSerializer,
            202: JobOutputSerializer,
            400: OpenApiTypes.OBJECT,
            413: ErrorSerializer,
        },
    )
    def post(self, request: Request) -> Response:
        upload_limit_check(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        asked = request.query_params.get("async", "").lower() in {"1", "true", "yes"}
        run = predictions_upload_import(
            upload=values["file"], values=values, created_by=request.user, background=asked
        )
        if isinstance(run, Job):
            return Response(JobOutputSerializer(run).data, status=status.HTTP_202_ACCEPTED)
        return Response(
            RunOutputSerializer(selectors.run_get(run_id=run.pk)).data,
            status=status.HTTP_201_CREATED,
        )
