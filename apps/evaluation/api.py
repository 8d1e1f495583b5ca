"""Evaluation API: the model registry and prompt templates, and the error shapes every
evaluation endpoint shares. Runs are in api_runs.py, prediction imports in api_imports.py, the
CrowS-Pairs / SEAT / IndiCASA starts in api_bias.py.

Who may do what: anyone with a Kasauti role reads; researchers and admins register models,
start runs and import predictions (apps.accounts.permissions)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
)
from rest_framework import serializers, status
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import HasRole, ResearcherOrReadOnly

from . import selectors
from .models import (
    ModelEntry,
    ModelKind,
    PromptTemplate,
)
from .services.models import model_entry_create, model_entry_delete, model_entry_update


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()

    class Meta:
        ref_name = "EvaluationError"


# A 400 is either DRF's field errors ({"field": ["..."]}) or a domain error ({"detail": "..."}).
VALIDATION_400 = OpenApiResponse(
    OpenApiTypes.OBJECT, description="Field errors, or {'detail': reason} from the service."
)


# --- models --------------------------------------------------------------------------------


class ModelEntryOutputSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )

    class Meta:
        model = ModelEntry
        fields = [
            "id",
            "name",
            "kind",
            "path",
            "endpoint_url",
            "endpoint_model",
            "dtype",
            "device",
            "notes",
            "demo",
            "created_by",
            "created_at",
        ]
        read_only_fields = ["demo"]


class ModelEntryInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    kind = serializers.ChoiceField(choices=ModelKind.choices)
    path = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")
    endpoint_url = serializers.URLField(
        max_length=500, required=False, allow_blank=True, default=""
    )
    endpoint_model = serializers.CharField(
        max_length=200, required=False, allow_blank=True, default=""
    )
    dtype = serializers.ChoiceField(
        choices=["float32", "float16", "bfloat16", "auto"], default="float32"
    )
    device = serializers.CharField(max_length=20, default="cpu")
    notes = serializers.CharField(required=False, allow_blank=True, default="")

    class Meta:
        ref_name = "ModelEntryInput"


class ModelEntryListApi(ListAPIView):
    """Registered models; researchers add one with POST."""

    permission_classes = [ResearcherOrReadOnly]
    serializer_class = ModelEntryOutputSerializer

    def get_queryset(self):
        return selectors.model_entry_list()

    @extend_schema(
        request=ModelEntryInputSerializer,
        responses={
            201: ModelEntryOutputSerializer,
            400: VALIDATION_400,
            409: ErrorSerializer,
        },
    )
    def post(self, request: Request) -> Response:
        data = ModelEntryInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        entry = model_entry_create(created_by=request.user, **data.validated_data)
        return Response(ModelEntryOutputSerializer(entry).data, status=status.HTTP_201_CREATED)


class ModelEntryDetailApi(APIView):
    permission_classes = [ResearcherOrReadOnly]

    class UpdateSerializer(ModelEntryInputSerializer):
        class Meta:
            ref_name = "ModelEntryUpdateInput"

    @extend_schema(responses={200: ModelEntryOutputSerializer, 404: ErrorSerializer})
    def get(self, request: Request, pk: int) -> Response:
        entry = get_object_or_404(ModelEntry, pk=pk)
        return Response(ModelEntryOutputSerializer(entry).data)

    @extend_schema(
        request=UpdateSerializer,
        responses={
            200: ModelEntryOutputSerializer,
            400: VALIDATION_400,
            404: ErrorSerializer,
            409: ErrorSerializer,
        },
    )
    def patch(self, request: Request, pk: int) -> Response:
        entry = get_object_or_404(ModelEntry, pk=pk)
        data = self.UpdateSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        entry = model_entry_update(entry=entry, **data.validated_data)
        return Response(ModelEntryOutputSerializer(entry).data)

    @extend_schema(responses={204: None, 404: ErrorSerializer, 409: ErrorSerializer})
    def delete(self, request: Request, pk: int) -> Response:
        model_entry_delete(entry=get_object_or_404(ModelEntry, pk=pk))
        return Response(status=status.HTTP_204_NO_CONTENT)


class PromptTemplateListApi(ListAPIView):
    """BBQ-style prompt templates (edited in the admin)."""

    permission_classes = [HasRole]

    class OutputSerializer(serializers.ModelSerializer):
        class Meta:
            model = PromptTemplate
            fields = ["id", "name", "instruction_language", "language", "shots", "text"]
            ref_name = "PromptTemplateOutput"

    serializer_class = OutputSerializer

    def get_queryset(self):
        return selectors.prompt_template_list()
