"""Catalog REST API: templates and their versions (create, edit as a new version, list), and
the authoring preview (exact instance count, first instances, findings by field).

Everyone with a role reads; only researchers and admins write (ResearcherOrReadOnly). An edit
may name the version it started from (`base_version`): if another was saved since, it is
refused with 409, both version numbers and the diff between them, and nothing is written.
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

from . import authoring, selectors, services
from .api_fields import NfcCharField, column
from .models import (
    Category,
    Dataset,
    NounForm,
    Pairing,
    ReviewStatus,
    StereotypeConcept,
    Template,
    TemplateVersion,
    TransformationType,
)
from .versions import version_changes


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
    noun_form = serializers.ChoiceField(NounForm.choices, required=False, allow_blank=True)
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
    relevant_social_values = NfcCharField(required=False, allow_blank=True)
    notes = NfcCharField(required=False, allow_blank=True)
    status = serializers.ChoiceField(ReviewStatus.choices, required=False)

    def to_content(self) -> dict:
        content = nfc_deep(
            {
                key: value
                for key, value in self.validated_data.items()
                if key not in ("base_version", "allow_problems")
            }
        )
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
        allow_problems = serializers.BooleanField(
            required=False,
            default=False,
            help_text="keep a draft with its error findings (TemplateVersion.problems) instead "
            "of refusing it; such a draft is neither instantiated nor approved",
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
            content=data.to_content(),
            created_by=request.user,
            allow_problems=data.validated_data.get("allow_problems", False),
            **identity,
        )
        template = selectors.template_list().get(pk=version.template_id)
        return Response(TemplateOutput(template).data, status=status.HTTP_201_CREATED)


class TemplateEditInput(TemplateContentInput):
    """PATCH: any subset of the content; the version the edit started from, if known."""

    base_version = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="the version number the edit started from: if another version was saved "
        "since, the edit is refused (409) and nothing is written",
    )
    allow_problems = serializers.BooleanField(
        required=False,
        default=False,
        help_text="keep a draft with its error findings instead of refusing the edit",
    )


class TemplateReplaceInput(TemplateEditInput):
    """PUT: the whole content (the texts and the placeholder lists are required)."""

    ambiguous_context = NfcCharField()
    disambiguating_context = NfcCharField()
    question_negative = NfcCharField()
    question_non_negative = NfcCharField()
    answer_negative = NfcCharField()
    answer_non_negative = NfcCharField()
    placeholders = serializers.DictField(child=serializers.JSONField())


class TemplateEditConflictOutput(serializers.Serializer):
    detail = serializers.CharField()
    base_version = serializers.IntegerField()
    current_version = serializers.IntegerField()
    current_by = serializers.CharField(allow_null=True)
    changes = serializers.ListField(
        child=serializers.DictField(),
        help_text="what changed from base_version to current_version: [{field, parts: "
        "[[op, text], ...]}] with op same/del/ins",
    )


class TemplateDetailApi(generics.RetrieveAPIView):
    """GET a template; PATCH (some fields) or PUT (the whole content) records a new version
    (history is kept). Either may name `base_version`: an edit started from an older version
    than the current one is refused with 409 and the diff, and nothing is written."""

    permission_classes = [ResearcherOrReadOnly]
    queryset = selectors.template_list()
    serializer_class = TemplateOutput

    def _edit(self, request, pk: int, serializer: type[TemplateEditInput]) -> Response:
        template = get_object_or_404(Template, pk=pk)
        data = serializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            services.template_edit(
                template=template,
                changes=data.to_content(),
                edited_by=request.user,
                base_number=data.validated_data.get("base_version"),
                allow_problems=data.validated_data.get("allow_problems", False),
            )
        except services.TemplateEditConflict as conflict:
            current_by = conflict.current.created_by
            return Response(
                {
                    "detail": str(conflict),
                    "base_version": conflict.base.number,
                    "current_version": conflict.current.number,
                    "current_by": current_by.get_username() if current_by else None,
                    "changes": [
                        {"field": change["field"], "parts": [list(p) for p in change["parts"]]}
                        for change in version_changes(conflict.current, conflict.base)
                    ],
                },
                status=status.HTTP_409_CONFLICT,
            )
        return Response(TemplateOutput(selectors.template_list().get(pk=pk)).data)

    @extend_schema(
        request=TemplateEditInput,
        responses={200: TemplateOutput, 409: TemplateEditConflictOutput},
    )
    def patch(self, request, pk: int):
        return self._edit(request, pk, TemplateEditInput)

    @extend_schema(
        request=TemplateReplaceInput,
        responses={200: TemplateOutput, 409: TemplateEditConflictOutput},
    )
    def put(self, request, pk: int):
        return self._edit(request, pk, TemplateReplaceInput)


class TemplatePreviewFindingOutput(serializers.Serializer):
    field = serializers.CharField()
    level = serializers.ChoiceField([authoring.ERROR, authoring.WARNING])
    message = serializers.CharField()


class TemplatePreviewAxisOutput(serializers.Serializer):
    name = serializers.CharField()
    size = serializers.IntegerField()


class TemplatePreviewInstanceOutput(serializers.Serializer):
    combination = serializers.IntegerField()
    name_order = serializers.CharField()
    context_condition = serializers.CharField()
    question_polarity = serializers.CharField()
    pairing = serializers.CharField()
    context = serializers.CharField()
    question = serializers.CharField()
    answers = serializers.ListField(child=serializers.CharField())
    option_roles = serializers.ListField(child=serializers.CharField())
    label = serializers.IntegerField()


class TemplatePreviewOutput(serializers.Serializer):
    count = serializers.IntegerField(allow_null=True)
    axes = TemplatePreviewAxisOutput(many=True)
    per_combination = serializers.IntegerField()
    language = serializers.CharField()
    instances = TemplatePreviewInstanceOutput(many=True)
    findings = TemplatePreviewFindingOutput(many=True)
    error_count = serializers.IntegerField()
    warning_count = serializers.IntegerField()


class TemplatePreviewApi(generics.GenericAPIView):
    """What a template content would produce, without writing anything: the exact number of
    instances (counted, never enumerated), the first instances, and the findings by field
    (errors refuse approval; warnings are what the importers report). With `template`, the
    content is an edit of that template (fields not given keep their current values)."""

    @extend_schema_serializer(component_name="TemplatePreviewInput")
    class InputSerializer(TemplateContentInput):
        dataset = serializers.SlugRelatedField(
            slug_field="name",
            queryset=Dataset.objects.all(),
            required=False,
            help_text="the dataset's name permutations apply",
        )
        template = serializers.PrimaryKeyRelatedField(
            queryset=Template.objects.select_related("dataset"), required=False
        )
        external_id = serializers.CharField(required=False, allow_blank=True, max_length=100)
        limit = serializers.IntegerField(
            required=False, min_value=0, max_value=100, default=authoring.PREVIEW_INSTANCES
        )

    permission_classes = [ResearcherOrReadOnly]
    serializer_class = TemplatePreviewOutput
    queryset = Template.objects.none()  # for the schema

    @extend_schema(request=InputSerializer, responses={200: TemplatePreviewOutput})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        extra = {
            key: data.validated_data.pop(key, None)
            for key in ("dataset", "template", "external_id", "limit")
        }
        content = data.to_content()
        template = extra["template"]
        dataset = extra["dataset"] or (template.dataset if template else None)
        if template is not None:
            current = selectors.template_current_versions(templates=[template]).get()
            base = {name: getattr(current, name) for name in services.TEMPLATE_CONTENT_FIELDS}
            content = {**base, **content}
        preview = authoring.template_preview(
            content=content,
            permutations=bool(dataset and dataset.name_permutations),
            template_id=extra["external_id"] or (template.external_id if template else "preview"),
            limit=extra["limit"] if extra["limit"] is not None else authoring.PREVIEW_INSTANCES,
        )
        return Response(preview.as_dict())


class TemplateVersionListApi(generics.ListAPIView):
    """Every version of a template, newest first."""

    permission_classes = [ResearcherOrReadOnly]
    serializer_class = TemplateVersionOutput
    pagination_class = None

    queryset = TemplateVersion.objects.none()  # for the schema; get_queryset filters

    def get_queryset(self):
        return TemplateVersion.objects.filter(template_id=self.kwargs["pk"]).order_by("-number")
