"""Catalog REST API: templates and their versions (create, edit as a new version, list).

Everyone with a role reads; only researchers and admins write (ResearcherOrReadOnly).
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import (
    extend_schema,
    extend_schema_serializer,
)
from rest_framework import generics, serializers, status
from rest_framework.response import Response

from apps.accounts.permissions import ResearcherOrReadOnly
from apps.core.text import nfc_deep

from . import selectors, services
from .api_fields import NfcCharField, column
from .models import (
    Category,
    Dataset,
    Pairing,
    ReviewStatus,
    StereotypeConcept,
    Template,
    TemplateVersion,
    TransformationType,
)


class TemplateVersionOutput(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )

    class Meta:
        model = TemplateVersion
        exclude = ["template"]


class TemplateOutput(serializers.ModelSerializer):
    dataset = serializers.SlugRelatedField(slug_field="name", read_only=True)
    category = serializers.SlugRelatedField(slug_field="name", read_only=True)
    current_version = serializers.SerializerMethodField()
    version_count = serializers.SerializerMethodField()

    class Meta:
        model = Template
        fields = [
            "id",
            "dataset",
            "external_id",
            "question_index",
            "variant",
            "category",
            "current_version",
            "version_count",
            "created_at",
        ]

    def get_current_version(self, template: Template) -> dict:
        current = template.current_versions  # prefetched: template_current_versions
        return TemplateVersionOutput(current[0]).data if current else {}

    def get_version_count(self, template: Template) -> int:
        return len(template.versions.all())


class TemplateContentInput(serializers.Serializer):
    """The editable content of a template; PATCH accepts any subset and records a version."""

    language = serializers.CharField(max_length=column(TemplateVersion, "language"), required=False)
    ambiguous_context = NfcCharField(required=False)
    disambiguating_context = NfcCharField(required=False)
    question_negative = NfcCharField(required=False)
    question_non_negative = NfcCharField(required=False)
    answer_negative = NfcCharField(required=False)
    answer_non_negative = NfcCharField(required=False)
    # Each value is a list of strings, or a vocabulary reference
    # {"vocabulary": name, "groups": [...], "language": xx} resolved by the service.
    placeholders = serializers.DictField(child=serializers.JSONField(), required=False)
    placeholder_groups = serializers.DictField(
        child=serializers.ListField(child=NfcCharField()), required=False
    )
    target_placeholder = serializers.ChoiceField(["NAME1", "NAME2"], required=False)
    proper_noun = serializers.BooleanField(required=False)
    pairing = serializers.ChoiceField(Pairing.choices, required=False)
    stereotyped_groups = serializers.ListField(child=NfcCharField(), required=False)
    non_stereotyped_groups = serializers.ListField(child=NfcCharField(), required=False)
    subcategory = NfcCharField(
        required=False, allow_blank=True, max_length=column(TemplateVersion, "subcategory")
    )
    transformation_type = serializers.ChoiceField(
        TransformationType.choices, required=False, allow_blank=True
    )
    transformation_reason = NfcCharField(required=False, allow_blank=True)
    original_bbq_id = serializers.CharField(
        required=False, allow_blank=True, max_length=column(TemplateVersion, "original_bbq_id")
    )
    concept_id = serializers.PrimaryKeyRelatedField(
        queryset=StereotypeConcept.objects.all(), required=False, allow_null=True
    )
    source = NfcCharField(required=False, allow_blank=True)
    notes = NfcCharField(required=False, allow_blank=True)
    status = serializers.ChoiceField(ReviewStatus.choices, required=False)

    def to_content(self) -> dict:
        content = nfc_deep(dict(self.validated_data))
        if "concept_id" in content:
            concept = content["concept_id"]
            content["concept_id"] = concept.pk if concept else None
        return content


class TemplateListApi(generics.ListCreateAPIView):
    @extend_schema_serializer(component_name="TemplateCreateInput")
    class InputSerializer(TemplateContentInput):
        dataset = serializers.SlugRelatedField(slug_field="name", queryset=Dataset.objects.all())
        external_id = serializers.CharField(max_length=column(Template, "external_id"))
        category = serializers.SlugRelatedField(slug_field="name", queryset=Category.objects.all())
        question_index = serializers.CharField(
            required=False,
            allow_blank=True,
            default="",
            max_length=column(Template, "question_index"),
        )
        variant = serializers.CharField(
            required=False, allow_blank=True, default="", max_length=column(Template, "variant")
        )

    permission_classes = [ResearcherOrReadOnly]
    queryset = selectors.template_list()
    serializer_class = TemplateOutput
    filterset_class = selectors.TemplateFilter

    @extend_schema(request=InputSerializer, responses={201: TemplateOutput})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        identity = {
            key: data.validated_data.pop(key)
            for key in ("dataset", "external_id", "category", "question_index", "variant")
        }
        version = services.template_create(
            content=data.to_content(), created_by=request.user, **identity
        )
        template = selectors.template_list().get(pk=version.template_id)
        return Response(TemplateOutput(template).data, status=status.HTTP_201_CREATED)


class TemplateDetailApi(generics.RetrieveAPIView):
    """GET a template; PATCH its content, which records a new version (history is kept)."""

    permission_classes = [ResearcherOrReadOnly]
    queryset = selectors.template_list()
    serializer_class = TemplateOutput

    @extend_schema(request=TemplateContentInput, responses={200: TemplateOutput})
    def patch(self, request, pk: int):
        template = get_object_or_404(Template, pk=pk)
        data = TemplateContentInput(data=request.data)
        data.is_valid(raise_exception=True)
        services.template_edit(template=template, changes=data.to_content(), edited_by=request.user)
        return Response(TemplateOutput(selectors.template_list().get(pk=pk)).data)


class TemplateVersionListApi(generics.ListAPIView):
    """Every version of a template, newest first."""

    permission_classes = [ResearcherOrReadOnly]
    serializer_class = TemplateVersionOutput
    pagination_class = None

    queryset = TemplateVersion.objects.none()  # for the schema; get_queryset filters

    def get_queryset(self):
        return TemplateVersion.objects.filter(template_id=self.kwargs["pk"]).order_by("-number")
